// End to end: the tenant-location rules of shared/tenant-locations/README.md as a client sees them over HTTP, with
// the stored items checked where the rule is about storage (soft delete, name claims, the default pointer).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TenantLocation } from '#shared/schemas/tenant-location';
import { api, tokenFor } from '#test/support/http';
import { problem, problemHeaders, problemType, successHeaders, validationProblem, viewOf } from '#test/support/responses';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import {
  create,
  expectedLocation,
  get,
  getAll,
  getByName,
  getDefaultAddress,
  isoTimestamp,
  names,
  remove,
  save,
} from './support';

const table = openTenantTable();
afterAll(() => table.close());

/** Each describe block has a tenant of its own, so lists and defaults hold only what the block created. */
const newTenant = async () => {
  const tenant = freshTenantId();
  return { tenant, token: await tokenFor({ tenant }) };
};

const nameTaken = {
  status: 409,
  headers: problemHeaders(),
  body: problem({
    status: 409,
    title: 'Name already in use',
    type: problemType('name-taken'),
    detail: 'Another record of this tenant already has this name.',
    errors: [{ pointer: '/Name', detail: 'already in use' }],
  }),
};

const staleVersion = {
  status: 409,
  headers: problemHeaders(),
  body: problem({
    status: 409,
    title: 'Stale version',
    type: problemType('stale-version'),
    detail: 'The record was changed by someone else; fetch it again and retry.',
    errors: [{ pointer: '/Version', detail: 'stale' }],
  }),
};

