// End to end: the rules that must hold under concurrency, with real concurrent requests through the whole stack.
// Each test has a tenant of its own, so what it counts in the table is only what its requests did.
import { afterAll, describe, expect, test } from '@jest/globals';
import type { TenantLocation } from '#shared/schemas/tenant-location';
import { tokenFor } from '#test/support/http';
import { problem, problemHeaders, problemType, validationProblem, viewOf } from '#test/support/responses';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { create, get, getAll, getByName, remove, save, search } from './support';

const table = openTenantTable();
afterAll(() => table.close());

const concurrency = 10;

/** A token for a tenant no other test uses. */
const newTenant = async () => {
  const tenant = freshTenantId();
  return { tenant, token: await tokenFor({ tenant }) };
};

const storedLocations = async (tenant: number) =>
  (await table.items(tenant)).filter((item) => item.entity === 'TenantLocation') as (TenantLocation & Record<string, unknown>)[];

describe('one name, many concurrent creates', () => {
  test(`${concurrency} Saves of 'Main' spelled differently create exactly one location; the others are 409 name-taken`, async () => {
    const { tenant, token } = await newTenant();
    const spellings = ['Main', 'main', ' MAIN ', 'Main ', '\tmain', 'MAIN', 'mAiN', ' main', 'MaIn  ', 'Ｍａｉｎ'];
    const responses = await Promise.all(spellings.slice(0, concurrency).map((name) => save(token, { Name: name, Phone: name })));

    const created = responses.filter((response) => response.status === 201);
    const refused = responses.filter((response) => response.status !== 201);
    expect(created).toHaveLength(1);
    for (const response of refused) {
      expect(viewOf(response)).toEqual({
        status: 409,
        headers: problemHeaders(),
        body: problem({
          status: 409,
          title: 'Name already in use',
          type: problemType('name-taken'),
          detail: 'Another record of this tenant already has this name.',
          errors: [{ pointer: '/Name', detail: 'already in use' }],
        }),
      });
    }

    const winner = (created[0] as (typeof responses)[number]).json;
    expect(await storedLocations(tenant)).toEqual([expect.objectContaining({ ID: winner.ID, Name: winner.Name, IsActive: true })]);
    const claims = (await table.items(tenant)).filter((item) => item.entity === 'TenantLocationName');
    expect(claims).toEqual([expect.objectContaining({ sk: 'LOCNAME#main', LocationID: winner.ID })]);
    expect((await getAll(token)).json).toEqual([winner]);
  });

  test(`${concurrency} concurrent Saves of different names all create, with distinct ids`, async () => {
    const { tenant, token } = await newTenant();
    const responses = await Promise.all(Array.from({ length: concurrency }, (_, index) => save(token, { Name: `Branch ${index}` })));
    expect(responses.map((response) => response.status)).toEqual(Array(concurrency).fill(201));
    const ids = responses.map((response) => response.json.ID);
    expect(new Set(ids).size).toBe(concurrency);
    expect((await storedLocations(tenant)).map((location) => location.ID).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  });
});

describe('optimistic concurrency', () => {
  test(`${concurrency} concurrent updates with the same Version: exactly one 200, the others 409 stale-version`, async () => {
    const { tenant, token } = await newTenant();
    const original = await create(token, { Name: 'Contended', Phone: 'original' });
    const responses = await Promise.all(
      Array.from({ length: concurrency }, (_, index) =>
        save(token, { ID: original.ID, Version: original.Version, Name: 'Contended', Phone: `writer ${index}` }),
      ),
    );

    const succeeded = responses.filter((response) => response.status === 200);
    expect(succeeded).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.status !== 200)) {
      expect(viewOf(response)).toEqual({
        status: 409,
        headers: problemHeaders(),
        body: problem({
          status: 409,
          title: 'Stale version',
          type: problemType('stale-version'),
          detail: 'The record was changed by someone else; fetch it again and retry.',
          errors: [{ pointer: '/Version', detail: 'stale' }],
        }),
      });
    }
    const winner = (succeeded[0] as (typeof responses)[number]).json;
    expect(winner.Version).toBe(original.Version + 1);
    expect((await get(token, original.ID)).json).toEqual(winner);
    expect(await table.location(tenant, original.ID)).toMatchObject({ Version: original.Version + 1, Phone: winner.Phone });
  });

  test('concurrent updates without a Version all apply, one after another (each read-modify-write is atomic)', async () => {
    const { token } = await newTenant();
    const original = await create(token, { Name: 'Last writer wins' });
    const writers = 5;
    const responses = await Promise.all(
      Array.from({ length: writers }, (_, index) => save(token, { ID: original.ID, Name: 'Last writer wins', Phone: `writer ${index}` })),
    );
    const statuses = responses.map((response) => response.status);
    // Each write retries a lost race a few times; under heavy contention it may still give up with 409.
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    const applied = responses.filter((response) => response.status === 200).map((response) => response.json);
    expect(new Set(applied.map((location) => location.Version)).size).toBe(applied.length);
    const final = (await get(token, original.ID)).json;
    expect(final.Version).toBe(original.Version + applied.length);
    expect(final).toEqual(applied.find((location) => location.Version === final.Version));
  });

  test('concurrent deletes of one location: all 200 with the same deleted record', async () => {
    const { token } = await newTenant();
    const original = await create(token, { Name: 'Deleted by many' });
    const responses = await Promise.all(Array.from({ length: 5 }, () => remove(token, original.ID)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    const deleted = (await get(token, original.ID)).json;
    expect(deleted).toMatchObject({ IsActive: false, Version: original.Version + 1 });
    for (const response of responses) expect(response.json).toEqual(deleted);
  });
});

describe('one default location per tenant', () => {
  /** The ids GetAll reports as default, and the location the tenant's default pointer names. */
  const defaultsOf = async (tenant: number, token: string) => ({
    reported: (await getAll(token)).json.filter((location) => location.IsDefault).map((location) => location.ID),
    pointer: (await table.items(tenant)).find((item) => item.entity === 'TenantLocationDefault')?.LocationID,
  });

  test('making several locations default concurrently: every save succeeds, exactly one default remains, and the pointer names it', async () => {
    const { tenant, token } = await newTenant();
    const locations: TenantLocation[] = [];
    for (const name of ['North', 'South', 'East', 'West']) locations.push(await create(token, { Name: name }));

    const responses = await Promise.all(locations.map((location) => save(token, { ID: location.ID, Name: location.Name, IsDefault: true })));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);

    const { reported, pointer } = await defaultsOf(tenant, token);
    expect(reported).toEqual([pointer]);
    // No location item carries a default flag of its own: the pointer alone decides.
    expect((await storedLocations(tenant)).filter((location) => 'IsDefault' in location)).toEqual([]);
  });

  test('two concurrent creates of default locations both succeed and leave exactly one default', async () => {
    const { tenant, token } = await newTenant();
    const responses = await Promise.all(['Left', 'Right'].map((name) => save(token, { Name: name, IsDefault: true })));
    expect(responses.map((response) => response.status)).toEqual([201, 201]);
    const { reported, pointer } = await defaultsOf(tenant, token);
    expect(reported).toEqual([pointer]);
  });

  const defaultSaves = 50;
  test(`${defaultSaves} concurrent default saves all succeed; the last committed is the one default, every other IsDefault reads false`, async () => {
    const { tenant, token } = await newTenant();
    // Half create a new default location, half make an existing one the default (naming its Version).
    const existing: TenantLocation[] = [];
    for (let index = 0; index < defaultSaves / 2; index += 1) existing.push(await create(token, { Name: `Existing ${index}` }));

    const responses = await Promise.all([
      ...existing.map((location) => save(token, { ID: location.ID, Version: location.Version, Name: location.Name, IsDefault: true })),
      ...Array.from({ length: defaultSaves / 2 }, (_, index) => save(token, { Name: `Created ${index}`, IsDefault: true })),
    ]);

    expect(responses.map((response) => response.status)).toEqual([...Array(defaultSaves / 2).fill(200), ...Array(defaultSaves / 2).fill(201)]);
    const { reported, pointer } = await defaultsOf(tenant, token);
    expect(reported).toEqual([pointer]);
    // The last committed save is the default: the pointer names one of the saved locations, and each location's
    // own Get, GetByName and Search agree with GetAll that it alone is the default.
    const savedIds = responses.map((response) => response.json.ID);
    expect(savedIds).toContain(pointer);
    const all = (await getAll(token)).json;
    expect(all).toHaveLength(defaultSaves);
    for (const location of all) expect(location.IsDefault).toBe(location.ID === pointer);
    const winner = (await get(token, pointer as number)).json;
    expect(winner.IsDefault).toBe(true);
    expect((await getByName(token, { SearchString: winner.Name, IsExactMatch: true })).json.IsDefault).toBe(true);
    const searched = await search(token, { MaxResults: 500 });
    const rows = (searched.json as unknown as { Value: TenantLocation[] }).Value;
    expect(rows).toHaveLength(defaultSaves);
    expect(rows.filter((row) => row.IsDefault).map((row) => row.ID)).toEqual([pointer]);
  });
});

