// Test support: the tenant-location store port (shared/tenant-locations/store.ts `TenantLocationStore`) in memory, for
// fast unit tests of the service's rules. It passes the same contract suite as the DynamoDB repository
// (./tenant-location-store-contract.ts, run in the unit tier against this store and in the integration tier against DynamoDB Local), and keeps the repository's conditions
// as one transaction would: an Idempotency-Key's claim, the location's Version, the name claim, the default pointer
// and the new parent's chain are all checked before anything is written, in the repository's order, with its errors
// (KeyAlreadyClaimed, VersionConflict, NameTaken, DefaultMoved, HierarchyMoved); a refused write changes nothing.
// Orders are the table's: by ID, and by the active-name index's sort key compared as DynamoDB compares strings (UTF-8
// bytes).
import { maxSequenceValue, ValueInUse, withTakenValue } from '#shared/data/sequence';
import { ConcurrentModification, NameTaken, SequenceExhausted, VersionConflict } from '#shared/errors';
import type { TenantLocation } from '#shared/schemas/tenant-location';
import { activeIndexKeys, activeLocationsByName, normaliseName } from '#shared/tenant-locations/keys';
import { assertLocationFits, DefaultMoved, HierarchyMoved, searchTextOf } from '#shared/tenant-locations/repository';
import type { LocationWrite, TenantLocationStore } from '#shared/tenant-locations/store';
import { memoryKeyClaims } from '#test/stores/key-claims';

/** A stored copy as DynamoDB keeps it: absent members dropped, IsDefault never stored (the pointer decides it). */
const stored = (location: TenantLocation): TenantLocation => {
  const { IsDefault: _derived, ...own } = location;
  return JSON.parse(JSON.stringify(own)) as TenantLocation;
};

const isActiveDefault = (location: TenantLocation | undefined) => Boolean(location?.IsActive && location.IsDefault);

/** The active-name index's sort key, and DynamoDB's string order (UTF-8 bytes, not UTF-16 code units). */
const indexSortKey = (location: TenantLocation) => String(activeIndexKeys(location.TenantID, normaliseName(location.Name), location.ID)[activeLocationsByName.sortKey]);
const byteOrder = (left: string, right: string) => Buffer.compare(Buffer.from(left, 'utf8'), Buffer.from(right, 'utf8'));

