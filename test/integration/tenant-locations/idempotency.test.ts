// Integration (issue 22, chaos defect 2): POST /TenantLocation/Save with an Idempotency-Key, at the mechanism, on
// DynamoDB Local with the real service, repository and key claims (shared/data/idempotency.ts). Without a key, a
// create retried after a lost answer finds its own name taken (409); with one, the retry replays the first answer
// byte for byte, one location, and the tenant's sequence is not advanced by the retry.
import { describe, expect, it } from '@jest/globals';
import type { Principal } from '#shared/auth/principal';
import { createIdempotency, type Answer } from '#shared/data/idempotency';
import { sequenceKey } from '#shared/data/sequence';
import { savedAnswer } from '#shared/http/answers/tenant-locations';
import type { TenantLocationInfo } from '#shared/schemas/tenant-location';
import { locationKey, locationSequence } from '#shared/tenant-locations/keys';
import { createTenantLocationRepository } from '#shared/tenant-locations/repository';
import type { TenantLocationStore } from '#shared/tenant-locations/store';
import { createTenantLocationService } from '#shared/tenant-locations/service';
import { atEveryKillPoint, faultAfterCommit, freshTenantId, openLocalTable, openRecordedTable, runKilledAt, storedItem, tenantItems, type CommitFault, type KillPoint } from '#test/integration/data/support';

const table = openLocalTable();
const repository = createTenantLocationRepository(table);
const keys = createIdempotency(table, 'tenantLocationSave');

/** The service (and `committed`, settled once its faulty write committed) over a store whose next write commits, then dies (never settles) or fails (the answer lost). */
const serviceWith = (fault?: CommitFault) => {
  const faulty = faultAfterCommit(repository.write, fault);
  const store: TenantLocationStore = { ...repository, write: faulty.write };
  return Object.assign(createTenantLocationService({ repository: store, clock: () => new Date('2026-03-01T10:00:00.000Z') }), { committed: faulty.committed });
};

type Service = ReturnType<typeof serviceWith>;

const save = (service: Service, principal: Principal, body: TenantLocationInfo, key: string): Promise<Answer> =>
  keys.run({ tenantId: principal.tenantId, key, request: { body } }, savedAnswer, (claim) => service.save(principal, body, claim));

const principalOf = (): Principal => ({ tenantId: freshTenantId(), websiteId: 1, userId: 3 });
const lastId = async (principal: Principal) => (await storedItem(table, sequenceKey(principal.tenantId, locationSequence)))?.value as number | undefined;
const stillPending = async (pending: Promise<unknown>) =>
  Promise.race([pending.then(() => false, () => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 200))]);