describe('the parent hierarchy under concurrent saves', () => {
  const loopProblem = validationProblem([{ pointer: '/ParentID', detail: 'this parent would make the hierarchy a loop' }]);

  test('two saves that would together make a loop (B under C while C goes under B) never both commit', async () => {
    const { tenant, token } = await newTenant();
    const rounds = 6;
    for (let round = 0; round < rounds; round += 1) {
      const [b, c] = [await create(token, { Name: `B ${round}` }), await create(token, { Name: `C ${round}` })];
      const responses = await Promise.all([
        save(token, { ID: b.ID, Name: b.Name, ParentID: c.ID }),
        save(token, { ID: c.ID, Name: c.Name, ParentID: b.ID }),
      ]);

      // One is made; the other, read again after its write was refused, is the loop it would make.
      expect(responses.map((response) => response.status).sort()).toEqual([200, 400]);
      const refused = responses.find((response) => response.status === 400);
      expect(refused?.json).toEqual(loopProblem);
    }
    // No location of the tenant is its own ancestor.
    const parents = new Map((await storedLocations(tenant)).map((location) => [location.ID, location.ParentID]));
    for (const id of parents.keys()) {
      const seen = new Set<number>();
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
        expect(seen.has(at)).toBe(false);
        seen.add(at);
      }
    }
  });
});