describe('Save', () => {
  let tenant: number;
  let token: string;
  beforeAll(async () => ({ tenant, token } = await newTenant()));

  test('creates with 201 and a Location that serves the record; then updates with 200, Version +1 each time', async () => {
    const input = { Name: 'Harbour', Description: 'By the water', Phone: '08 1234 5678' };
    const created = await save(token, { ...input, ID: 0 });
    const id = created.json.ID;
    expect(viewOf(created)).toEqual({
      status: 201,
      headers: successHeaders('application/json', { location: `/api/TenantLocation/Get/${id}` }),
      body: expectedLocation(input, { id, tenant }),
    });
    const location = created.headers.get('location') as string;
    expect((await api(location.replace(/^\/api/, ''), { token })).json).toEqual(created.json);

    const second = await save(token, { ID: id, Name: 'Harbour', Phone: '08 0000 0000', Version: 1 });
    expect(viewOf(second)).toEqual({
      status: 200,
      headers: successHeaders('application/json'),
      body: expectedLocation({ ...input, Phone: '08 0000 0000' }, { id, tenant, version: 2 }),
    });
    expect(second.json.CreatedDateTime_utc).toBe(created.json.CreatedDateTime_utc);
    const third = await save(token, { ID: id, Name: 'Harbour' });
    expect(third.json.Version).toBe(3);
    expect(await table.location(tenant, id)).toMatchObject({ Version: 3, Phone: '08 0000 0000' });
  });

  test('a stale or unknown Version: 409 stale-version, nothing written', async () => {
    const location = await create(token, { Name: 'Versioned' });
    await save(token, { ID: location.ID, Name: 'Versioned', Description: 'v2', Version: 1 });
    const before = await table.items(tenant);
    for (const version of [1, 3, 99]) {
      expect(viewOf(await save(token, { ID: location.ID, Name: 'Versioned', Description: 'lost', Version: version }))).toEqual(staleVersion);
    }
    expect(await table.items(tenant)).toEqual(before);
    expect((await save(token, { ID: location.ID, Name: 'Versioned', Description: 'v3', Version: 2 })).json.Version).toBe(3);
  });

  test('update merges: absent fields are kept, "" and {} clear, Address is replaced as a whole', async () => {
    const original = await create(token, {
      Name: 'Merge',
      Description: 'keep me',
      Phone: 'clear me',
      EmailAddress: 'keep@example.com',
      UtcOffset: 480,
      CustomerID: 9,
      Address: { City: 'Perth', PostCode: '6000', IsDefaultBilling: true },
    });
    const partial = await save(token, { ID: original.ID, Name: 'Merge', Phone: '', Address: { City: 'Albany' } });
    expect(partial.json).toEqual(
      expectedLocation(
        { Name: 'Merge', Description: 'keep me', EmailAddress: 'keep@example.com', UtcOffset: 480, CustomerID: 9, Address: { City: 'Albany' } },
        { id: original.ID, tenant, version: 2 },
      ),
    );
    const cleared = await save(token, { ID: original.ID, Name: 'Merge', Address: {}, Description: '' });
    expect(cleared.json).toEqual(
      expectedLocation({ Name: 'Merge', EmailAddress: 'keep@example.com', UtcOffset: 480, CustomerID: 9 }, { id: original.ID, tenant, version: 3 }),
    );
    expect(await table.location(tenant, original.ID)).not.toHaveProperty('Address');
  });

  test('a fetched record can be sent back: server-owned fields are accepted and ignored', async () => {
    const original = await create(token, { Name: 'Round trip', Address: { City: 'Broome' } });
    const sentBack = {
      ...original,
      Description: 'edited',
      RowNumber: 7,
      CreatedDateTime_utc: '2000-01-01T00:00:00Z',
      ModifiedDateTime_utc: '2000-01-01T00:00:00Z',
      CreatedByUserID: 99,
      ModifiedByUserID: 99,
      TenantLocationID: 12345,
    };
    const updated = await save(token, sentBack);
    expect(updated.status).toBe(200);
    expect(updated.json).toEqual({
      ...original,
      Description: 'edited',
      Version: 2,
      ModifiedDateTime_utc: isoTimestamp,
    });
    expect(updated.json.CreatedDateTime_utc).toBe(original.CreatedDateTime_utc);
  });

  test('names are unique per tenant, case- and space-insensitively; a location may change the case of its own name', async () => {
    const first = await create(token, { Name: 'Depot' });
    const other = await create(token, { Name: 'Store' });
    const before = await table.items(tenant);
    expect(viewOf(await save(token, { Name: ' depot ' }))).toEqual(nameTaken);
    expect(viewOf(await save(token, { ID: other.ID, Name: 'DEPOT' }))).toEqual(nameTaken);
    expect(await table.items(tenant)).toEqual(before.map((item) => (item.sk === 'SEQ#LOC' ? expect.anything() : item)));
    const recased = await save(token, { ID: first.ID, Name: 'DEPOT' });
    expect(recased.json).toMatchObject({ Name: 'DEPOT', Version: 2 });
    // Renaming frees the old name.
    await save(token, { ID: other.ID, Name: 'Shop' });
    expect((await save(token, { Name: 'store' })).status).toBe(201);
  });

  test('ParentID names another location of the tenant; ParentName is derived; loops are refused', async () => {
    const parent = await create(token, { Name: 'Region' });
    const child = await create(token, { Name: 'Branch', ParentID: parent.ID, ParentName: 'ignored' });
    expect(child).toMatchObject({ ParentID: parent.ID, ParentName: 'Region' });
    const loop = await save(token, { ID: parent.ID, Name: 'Region', ParentID: child.ID });
    expect(viewOf(loop)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ pointer: '/ParentID', detail: 'this parent would make the hierarchy a loop' }]),
    });
    // An update without ParentID keeps the parent and its name.
    expect((await save(token, { ID: child.ID, Name: 'Branch', Phone: '1' })).json).toMatchObject({ ParentID: parent.ID, ParentName: 'Region' });
  });

  test('a positive ID that is not a location of the tenant: 404', async () => {
    const before = await table.items(tenant);
    expect(viewOf(await save(token, { ID: 424242, Name: 'Nowhere' }))).toEqual({
      status: 404,
      headers: problemHeaders(),
      body: problem({ status: 404, title: 'Not Found', detail: 'Tenant location 424242 does not exist.' }),
    });
    expect(await table.items(tenant)).toEqual(before);
  });
});