export const createMemoryTenantLocationStore = (): TenantLocationStore & { readonly claimedKeys: () => string[] } => {
  const locations = new Map<number, Map<number, TenantLocation>>();
  const names = new Map<string, number>();
  const pointers = new Map<number, number>();
  const sequences = new Map<number, number>();
  const claims = memoryKeyClaims();

  const tenantLocations = (tenantId: number) => {
    let found = locations.get(tenantId);
    if (!found) locations.set(tenantId, (found = new Map()));
    return found;
  };
  const nameKey = (tenantId: number, name: string) => `${tenantId}\u0000${normaliseName(name)}`;
  const read = (location: TenantLocation): TenantLocation => ({
    ...structuredClone(location),
    IsDefault: location.IsActive === true && location.ID === pointers.get(location.TenantID),
  });
  const activeByName = (tenantId: number) =>
    [...tenantLocations(tenantId).values()].filter((location) => location.IsActive).sort((left, right) => byteOrder(indexSortKey(left), indexSortKey(right)));
  const giveBack = (tenantId: number, value: number) => {
    if (sequences.get(tenantId) !== value) return;
    if (value === 1) sequences.delete(tenantId);
    else sequences.set(tenantId, value - 1);
  };

  const store = {
    assertFits: assertLocationFits,

    get: async (tenantId: number, id: number) => {
      const location = tenantLocations(tenantId).get(id);
      return location ? read(location) : undefined;
    },

    nextId: async (tenantId: number) => {
      const value = (sequences.get(tenantId) ?? 0) + 1;
      if (value > maxSequenceValue) throw new SequenceExhausted('location ID');
      sequences.set(tenantId, value);
      return value;
    },

    withNextId: async <T>(tenantId: number, create: (id: number) => Promise<T>): Promise<T> =>
      withTakenValue(await store.nextId(tenantId), { take: () => store.nextId(tenantId), giveBack: (id) => giveBack(tenantId, id) }, create),

    defaultLocationId: async (tenantId: number) => pointers.get(tenantId),

    findActiveByName: async (tenantId: number, name: string) => {
      const owner = names.get(nameKey(tenantId, name));
      const location = owner === undefined ? undefined : tenantLocations(tenantId).get(owner);
      return location?.IsActive ? read(location) : undefined;
    },

    findFirstActiveByNamePrefix: async (tenantId: number, prefix: string, ignoreId?: number) => {
      const wanted = normaliseName(prefix);
      const location = activeByName(tenantId).find((candidate) => candidate.ID !== ignoreId && indexSortKey(candidate).startsWith(wanted));
      return location ? read(location) : undefined;
    },

    listActiveByName: async (tenantId: number) => activeByName(tenantId).map(read),

    list: async (tenantId: number, filter: Parameters<TenantLocationStore['list']>[1]) =>
      [...tenantLocations(tenantId).values()]
        .filter((location) => (filter.isActive !== undefined ? location.IsActive === filter.isActive : filter.includeInactive || location.IsActive === true))
        .filter((location) => filter.customerId === undefined || location.CustomerID === filter.customerId)
        .filter((location) => filter.parentId === undefined || location.ParentID === filter.parentId)
        .filter((location) => !filter.search || (filter.searchNameOnly ? normaliseName(location.Name) : searchTextOf(location)).includes(filter.search))
        .sort((left, right) => left.ID - right.ID)
        .map(read),

    async write({ next, previous, makesDefault, claim, lineage = [] }: LocationWrite): Promise<void> {
      const tenantId = next.TenantID;
      assertLocationFits(next);
      // Every condition first, in the repository's order (the key's claim, the location, the names, the pointer, the chain).
      const claimKey = claim ? claims.check(claim) : undefined;
      const current = tenantLocations(tenantId).get(next.ID);
      if (previous?.Version === undefined && current !== undefined) throw new ValueInUse('location ID', next.ID);
      if (previous?.Version !== undefined && current?.Version !== previous.Version) throw new VersionConflict();
      const before = previous?.IsActive ? normaliseName(previous.Name) : undefined;
      const after = next.IsActive ? normaliseName(next.Name) : undefined;
      const namesChange = before !== after;
      if (namesChange && before !== undefined && names.get(nameKey(tenantId, before)) !== next.ID) throw new ConcurrentModification();
      if (namesChange && after !== undefined && names.has(nameKey(tenantId, after))) throw new NameTaken();
      const pointer = pointers.get(tenantId);
      const pointerAction = isActiveDefault(next) && makesDefault ? 'put' : isActiveDefault(next) ? 'check' : isActiveDefault(previous) ? 'delete' : undefined;
      if ((pointerAction === 'check' || pointerAction === 'delete') && pointer !== next.ID) throw new DefaultMoved();
      for (const link of lineage) {
        const ancestor = tenantLocations(tenantId).get(link.id);
        if (!ancestor || ancestor.ParentID !== link.parentId) throw new HierarchyMoved();
      }

      // Then every write, all at once.
      claimKey?.();
      tenantLocations(tenantId).set(next.ID, stored(next));
      if (namesChange && before !== undefined) names.delete(nameKey(tenantId, before));
      if (namesChange && after !== undefined) names.set(nameKey(tenantId, after), next.ID);
      if (pointerAction === 'put') pointers.set(tenantId, next.ID);
      if (pointerAction === 'delete') pointers.delete(tenantId);
    },

    claimedKeys: claims.keys,
  };
  return store;
};