describe('POST /TenantLocation/Save with an Idempotency-Key', () => {
  it('the function dies between the commit and its answer: the retry replays the create, one location, the sequence not advanced', async () => {
    const principal = principalOf();
    const body = { Name: 'Depot', IsDefault: true };
    const dying = serviceWith('dies-after-commit');
    const lost = save(dying, principal, body, 'loc-1');
    await dying.committed;
    expect(await stillPending(lost)).toBe(true);
    const retry = await save(serviceWith(), principal, body, 'loc-1');
    expect(retry.status).toBe(201);
    expect(retry.headers).toEqual({ Location: expect.stringMatching(/\/TenantLocation\/Get\/1$/) });
    expect(retry.body).toMatchObject({ ID: 1, Name: 'Depot', IsDefault: true });
    expect(await lastId(principal)).toBe(1);
    expect(await storedItem(table, locationKey(principal.tenantId, 2))).toBeUndefined();
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'loc-1'))).toBe(JSON.stringify(retry));
  });

  it('an answer lost after the commit: the retry replays byte for byte; without a key the same retry is 409 name taken', async () => {
    const principal = principalOf();
    const body = { Name: 'Yard' };
    const first = await save(serviceWith('throws-after-commit'), principal, body, 'loc-2');
    expect(first.status).toBe(201);
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'loc-2'))).toBe(JSON.stringify(first));
    await expect(serviceWith().save(principal, body)).rejects.toMatchObject({ status: 409 });
    expect(await lastId(principal)).toBe(1);
  });

  it('a burst of the same create with one key makes one location; every answer is the same', async () => {
    const principal = principalOf();
    const body = { Name: 'Burst' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => save(serviceWith(), principal, body, 'loc-3')));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]?.status).toBe(201);
    // The twins took IDs at once: those taken after another cannot be given back (a gap, which IDs may have), but only
    // the answer's ID holds a location.
    const id = (answers[0]?.body as { ID: number }).ID;
    const stored = await Promise.all(Array.from({ length: (await lastId(principal)) ?? 0 }, (_, index) => storedItem(table, locationKey(principal.tenantId, index + 1))));
    expect(stored.filter(Boolean).map((item) => item?.ID)).toEqual([id]);
  });

  it('the same key with another request is 422 and writes nothing; an update replays its 200', async () => {
    const principal = principalOf();
    await save(serviceWith(), principal, { Name: 'One' }, 'loc-4');
    await expect(save(serviceWith(), principal, { Name: 'Two' }, 'loc-4')).rejects.toMatchObject({ status: 422 });
    expect(await lastId(principal)).toBe(1);
    const update = { ID: 1, Name: 'One renamed' };
    const updated = await save(serviceWith(), principal, update, 'loc-5');
    expect(updated.status).toBe(200);
    expect(JSON.stringify(await save(serviceWith(), principal, update, 'loc-5'))).toBe(JSON.stringify(updated));
    expect(await storedItem(table, locationKey(principal.tenantId, 1))).toMatchObject({ Name: 'One renamed', Version: 2 });
  });

  it('a key is per tenant: another tenant with the same key makes its own location', async () => {
    const [one, two] = [principalOf(), principalOf()];
    const body = { Name: 'Shared key' };
    await save(serviceWith(), one, body, 'loc-6');
    expect((await save(serviceWith(), two, body, 'loc-6')).status).toBe(201);
    expect(await storedItem(table, locationKey(two.tenantId, 1))).toMatchObject({ Name: 'Shared key', TenantID: two.tenantId });
  });
});

describe('a keyed save killed at each of its writes in turn, before the request arrives or after it applied', () => {
  const tables = openRecordedTable();
  const saveKilledAt = (principal: Principal, body: TenantLocationInfo, key: string, kill?: KillPoint) => {
    const service = createTenantLocationService({ repository: createTenantLocationRepository(tables.recorded), clock: () => new Date('2026-03-01T10:00:00.000Z') });
    return runKilledAt(tables, () => keys.run({ tenantId: principal.tenantId, key, request: { body } }, savedAnswer, (claim) => service.save(principal, body, claim)), kill);
  };
  /** The tenant's locations (its IDs from the sequence). */
  const locationsOf = async (principal: Principal) => {
    const ids = Array.from({ length: (await lastId(principal)) ?? 0 }, (_, index) => index + 1);
    return (await Promise.all(ids.map((id) => storedItem(table, locationKey(principal.tenantId, id))))).filter((item) => item !== undefined);
  };

  it.each([
    ['a create (the default)', undefined],
    ['an update (a rename)', { ID: 1, Name: 'Depot, renamed' }],
  ] as const)('%s: the retry answers once for good, one location, changed once, the name claimed once', async (_, change) => {
    await atEveryKillPoint({
      setUp: async () => {
        const principal = principalOf();
        if (change) await save(serviceWith(), principal, { Name: 'Depot', IsDefault: true }, 'create');
        return { principal, body: change ?? { Name: 'Depot', IsDefault: true } };
      },
      killed: ({ principal, body }, key, kill) => saveKilledAt(principal, body, key, kill),
      retry: ({ principal, body }, key) => save(serviceWith(), principal, body, key),
      check: async ({ principal, body }, retried, point) => {
        const stored = await locationsOf(principal);
        const nameClaims = (await tenantItems(table, principal.tenantId)).filter((item) => item.entity === 'TenantLocationName');
        expect({ ...point, status: retried.status, locations: stored.length, version: stored[0]?.Version, name: stored[0]?.Name, nameClaims: nameClaims.length }).toEqual({
          ...point,
          status: change ? 200 : 201,
          locations: 1,
          version: change ? 2 : 1,
          name: body.Name,
          nameClaims: 1,
        });
      },
    });
  }, 120_000);
});