describe('one default location per tenant', () => {
  let tenant: number;
  let token: string;
  beforeAll(async () => ({ tenant, token } = await newTenant()));

  // The pointer alone records the default (no location item carries a flag); GetAll reports what it derives.
  const defaultsInTable = async () => (await getAll(token)).json.filter((location) => location.IsDefault).map((location) => location.ID);
  const pointer = async () => (await table.items(tenant)).find((item) => item.sk === 'LOCDEFAULT')?.LocationID;

  test('making one default clears the other (whose record is not written); deleting the default leaves none', async () => {
    const first = await create(token, { Name: 'First', IsDefault: true });
    expect([await defaultsInTable(), await pointer()]).toEqual([[first.ID], first.ID]);

    const second = await create(token, { Name: 'Second', IsDefault: true });
    expect([await defaultsInTable(), await pointer()]).toEqual([[second.ID], second.ID]);
    expect((await get(token, first.ID)).json).toMatchObject({ IsDefault: false, Version: 1 });

    const third = await create(token, { Name: 'Third' });
    await save(token, { ID: third.ID, Name: 'Third', IsDefault: true });
    expect((await getAll(token)).json.filter((location) => location.IsDefault).map((location) => location.ID)).toEqual([third.ID]);

    expect((await remove(token, third.ID)).json).toMatchObject({ IsActive: false, IsDefault: false });
    expect([await defaultsInTable(), await pointer()]).toEqual([[], undefined]);
    // With no default left, another can become the default.
    expect((await save(token, { ID: first.ID, Name: 'First', IsDefault: true })).json.IsDefault).toBe(true);
    expect([await defaultsInTable(), await pointer()]).toEqual([[first.ID], first.ID]);
  });

  test('IsDefault false clears the default', async () => {
    const [current] = (await getAll(token)).json.filter((location) => location.IsDefault);
    await save(token, { ID: (current as TenantLocation).ID, Name: (current as TenantLocation).Name, IsDefault: false });
    expect([await defaultsInTable(), await pointer()]).toEqual([[], undefined]);
  });
});

