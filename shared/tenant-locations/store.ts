// Domain port (tenant locations): what the tenant-location service needs from storage. The DynamoDB adapter is
// repository.ts (keys in keys.ts); wiring.ts plugs it in once per process, and tests may pass any other implementation.
import type { KeyClaimItem } from '#shared/data/idempotency';
import type { TenantLocation } from '#shared/schemas/tenant-location';

export interface LocationFilter {
  readonly includeInactive: boolean;
  readonly isActive?: boolean;
  readonly customerId?: number;
  readonly parentId?: number;
  /** Lower-cased text to find with `contains`. */
  readonly search?: string;
  readonly searchNameOnly?: boolean;
}

/** One link of the parent chain a save read: a location, and the parent it had then (none: the top of its hierarchy). */
export interface ParentLink {
  readonly id: number;
  readonly parentId: number | undefined;
}

export interface LocationWrite {
  readonly next: TenantLocation;
  /** The stored version this write replaces, as read (IsDefault included); absent for a create. */
  readonly previous?: TenantLocation;
  /**
   * The request asks for `next` to be the default ("make this the default"): the pointer is put whatever it named,
   * and the last such write committed wins. Otherwise a `next` that stays the default only checks that it still is.
   */
  readonly makesDefault: boolean;
  /** An Idempotency-Key's claim (shared/data/idempotency.ts), written in the same transaction. */
  readonly claim?: KeyClaimItem;
  /**
   * The new parent's chain as the save read it, the parent first: each must still exist with the parent it had
   * (HierarchyMoved otherwise), so two saves that would together make a loop never both commit.
   */
  readonly lineage?: readonly ParentLink[];
}

export interface TenantLocationStore {
  /** Refuses (413) a location whose stored form the store could not hold (Save checks it before a create takes an ID). */
  assertFits(location: TenantLocation): void;
  /** A location with IsDefault read from the default pointer at the same moment (both strongly consistent). */
  get(tenantId: number, id: number): Promise<TenantLocation | undefined>;
  /** Next ID of the tenant's sequence. */
  nextId(tenantId: number): Promise<number>;
  /** Runs a create with the next ID, given back if the create is refused with nothing written (a name taken). */
  withNextId<T>(tenantId: number, create: (id: number) => Promise<T>): Promise<T>;
  /** The ID the tenant's default pointer names, if any (strongly consistent). */
  defaultLocationId(tenantId: number): Promise<number | undefined>;
  /** The active location holding this exact (normalised) name. */
  findActiveByName(tenantId: number, name: string): Promise<TenantLocation | undefined>;
  /** The first active location, by name, whose name starts with `prefix`, other than `ignoreId`'s (GetByName's IgnoreID). */
  findFirstActiveByNamePrefix(tenantId: number, prefix: string, ignoreId?: number): Promise<TenantLocation | undefined>;
  /** The tenant's active locations ordered by normalised name. */
  listActiveByName(tenantId: number): Promise<TenantLocation[]>;
  /** The tenant's locations in ID order, filtered. */
  list(tenantId: number, filter: LocationFilter): Promise<TenantLocation[]>;
  /** Writes a location and everything its rules touch, atomically (VersionConflict, NameTaken, DefaultMoved, HierarchyMoved). */
  write(write: LocationWrite): Promise<void>;
}
