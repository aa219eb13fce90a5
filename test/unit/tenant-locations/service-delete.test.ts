// Unit tests of the tenant-location service (shared/tenant-locations/service.ts): soft Delete, over the in-memory store
// (test/stores/tenant-locations/memory-tenant-location-store.ts, held to the DynamoDB repository by the store's
// contract suite), each test in tenants of its own.
import { describe, expect, it } from '@jest/globals';
import { refusal, serviceOnStore } from './support';

describe('tenant-location service: Delete', () => {
  it('marks the location inactive, bumps its Version and records who deleted it, keeping the record', async () => {
    // Prepare
    const { service, repository, principal, storedLocation, seed, advance } = serviceOnStore();
    await seed(storedLocation(1, { Version: 2, Description: 'Kept' }));
    const later = advance(10);

    // Act
    const deleted = await service.delete(principal, 1);

    // Assess
    const expected = storedLocation(1, {
      Version: 3,
      Description: 'Kept',
      IsActive: false,
      ModifiedDateTime_utc: later,
      ModifiedByUserID: 3,
    });
    expect({ deleted, stored: await repository.get(principal.tenantId, 1) }).toStrictEqual({ deleted: expected, stored: expected });
  });

  it('is idempotent: a second delete returns the same record, unchanged, and writes nothing', async () => {
    const { service, principal, storedLocation, seed, writes, advance } = serviceOnStore();
    await seed(storedLocation(1));
    const first = await service.delete(principal, 1);
    advance(60);

    const second = await service.delete(principal, 1);

    expect({ second, writes: writes.length }).toStrictEqual({ second: first, writes: 1 });
  });

  it('clears IsDefault and the default pointer when deleting the default location', async () => {
    const { service, repository, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1, { IsDefault: true }));

    const deleted = await service.delete(principal, 1);

    expect({ isDefault: deleted.IsDefault, pointer: await repository.defaultLocationId(principal.tenantId) }).toEqual({ isDefault: false, pointer: undefined });
  });

  it('frees the name for a new location', async () => {
    const { service, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1, { Name: 'Main' }));

    await service.delete(principal, 1);
    const { location } = await service.save(principal, { Name: 'main' });

    expect([location.ID, location.Name]).toEqual([2, 'main']);
  });

  it('answers 404 for an unknown location, and for another tenant’s', async () => {
    const { service, repository, principal, otherTenant, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(3, { TenantID: otherTenant.tenantId }));

    const outcomes = [await refusal(service.delete(principal, 99)), await refusal(service.delete(principal, 3))];

    expect({ outcomes, theirs: (await repository.get(otherTenant.tenantId, 3))?.IsActive }).toEqual({
      outcomes: [
        { status: 404, name: 'NotFound', detail: 'Tenant location 99 does not exist.' },
        { status: 404, name: 'NotFound', detail: 'Tenant location 3 does not exist.' },
      ],
      theirs: true,
    });
  });

  it('retries when another writer changed the location meanwhile', async () => {
    const { service, principal, storedLocation, seed, writes, beforeNextWrite } = serviceOnStore();
    await seed(storedLocation(1, { Version: 1 }));
    beforeNextWrite(() => seed(storedLocation(1, { Version: 2, Phone: 'theirs' })));

    const deleted = await service.delete(principal, 1);

    expect([deleted.IsActive, deleted.Version, deleted.Phone, writes.length]).toEqual([false, 3, 'theirs', 2]);
  });

  // Bad-day review: a delete retried (its answer lost) after another client restored the location deleted it again.
  // With the Version it read, a delete is a compare-and-set.
  it('with the Version read: deletes at that Version, refuses (409, at the parameter) an active location at another, answers a deleted one as it is', async () => {
    const { service, repository, principal, storedLocation, seed, writes } = serviceOnStore();
    await seed(storedLocation(1, { Version: 4 }));
    await seed(storedLocation(2, { Version: 2 }));

    const stale = await refusal(service.delete(principal, 1, 3));
    const deleted = await service.delete(principal, 2, 2);
    const again = await service.delete(principal, 2, 2);
    const written = writes.length;

    expect({ stale, first: (await repository.get(principal.tenantId, 1))?.IsActive, deleted: [deleted.IsActive, deleted.Version], again, written }).toEqual({
      stale: { status: 409, name: 'StaleVersion', detail: 'The record was changed by someone else; fetch it again and retry.', errors: [{ parameter: 'Version', detail: 'stale' }] },
      first: true,
      deleted: [false, 3],
      again: deleted,
      written: 1,
    });
  });

  it('with the Version read: a restore between the read and the write is a 409, the location left active', async () => {
    const { service, repository, principal, storedLocation, seed, beforeNextWrite } = serviceOnStore();
    await seed(storedLocation(1, { Version: 1 }));
    beforeNextWrite(() => seed(storedLocation(1, { Version: 2, Phone: 'restored' })));

    const outcome = await refusal(service.delete(principal, 1, 1));

    expect({ outcome: outcome.name, stored: await repository.get(principal.tenantId, 1) }).toMatchObject({ outcome: 'StaleVersion', stored: { IsActive: true, Version: 2, Phone: 'restored' } });
  });
});