describe('Delete', () => {
  let tenant: number;
  let token: string;
  beforeAll(async () => ({ tenant, token } = await newTenant()));

  test('is soft and idempotent; Get still returns the location with IsActive false; GetAll leaves it out', async () => {
    const location = await create(token, { Name: 'Closing', IsDefault: true, Address: { City: 'Perth' } });
    const deleted = await remove(token, location.ID);
    expect(viewOf(deleted)).toEqual({
      status: 200,
      headers: successHeaders('application/json'),
      body: { ...location, IsActive: false, IsDefault: false, Version: 2, ModifiedDateTime_utc: isoTimestamp },
    });
    const itemsAfterFirst = await table.items(tenant);
    const again = await remove(token, location.ID);
    expect([again.status, again.json]).toEqual([200, deleted.json]);
    expect(await table.items(tenant)).toEqual(itemsAfterFirst);

    expect((await get(token, location.ID)).json).toEqual(deleted.json);
    expect(await table.location(tenant, location.ID)).toMatchObject({ IsActive: false, Version: 2 });
    expect((await getAll(token)).json.map((candidate) => candidate.ID)).not.toContain(location.ID);
    expect((await getByName(token, { SearchString: 'Closing', IsExactMatch: true })).status).toBe(404);
  });

  test('releases the name: a new location can take it, and the deleted one cannot take it back', async () => {
    const old = await create(token, { Name: 'Reused' });
    await remove(token, old.ID);
    const successor = await save(token, { Name: 'REUSED' });
    expect(successor.status).toBe(201);
    expect((await getByName(token, { SearchString: 'reused', IsExactMatch: true })).json).toEqual(successor.json);
    const claims = (await table.items(tenant)).filter((item) => item.sk === 'LOCNAME#reused');
    expect(claims).toEqual([expect.objectContaining({ LocationID: successor.json.ID })]);

    const before = await table.items(tenant);
    expect(viewOf(await save(token, { ID: old.ID, Name: 'Reused', IsActive: true }))).toEqual(nameTaken);
    expect(await table.items(tenant)).toEqual(before);
  });

  // A delete retried after another client restored the location deleted it again: with the Version read, a delete
  // is a compare-and-set.
  test('with the Version read: a location restored since is a 409 stale-version at the parameter and stays active', async () => {
    const location = await create(token, { Name: 'Compare and set' });
    const deleted = await remove(token, location.ID, {}, { Version: location.Version });
    expect(deleted.json).toMatchObject({ IsActive: false, Version: location.Version + 1 });
    const restored = await save(token, { ID: location.ID, Name: 'Compare and set', IsActive: true });
    expect(restored.json).toMatchObject({ IsActive: true, Version: location.Version + 2 });
    const before = await table.items(tenant);

    // The first delete's retry (its answer lost), with the Version it was sent with.
    expect(viewOf(await remove(token, location.ID, {}, { Version: location.Version }))).toEqual({
      ...staleVersion,
      body: { ...staleVersion.body, errors: [{ parameter: 'Version', detail: 'stale' }], Messages: expect.any(Array) },
    });
    expect(await table.items(tenant)).toEqual(before);
    // At the Version read now: deleted; and again with it: answered as it is.
    const current = await remove(token, location.ID, {}, { Version: location.Version + 2 });
    expect(current.json).toMatchObject({ IsActive: false, Version: location.Version + 3 });
    expect((await remove(token, location.ID, {}, { Version: location.Version + 2 })).json).toEqual(current.json);
  });

  test.each([['0'], ['-1'], ['abc'], ['1.0'], ['2147483648'], ['']])('a Version of %p: 400 naming it, nothing changed', async (version) => {
    const location = await create(token, { Name: `Bad version ${version}` });
    const before = await table.items(tenant);
    expect(viewOf(await remove(token, location.ID, {}, { Version: version }))).toMatchObject({
      status: 400,
      body: { errors: [{ parameter: 'Version', detail: 'must be the Version you read: a positive 32-bit integer in plain decimal' }] },
    });
    expect(await table.items(tenant)).toEqual(before);
  });

  test('an unknown id: 404', async () => {
    expect(viewOf(await remove(token, 777_777))).toEqual({
      status: 404,
      headers: problemHeaders(),
      body: problem({ status: 404, title: 'Not Found', detail: 'Tenant location 777777 does not exist.' }),
    });
  });
});

describe('GetAll and GetByName', () => {
  let token: string;
  const created: Record<string, TenantLocation> = {};
  beforeAll(async () => {
    ({ token } = await newTenant());
    // 'Bravo Annex' and 'Bravo!' sort after 'Bravo' (a name sorts before the longer names it begins).
    for (const name of ['charlie', 'Bravo Annex', 'Bravo', 'alpha', 'Bravo!', 'Alpine', 'Delta', 'Bravado']) {
      created[name] = await create(token, { Name: name });
    }
    await remove(token, (created.Delta as TenantLocation).ID);
  });

  test('GetAll: active locations only, ordered by name case-insensitively', async () => {
    const listed = await getAll(token);
    expect(viewOf(listed).status).toBe(200);
    expect(names(listed.json)).toEqual(['alpha', 'Alpine', 'Bravado', 'Bravo', 'Bravo Annex', 'Bravo!', 'charlie']);
    expect(listed.json[0]).toEqual(created.alpha);
  });

  test.each([
    ['exact, case- and space-insensitive', { SearchString: '  BRAVO ', IsExactMatch: true }, 'Bravo'],
    ['exact with Search instead of SearchString', { Search: 'alpine', IsExactMatch: true }, 'Alpine'],
    ['prefix: the first by name', { SearchString: 'bra' }, 'Bravado'],
    ['prefix with IsExactMatch false', { SearchString: 'AL', IsExactMatch: false }, 'alpha'],
    ['prefix that is a whole name', { SearchString: 'charlie' }, 'charlie'],
    ['prefix that is a whole name and begins longer ones', { SearchString: 'bravo' }, 'Bravo'],
    ['prefix with a space', { SearchString: 'bravo a' }, 'Bravo Annex'],
    ['Search when SearchString is blank', { SearchString: ' ', Search: 'charl' }, 'charlie'],
  ])('GetByName %s', async (_name, body, expected) => {
    const response = await getByName(token, body);
    expect(viewOf(response)).toEqual({ status: 200, headers: successHeaders('application/json'), body: created[expected] });
  });

  test.each([
    ['exact does not match a prefix', { SearchString: 'Brav', IsExactMatch: true }],
    ['no name starts with the text', { SearchString: 'zulu' }],
    ['a deleted location, exact', { SearchString: 'Delta', IsExactMatch: true }],
    ['a deleted location, by prefix', { SearchString: 'del' }],
    ['text in the middle of a name', { SearchString: 'ravo' }],
  ])('GetByName 404: %s', async (_name, body) => {
    expect(viewOf(await getByName(token, body))).toEqual({
      status: 404,
      headers: problemHeaders(),
      body: problem({ status: 404, title: 'Not Found', detail: 'No active tenant location has this name.' }),
    });
  });
});

