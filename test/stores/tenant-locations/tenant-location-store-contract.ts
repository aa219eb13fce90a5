// The contract of the tenant-location store port (shared/tenant-locations/store.ts `TenantLocationStore`): what the
// service relies on, run in the unit tier against the in-memory store (test/unit/tenant-locations/
// tenant-location-store-contract.test.ts) and in the integration tier against the DynamoDB repository on DynamoDB
// Local (test/integration/tenant-locations/tenant-location-store-contract.test.ts). Neither can drift from the other (an in-memory fake once sorted GetAll with `#` where the
// index uses U+0001). Conditions are part of the contract: versions, names, the default pointer, an
// Idempotency-Key's claim, and a refused write changing nothing (one transaction, all or nothing).
import { describe, expect, it } from '@jest/globals';
import type { TenantLocation } from '#shared/schemas/tenant-location';
import type { TenantLocationStore } from '#shared/tenant-locations/store';
import { keyClaim } from '#test/stores/key-claims';
import { freshTenantId } from '#test/support/tenant-items';
import { locationOf, refusal, seedLocation } from './tenant-location-fixtures';

/** The suite, over the store `open` gives (once per suite) and the table name its key claims carry. */
export const describeTenantLocationStoreContract = (implementation: string, open: () => { readonly store: TenantLocationStore; readonly tableName: string }) =>
  describe(`TenantLocationStore contract: ${implementation}`, () => {
    const { store: repository, tableName } = open();
    /** A fresh tenant, its location builder, and a seeder of its stored locations. */
    const tenant = () => {
      const tenantId = freshTenantId();
      const location = locationOf(tenantId);
      return { tenantId, location, seed: async (...locations: TenantLocation[]) => { for (const stored of locations) await seedLocation(repository, stored); } };
    };
    const idsOf = (locations: readonly TenantLocation[]) => locations.map((location) => location.ID);

    it('gets a stored location with its own fields only, and nothing for an unknown id or another tenant', async () => {
      const { tenantId, location, seed } = tenant();
      const other = tenant();
      await seed(location(1, { Address: { City: 'Nelson', LocationID: 1 }, CustomerID: 5 }));
      await other.seed(other.location(2));

      expect([await repository.get(tenantId, 1), await repository.get(tenantId, 2), await repository.get(other.tenantId, 1)]).toStrictEqual([
        location(1, { Address: { City: 'Nelson', LocationID: 1 }, CustomerID: 5 }),
        undefined,
        undefined,
      ]);
    });

    it('numbers IDs per tenant from 1', async () => {
      const [first, second] = [tenant(), tenant()];

      expect([await repository.nextId(first.tenantId), await repository.nextId(first.tenantId), await repository.nextId(second.tenantId)]).toEqual([1, 2, 1]);
    });

    it('lists active locations by normalised name: a name before the longer names it begins, then by id', async () => {
      const { tenantId, location, seed } = tenant();
      const names = ['main!', 'Main street', 'main', 'Main-2', 'MAIN', 'Mainland', 'main"', 'a', 'Zed'];
      // Two locations may not share an active name, so the second "main" is inactive.
      await seed(...names.map((name, index) => location(index + 1, { Name: name, IsActive: name !== 'MAIN' })));

      expect((await repository.listActiveByName(tenantId)).map((found) => found.Name)).toEqual([
        'a',
        'main',
        'Main street',
        'main!',
        'main"',
        'Main-2',
        'Mainland',
        'Zed',
      ]);
    });

    it('finds an active location by exact name (any spelling) and the first by name prefix; never an inactive one', async () => {
      const { tenantId, location, seed } = tenant();
      await seed(location(1, { Name: 'Main Office' }), location(2, { Name: 'Main Depot' }), location(3, { Name: 'Depot', IsActive: false }));

      expect({
        exact: (await repository.findActiveByName(tenantId, '  MAIN office '))?.ID,
        inactive: await repository.findActiveByName(tenantId, 'Depot'),
        prefix: (await repository.findFirstActiveByNamePrefix(tenantId, 'main'))?.ID,
        noPrefix: await repository.findFirstActiveByNamePrefix(tenantId, 'Dep'),
        prefixIgnoring: (await repository.findFirstActiveByNamePrefix(tenantId, 'main', 2))?.ID,
        prefixIgnoringOther: (await repository.findFirstActiveByNamePrefix(tenantId, 'main', 1))?.ID,
        onlyOneIgnored: await repository.findFirstActiveByNamePrefix(tenantId, 'main o', 1),
      }).toEqual({ exact: 1, inactive: undefined, prefix: 2, noPrefix: undefined, prefixIgnoring: 1, prefixIgnoringOther: 2, onlyOneIgnored: undefined });
    });

    it('lists the tenant’s locations in id order, filtered by activity, customer, parent and text', async () => {
      const { tenantId, location, seed } = tenant();
      const other = tenant();
      await seed(
        location(1, { Name: 'Warehouse', Description: 'Bulk storage', CustomerID: 5 }),
        location(2, { Name: 'Shop', ParentID: 1 }),
        location(3, { Name: 'Depot', IsActive: false, CustomerID: 5 }),
        location(4, { Name: 'Kiosk', Address: { City: 'Nelson', LocationID: 4 } }),
      );
      await other.seed(other.location(1, { Name: 'Warehouse' }));
      const list = async (filter: Parameters<TenantLocationStore['list']>[1]) => idsOf(await repository.list(tenantId, filter));

      expect({
        active: await list({ includeInactive: false }),
        all: await list({ includeInactive: true }),
        inactiveOnly: await list({ includeInactive: true, isActive: false }),
        customer: await list({ includeInactive: true, customerId: 5 }),
        parent: await list({ includeInactive: false, parentId: 1 }),
        text: await list({ includeInactive: false, search: 'nelson' }),
        description: await list({ includeInactive: false, search: 'bulk' }),
        nameOnly: await list({ includeInactive: false, search: 'nelson', searchNameOnly: true }),
      }).toEqual({
        active: [1, 2, 4],
        all: [1, 2, 3, 4],
        inactiveOnly: [3],
        customer: [1, 3],
        parent: [2],
        text: [4],
        description: [1],
        nameOnly: [],
      });
    });

    it('every read derives IsDefault from the one default: Get, GetAll, list, by name and by prefix agree', async () => {
      const { tenantId, location, seed } = tenant();
      await seed(location(1, { Name: 'North', IsDefault: true }), location(2, { Name: 'South' }));
      await seed(location(2, { Name: 'South', IsDefault: true, Version: 2 }));

      const defaults = {
        get: [(await repository.get(tenantId, 1))?.IsDefault, (await repository.get(tenantId, 2))?.IsDefault],
        all: (await repository.listActiveByName(tenantId)).map((found) => found.IsDefault),
        list: (await repository.list(tenantId, { includeInactive: true })).map((found) => found.IsDefault),
        byName: [(await repository.findActiveByName(tenantId, 'north'))?.IsDefault, (await repository.findActiveByName(tenantId, 'south'))?.IsDefault],
        byPrefix: [(await repository.findFirstActiveByNamePrefix(tenantId, 'n'))?.IsDefault, (await repository.findFirstActiveByNamePrefix(tenantId, 's'))?.IsDefault],
        pointer: await repository.defaultLocationId(tenantId),
      };

      expect(defaults).toEqual({ get: [false, true], all: [false, true], list: [false, true], byName: [false, true], byPrefix: [false, true], pointer: 2 });
    });

    describe('write', () => {
      it('refuses a name another active location holds (NameTaken) and a stale version (VersionConflict), writing nothing', async () => {
        const { tenantId, location, seed } = tenant();
        await seed(location(1, { Name: 'Main' }), location(2, { Name: 'Depot' }));
        const stored = (await repository.get(tenantId, 2)) as TenantLocation;

        const outcomes = [
          await refusal(repository.write({ next: location(3, { Name: ' MAIN ' }), makesDefault: false })),
          await refusal(repository.write({ next: location(2, { Name: 'Renamed', Version: 3 }), previous: { ...stored, Version: 5 }, makesDefault: false })),
        ];

        expect({ outcomes: outcomes.map((outcome) => outcome.name), ids: idsOf(await repository.list(tenantId, { includeInactive: true })), depot: (await repository.get(tenantId, 2))?.Name }).toEqual({
          outcomes: ['NameTaken', 'VersionConflict'],
          ids: [1, 2],
          depot: 'Depot',
        });
      });

      it('releases the name of a renamed or deactivated location', async () => {
        const { tenantId, location, seed } = tenant();
        await seed(location(1, { Name: 'Old' }), location(2, { Name: 'Closing' }));

        await seed(location(1, { Name: 'New', Version: 2 }), location(2, { Name: 'Closing', IsActive: false, Version: 2 }));
        await seed(location(3, { Name: 'old' }), location(4, { Name: 'closing' }));

        expect((await repository.listActiveByName(tenantId)).map((found) => [found.ID, found.Name])).toEqual([
          [4, 'closing'],
          [1, 'New'],
          [3, 'old'],
        ]);
      });

      it('"make this the default" puts the pointer whatever it named; keeping or dropping the default needs the pointer unchanged (DefaultMoved)', async () => {
        const { tenantId, location, seed } = tenant();
        await seed(location(1, { IsDefault: true }), location(2));
        const first = (await repository.get(tenantId, 1)) as TenantLocation;

        // Location 2 is made the default while a writer of location 1 still believes 1 is the default.
        await repository.write({ next: location(2, { IsDefault: true, Version: 2 }), previous: location(2), makesDefault: true });
        const keeps = await refusal(repository.write({ next: { ...first, Description: 'x', Version: 2 }, previous: first, makesDefault: false }));
        const drops = await refusal(repository.write({ next: { ...first, IsDefault: false, Version: 2 }, previous: first, makesDefault: false }));

        expect({ keeps: keeps.name, drops: drops.name, pointer: await repository.defaultLocationId(tenantId), first: await repository.get(tenantId, 1) }).toEqual({
          keeps: 'DefaultMoved',
          drops: 'DefaultMoved',
          pointer: 2,
          first: { ...first, IsDefault: false },
        });
      });

      it('takes an Idempotency-Key with the write: a key taken already is KeyAlreadyClaimed, and that write changes nothing', async () => {
        const { tenantId, location } = tenant();
        await repository.write({ next: location(1, { Name: 'First' }), makesDefault: false, claim: keyClaim(tableName, tenantId, 'tenantLocationSave', 'k1') });

        const again = await repository.write({ next: location(2, { Name: 'Second', IsDefault: true }), makesDefault: true, claim: keyClaim(tableName, tenantId, 'tenantLocationSave', 'k1') }).then(
          () => 'written',
          (error: Error) => error.name,
        );

        expect({ again, ids: idsOf(await repository.list(tenantId, { includeInactive: true })), second: await repository.findActiveByName(tenantId, 'Second'), pointer: await repository.defaultLocationId(tenantId) }).toEqual({
          again: 'KeyAlreadyClaimed',
          ids: [1],
          second: undefined,
          pointer: undefined,
        });
      });

      it('is all or nothing: a write refused by its last condition leaves the location, its names and the pointer as they were', async () => {
        const { tenantId, location, seed } = tenant();
        await seed(location(1, { Name: 'North', IsDefault: true }), location(2, { Name: 'South' }));
        const north = (await repository.get(tenantId, 1)) as TenantLocation;
        await repository.write({ next: location(2, { Name: 'South', IsDefault: true, Version: 2 }), previous: await repository.get(tenantId, 2), makesDefault: true });

        // Renames North and drops the default it no longer holds: the version and the name pass, the pointer fails.
        const outcome = await refusal(repository.write({ next: { ...north, Name: 'Renamed', IsDefault: false, Version: 2 }, previous: north, makesDefault: false }));

        expect({
          outcome: outcome.name,
          north: await repository.get(tenantId, 1),
          byOldName: (await repository.findActiveByName(tenantId, 'north'))?.ID,
          byNewName: await repository.findActiveByName(tenantId, 'renamed'),
          pointer: await repository.defaultLocationId(tenantId),
        }).toEqual({ outcome: 'DefaultMoved', north: { ...north, IsDefault: false }, byOldName: 1, byNewName: undefined, pointer: 2 });
      });

      it("writes under a parent chain only while each of its locations has the parent it was read with (HierarchyMoved), writing nothing otherwise", async () => {
        const { tenantId, location, seed } = tenant();
        // 1 <- 2, and 3 on its own.
        await seed(location(1), location(2, { ParentID: 1 }), location(3));
        const lineage = [
          { id: 2, parentId: 1 },
          { id: 1, parentId: undefined },
        ];

        // Written: the chain is as read.
        await repository.write({ next: location(4, { ParentID: 2 }), makesDefault: false, lineage });
        // Then 1 goes under 3: a write that read 1 at the top of the chain, and one that read 2 under 3, are refused.
        await repository.write({ next: location(1, { ParentID: 3, Version: 2 }), previous: await repository.get(tenantId, 1), makesDefault: false });
        const topMoved = await refusal(repository.write({ next: location(5, { ParentID: 2 }), makesDefault: false, lineage }));
        const parentMoved = await refusal(repository.write({ next: location(6, { ParentID: 2 }), makesDefault: false, lineage: [{ id: 2, parentId: 3 }] }));
        // And one naming a location that does not exist.
        const gone = await refusal(repository.write({ next: location(7, { ParentID: 9 }), makesDefault: false, lineage: [{ id: 9, parentId: undefined }] }));

        expect({
          written: (await repository.get(tenantId, 4))?.ParentID,
          refused: [topMoved.name, parentMoved.name, gone.name],
          nothingWritten: [await repository.get(tenantId, 5), await repository.get(tenantId, 6), await repository.get(tenantId, 7)],
        }).toEqual({ written: 2, refused: ['HierarchyMoved', 'HierarchyMoved', 'HierarchyMoved'], nothingWritten: [undefined, undefined, undefined] });
      });
    });

    describe('IDs', () => {
      it('gives back the ID of a create refused with nothing written, and keeps a gap when a later ID was taken meanwhile', async () => {
        const { tenantId, location, seed } = tenant();
        await seed(location(1, { Name: 'Main' }));

        const refused = await refusal(repository.withNextId(tenantId, (id) => repository.write({ next: location(id, { Name: 'main' }), makesDefault: false })));
        const afterRefusal = await repository.withNextId(tenantId, async (id) => id);
        const gap = await refusal(
          repository.withNextId(tenantId, async (id) => {
            await repository.nextId(tenantId);
            return repository.write({ next: location(id, { Name: 'MAIN' }), makesDefault: false });
          }),
        );

        expect({ refused: refused.name, afterRefusal, gap: gap.name, next: await repository.nextId(tenantId) }).toEqual({ refused: 'NameTaken', afterRefusal: 2, gap: 'NameTaken', next: 5 });
      });
    });
  });
