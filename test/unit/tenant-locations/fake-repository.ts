// Test support: an in-memory TenantLocationRepository for unit tests of the domain service. write() checks the
// same conditions as the DynamoDB transaction of the real repository (expected version, name claims, default
// pointer), all before applying anything, and fails the same way (NameTaken or ConcurrentModification).
import { ConcurrentModification, NameTaken } from '../../../shared/errors';
import { normaliseName } from '../../../shared/tenant-locations/keys';
import { searchTextOf, type LocationFilter, type LocationWrite, type TenantLocationRepository } from '../../../shared/tenant-locations/repository';
import type { TenantLocation } from '../../../shared/schemas/tenant-location';

const copy = <T>(value: T): T => structuredClone(value);
const pad = (id: number) => id.toString().padStart(10, '0');
const isActiveDefault = (location: TenantLocation | undefined) => Boolean(location?.IsActive && location.IsDefault);

export interface FakeRepository extends TenantLocationRepository {
  /** Every write the service asked for, in order (copies). */
  readonly writes: LocationWrite[];
  /** Stores a location as if an earlier request had saved it (claims and default pointer included). */
  seed(location: TenantLocation): void;
  /** The stored record, bypassing the service. */
  stored(tenantId: number, id: number): TenantLocation | undefined;
  defaultPointer(tenantId: number): number | undefined;
  /** Runs before the conditions of the next write are checked: lets a test play a concurrent writer. */
  beforeNextWrite(action: () => void): void;
}

export const createFakeRepository = (): FakeRepository => {
  const locations = new Map<string, TenantLocation>();
  const claims = new Map<string, number>();
  const pointers = new Map<number, number>();
  const counters = new Map<number, number>();
  const writes: LocationWrite[] = [];
  const interferences: (() => void)[] = [];
  const locationKey = (tenantId: number, id: number) => `${tenantId}#${id}`;
  const claimKey = (tenantId: number, nameKey: string) => `${tenantId}#${nameKey}`;
  const ofTenant = (tenantId: number) =>
    [...locations.values()].filter((location) => location.TenantID === tenantId).sort((a, b) => a.ID - b.ID);
  const activeByName = (tenantId: number) =>
    ofTenant(tenantId)
      .filter((location) => location.IsActive)
      .map((location) => ({ location, sortKey: `${normaliseName(location.Name)}#${pad(location.ID)}` }))
      .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0))
      .map(({ location }) => location);

  const repository: FakeRepository = {
    writes,

    seed(location) {
      locations.set(locationKey(location.TenantID, location.ID), copy(location));
      if (location.IsActive) claims.set(claimKey(location.TenantID, normaliseName(location.Name)), location.ID);
      if (isActiveDefault(location)) pointers.set(location.TenantID, location.ID);
      counters.set(location.TenantID, Math.max(counters.get(location.TenantID) ?? 0, location.ID));
    },

    stored: (tenantId, id) => copy(locations.get(locationKey(tenantId, id))),

    defaultPointer: (tenantId) => pointers.get(tenantId),

    beforeNextWrite(action) {
      interferences.push(action);
    },

    async get(tenantId, id) {
      return copy(locations.get(locationKey(tenantId, id)));
    },

    async nextId(tenantId) {
      const next = (counters.get(tenantId) ?? 0) + 1;
      counters.set(tenantId, next);
      return next;
    },

    async defaultLocationId(tenantId) {
      return pointers.get(tenantId);
    },

    async findActiveByName(tenantId, name) {
      const id = claims.get(claimKey(tenantId, normaliseName(name)));
      const location = id === undefined ? undefined : locations.get(locationKey(tenantId, id));
      return location?.IsActive ? copy(location) : undefined;
    },

    async findFirstActiveByNamePrefix(tenantId, prefix) {
      const wanted = normaliseName(prefix);
      return copy(activeByName(tenantId).find((location) => normaliseName(location.Name).startsWith(wanted)));
    },

    async listActiveByName(tenantId) {
      return copy(activeByName(tenantId));
    },

    async list(tenantId, filter: LocationFilter) {
      return copy(
        ofTenant(tenantId).filter(
          (location) =>
            (filter.isActive !== undefined ? location.IsActive === filter.isActive : filter.includeInactive || location.IsActive) &&
            (filter.customerId === undefined || location.CustomerID === filter.customerId) &&
            (filter.parentId === undefined || location.ParentID === filter.parentId) &&
            (!filter.search ||
              (filter.searchNameOnly ? normaliseName(location.Name) : searchTextOf(location)).includes(filter.search)),
        ),
      );
    },

    async write(request) {
      writes.push(copy(request));
      interferences.shift()?.();
      const { next, previous, previousDefaultId, actorUserId, now } = request;
      const tenantId = next.TenantID;
      const stored = locations.get(locationKey(tenantId, next.ID));

      // Conditions, in the order of the transaction's items; the first that fails decides the error.
      const failures: ('location' | 'claim-release' | 'claim-put' | 'old-default' | 'pointer')[] = [];
      if (previous ? stored?.Version !== previous.Version : stored !== undefined) failures.push('location');
      const previousClaim = previous?.IsActive ? normaliseName(previous.Name) : undefined;
      const nextClaim = next.IsActive ? normaliseName(next.Name) : undefined;
      const claimChanges = previousClaim !== nextClaim;
      if (claimChanges && previousClaim !== undefined && claims.get(claimKey(tenantId, previousClaim)) !== next.ID) failures.push('claim-release');
      if (claimChanges && nextClaim !== undefined && claims.has(claimKey(tenantId, nextClaim))) failures.push('claim-put');
      const becomesDefault = isActiveDefault(next) && !isActiveDefault(previous);
      const stopsBeingDefault = isActiveDefault(previous) && !isActiveDefault(next);
      const clearsOldDefault = becomesDefault && previousDefaultId !== undefined && previousDefaultId !== next.ID;
      if (clearsOldDefault && !locations.has(locationKey(tenantId, previousDefaultId))) failures.push('old-default');
      if (becomesDefault && pointers.get(tenantId) !== previousDefaultId) failures.push('pointer');
      if (stopsBeingDefault && pointers.get(tenantId) !== next.ID) failures.push('pointer');
      if (failures[0] === 'claim-put') throw new NameTaken();
      if (failures.length > 0) throw new ConcurrentModification();

      locations.set(locationKey(tenantId, next.ID), copy(next));
      if (claimChanges && previousClaim !== undefined) claims.delete(claimKey(tenantId, previousClaim));
      if (claimChanges && nextClaim !== undefined) claims.set(claimKey(tenantId, nextClaim), next.ID);
      if (clearsOldDefault) {
        const old = locations.get(locationKey(tenantId, previousDefaultId)) as TenantLocation;
        locations.set(locationKey(tenantId, previousDefaultId), {
          ...old,
          IsDefault: false,
          Version: old.Version + 1,
          ModifiedDateTime_utc: now,
          ModifiedByUserID: actorUserId,
        });
      }
      if (becomesDefault) pointers.set(tenantId, next.ID);
      if (stopsBeingDefault) pointers.delete(tenantId);
    },
  };
  return repository;
};