describe('GetDefaultAddress', () => {
  let token: string;
  beforeAll(async () => ({ token } = await newTenant()));

  test.each([
    ['IsDefaultBilling', { IsDefaultBilling: true }, ['Billing', 'billing', '1', ' BILLING ']],
    ['IsDefaultDeliverTo', { IsDefaultDeliverTo: true }, ['Delivery', 'DELIVERY', '2']],
    ['IsDefaultServiceTo', { IsDefaultServiceTo: true }, ['Service', 'service', '3']],
    ['IsPostalAddress', { IsPostalAddress: true }, ['Postal', 'postal', '4']],
    ['AddressType 2', { AddressType: 2 }, ['Delivery', '2']],
    ['AddressType 4 and IsDefaultBilling', { AddressType: 4, IsDefaultBilling: true }, ['Billing', '1', 'Postal', '4']],
  ] as const)('an address with %s (%j) answers for its types, and 404 for the others', async (_flag, flags, matching) => {
    const address = { StreetAddress: '1 Main St', City: 'Perth', ...flags };
    const location = await create(token, { Name: `Address ${JSON.stringify(flags)}`, Address: address });
    for (const addressType of matching) {
      const response = await getDefaultAddress(token, location.ID, addressType);
      expect({ addressType, ...viewOf(response) }).toEqual({
        addressType,
        status: 200,
        headers: successHeaders('application/json'),
        body: { ...address, LocationID: location.ID },
      });
    }
    const types = { Billing: '1', Delivery: '2', Service: '3', Postal: '4' } as const;
    for (const [name, number] of Object.entries(types)) {
      if ((matching as readonly string[]).includes(number)) continue;
      for (const addressType of [name, number]) {
        expect({ addressType, ...viewOf(await getDefaultAddress(token, location.ID, addressType)) }).toEqual({
          addressType,
          status: 404,
          headers: problemHeaders(),
          body: problem({ status: 404, title: 'Not Found', detail: `Tenant location ${location.ID} has no ${name} address.` }),
        });
      }
    }
  });

  test('a location without an address: 404 for every type; an unknown location: 404', async () => {
    const bare = await create(token, { Name: 'No address' });
    for (const addressType of ['Billing', 'Delivery', 'Service', 'Postal']) {
      expect((await getDefaultAddress(token, bare.ID, addressType)).status).toBe(404);
    }
    expect(viewOf(await getDefaultAddress(token, 555_555, 'Billing'))).toEqual({
      status: 404,
      headers: problemHeaders(),
      body: problem({ status: 404, title: 'Not Found', detail: 'Tenant location 555555 does not exist.' }),
    });
  });

  test('flags set to false do not match', async () => {
    const location = await create(token, { Name: 'False flags', Address: { City: 'Perth', IsDefaultBilling: false, IsPostalAddress: false } });
    expect((await getDefaultAddress(token, location.ID, 'Billing')).status).toBe(404);
    expect((await getDefaultAddress(token, location.ID, 'Postal')).status).toBe(404);
  });
});
