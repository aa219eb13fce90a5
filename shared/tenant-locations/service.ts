// Domain: the rules of tenant locations. Called by the functions with a validated request and the caller's
// principal; talks to storage only through its store port (store.ts). Throws named errors; never builds a response.
import type { Principal } from '#shared/auth/principal';
import { withOptimisticRetry } from '#shared/data/retry';
import { KeyAlreadyClaimed, type WriteClaim } from '#shared/data/idempotency';
import { maxSequenceValue } from '#shared/data/sequence';
import { nextVersion } from '#shared/data/versioned';
import { NotFound, StaleVersion, ValidationFailed, VersionConflict } from '#shared/errors';
import type { SearchFilter, SearchFilterMembers, TenantLocationFilter } from '#shared/schemas/search-filter';
import { tenantLocationSearchMembers, tenantLocationSortFields } from '#shared/schemas/search-members';
import { SearchFilterMembers as searchFilterSchema } from '#shared/compiled/schemas/search-filter';
import { defineSearch, searchTextOf } from '#shared/search/search';
import type { Address } from '#shared/schemas/address';
import { addressTypes, type AddressTypeName } from '#shared/schemas/address-types';
import type { TenantLocation, TenantLocationInfo, TenantLocationSearchResult } from '#shared/schemas/tenant-location';
import { limits } from '#shared/schemas/limits';
import { isBlankValue } from '#shared/data/visible-text';
import { normaliseName } from './keys';
import type { ParentLink, TenantLocationStore } from './store';

/** Fields a client writes on Save. Everything else is the server's (ID, tenancy, version, audit, row number). */
const clientFields = [
  'Description',
  'Address',
  'EmailAddress',
  'Phone',
  'UtcOffset',
  'SelectedForUser',
  'IsAddCustomerLocation',
  'IsCustomerDefault',
  'CustomerID',
  'ParentID',
] as const satisfies readonly (keyof TenantLocationInfo)[];

type Comparator = (a: TenantLocation, b: TenantLocation) => number;
const byId: Comparator = (a, b) => a.ID - b.ID;
const byText =
  (pick: (location: TenantLocation) => string | undefined): Comparator =>
  (a, b) => {
    const left = normaliseName(pick(a) ?? '');
    const right = normaliseName(pick(b) ?? '');
    return left < right ? -1 : left > right ? 1 : 0;
  };

/**
 * What search takes: any SearchFilter (the spec's one filter type; a member the search does not apply is refused,
 * whoever calls) and the members only locations have. Over HTTP the body is a TenantLocationFilter, which lists only
 * the members it applies.
 */
type LocationSearchInput = SearchFilterMembers & Pick<TenantLocationFilter, 'CustomerID' | 'IsActive'>;

/** Search: the filter members it applies and its sort fields, both as its filter schema lists them. */
const sortComparators: Readonly<Record<(typeof tenantLocationSortFields)[number], Comparator>> = {
  Name: byText((location) => location.Name),
  ID: byId,
  Description: byText((location) => location.Description),
  CreatedDateTime_utc: byText((location) => location.CreatedDateTime_utc),
  ModifiedDateTime_utc: byText((location) => location.ModifiedDateTime_utc),
};
export const tenantLocationSearch = defineSearch<TenantLocation>({
  subject: 'tenant locations',
  filterFields: [...Object.keys(searchFilterSchema.shape), 'CustomerID', 'IsActive'],
  supports: [...tenantLocationSearchMembers, 'IsActive', 'CustomerID'],
  sortFields: tenantLocationSortFields.map((name) => [name, sortComparators[name]] as const),
  tieBreak: byId,
});

/**
 * Save merges: a field absent from the body keeps its stored value (so a partial body never erases data), and an
 * explicitly empty value (`""`, or `{}` for Address) clears it. Address is replaced as a whole, never deep-merged.
 */
const mergeClientFields = (previous: TenantLocation | undefined, input: TenantLocationInfo, id: number) => {
  const merged: Record<string, unknown> = {};
  for (const field of clientFields) {
    const value = input[field] !== undefined ? input[field] : previous?.[field];
    const empty = value === '' || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
    if (value !== undefined && !empty) merged[field] = value;
  }
  if (merged.Address) merged.Address = { ...(merged.Address as Address), LocationID: id };
  return merged;
};

/** How far below the top of its hierarchy a location may be: the most parent links a save walks to find a loop. */
const maxParentDepth = limits.locationDepth;

export interface TenantLocationServiceDependencies {
  readonly repository: TenantLocationStore;
  readonly clock?: () => Date;
}

export interface SaveOutcome {
  readonly created: boolean;
  readonly location: TenantLocation;
}

export const parseAddressType = (raw: string): { name: AddressTypeName; value: number; flag: keyof Address } => {
  const trimmed = raw.trim();
  for (const [name, definition] of Object.entries(addressTypes) as [AddressTypeName, (typeof addressTypes)[AddressTypeName]][]) {
    if (name.toLowerCase() === trimmed.toLowerCase() || String(definition.value) === trimmed) {
      return { name, value: definition.value, flag: definition.flag };
    }
  }
  throw new ValidationFailed([
    { parameter: 'addressType', detail: 'must be Billing, Delivery, Service or Postal (or 1, 2, 3, 4)' },
  ]);
};

export const createTenantLocationService = ({ repository, clock = () => new Date() }: TenantLocationServiceDependencies) => {
  const now = () => clock().toISOString();

  const require = async (tenantId: number, id: number): Promise<TenantLocation> => {
    const location = await repository.get(tenantId, id);
    if (!location) throw new NotFound(`Tenant location ${id} does not exist.`);
    return location;
  };

  /**
   * A parent must be another existing location of the tenant, must not make the hierarchy a loop, and must leave the
   * location at most `maxParentDepth` levels below the top of its hierarchy (the walk that looks for a loop stops
   * there, so a deeper parent is refused rather than accepted unchecked). Returns the parent and its chain as read
   * (`lineage`, the parent first): the write commits only if each of them still has the parent it had, so two saves
   * that would together make a loop (B under C while C goes under B) cannot both commit; the one that loses reads the
   * chain again and is refused.
   */
  const checkParent = async (tenantId: number, id: number | undefined, parentId: number | undefined): Promise<{ parent?: TenantLocation; lineage: ParentLink[] }> => {
    if (!parentId) return { lineage: [] };
    const invalid = (detail: string) => new ValidationFailed([{ pointer: '/ParentID', detail }]);
    if (parentId === id) throw invalid('a location cannot be its own parent');
    const parent = await repository.get(tenantId, parentId);
    if (!parent) throw invalid('no location of this tenant has this ID');
    const lineage: ParentLink[] = [{ id: parent.ID, parentId: parent.ParentID }];
    for (let ancestor: TenantLocation | undefined = parent; ancestor?.ParentID; ) {
      if (ancestor.ParentID === id) throw invalid('this parent would make the hierarchy a loop');
      if (lineage.length >= maxParentDepth) throw invalid(`this parent would put the location more than ${maxParentDepth} levels below the top of its hierarchy`);
      ancestor = await repository.get(tenantId, ancestor.ParentID);
      // A parent that no longer exists ends the chain (its children keep the ID they were saved with).
      if (ancestor) lineage.push({ id: ancestor.ID, parentId: ancestor.ParentID });
    }
    return { parent, lineage };
  };

  /**
   * POST /TenantLocation/Save. With an Idempotency-Key (`claim`), the key's claim is read with the create's ID and
   * written in the location's own transaction (shared/data/idempotency.ts); a replay gives the ID back.
   */
  const save = async (principal: Principal, input: TenantLocationInfo, claim?: WriteClaim<SaveOutcome>): Promise<SaveOutcome> => {
    const name = input.Name?.trim();
    if (!name || isBlankValue(name)) throw new ValidationFailed([{ pointer: '/Name', detail: 'is required' }]);
    const tenantId = principal.tenantId;
    const isUpdate = Boolean(input.ID);
    // Read before an ID is taken (a refused parent spends none), and again on every retry of the write.
    let checked: Awaited<ReturnType<typeof checkParent>> | undefined = await checkParent(tenantId, input.ID, input.ParentID);
    const compose = (id: number, previous: TenantLocation | undefined, parent: TenantLocation | undefined, timestamp: string): TenantLocation => {
      const isActive = input.IsActive ?? previous?.IsActive ?? true;
      // Only an active location can be the default: asked for an inactive one, the save is refused rather than
      // answered 200 with IsDefault false (the request silently not honoured).
      if (input.IsDefault === true && !isActive) {
        throw new ValidationFailed([{ pointer: '/IsDefault', detail: 'cannot be true for an inactive (deleted) location: send IsActive true with it to restore it as the default' }]);
      }
      return {
        ...mergeClientFields(previous, input, id),
        // A body without ParentID keeps the stored parent (merged above), and so its name.
        ...(parent ? { ParentName: parent.Name } : input.ParentID === undefined && previous?.ParentName ? { ParentName: previous.ParentName } : {}),
        ID: id,
        TenantLocationID: id,
        Name: name,
        TenantID: tenantId,
        WebsiteID: input.WebsiteID ?? principal.websiteId,
        UserID: input.UserID ?? principal.userId,
        IsActive: isActive,
        IsDefault: isActive && (input.IsDefault ?? previous?.IsDefault ?? false),
        Version: nextVersion(previous),
        CreatedDateTime_utc: previous?.CreatedDateTime_utc ?? timestamp,
        CreatedByUserID: previous?.CreatedByUserID ?? principal.userId,
        ModifiedDateTime_utc: timestamp,
        ModifiedByUserID: principal.userId,
      };
    };
    // With the largest ID (the stored item can only be smaller): a location too large to store is refused (413)
    // before it takes an ID.
    if (!isUpdate) repository.assertFits(compose(maxSequenceValue, undefined, checked.parent, now()));
    // Lost races are retried under the one optimistic-retry policy (shared/data/retry.ts), from the read.
    const saveAs = (id: number) => withOptimisticRetry(async () => {
      const [previous, prior, { parent, lineage }] = await Promise.all([
        isUpdate ? require(tenantId, id) : undefined,
        claim?.read(),
        checked ?? checkParent(tenantId, input.ID, input.ParentID),
      ]);
      checked = undefined;
      if (prior) throw new KeyAlreadyClaimed(prior);
      if (previous && input.Version !== undefined && input.Version !== previous.Version) throw new StaleVersion();
      const next = compose(id, previous, parent, now());
      try {
        // "Make this the default" (IsDefault true in the body) conflicts with nobody: the last committed wins.
        const makesDefault = next.IsDefault && input.IsDefault === true;
        // A save that sends back the parent it has adds no link, so its chain is not held in the transaction: its
        // ConditionChecks made saves of one parent's children cancel each other (TransactionConflict), a 409 between
        // writes that did not conflict (a bad-day review: clients send whole records back).
        const keepsParent = previous?.ParentID !== undefined && previous.ParentID === input.ParentID;
        await repository.write({ next, previous, makesDefault, lineage: keepsParent ? [] : lineage, ...(claim ? { claim: claim.item({ created: !isUpdate, location: next }) } : {}) });
      } catch (error) {
        // The client named the version it edited: another writer changed the record first, so its edit is stale.
        if (error instanceof VersionConflict && input.Version !== undefined) throw new StaleVersion();
        throw error;
      }
      return { created: !isUpdate, location: next };
    });
    // A create's ID is taken once the input is known good, and given back if the write is refused (a name taken).
    return isUpdate ? saveAs(input.ID as number) : repository.withNextId(tenantId, saveAs);
  };

  /**
   * Soft delete. With `version` (the Version the client read), a compare-and-set: an active location at another
   * Version is StaleVersion (restored or edited since: a retried delete must not delete it again); a deleted one is
   * answered as it is, whatever Version was named (the delete's effect holds).
   */
  const remove = async (principal: Principal, id: number, version?: number): Promise<TenantLocation> => {
    return withOptimisticRetry(async () => {
      const previous = await require(principal.tenantId, id);
      if (!previous.IsActive) return previous;
      if (version !== undefined && version !== previous.Version) throw new StaleVersion(undefined, { parameter: 'Version', detail: 'stale' });
      const timestamp = now();
      const next: TenantLocation = {
        ...previous,
        IsActive: false,
        IsDefault: false,
        Version: nextVersion(previous),
        ModifiedDateTime_utc: timestamp,
        ModifiedByUserID: principal.userId,
      };
      await repository.write({ next, previous, makesDefault: false });
      return next;
    });
  };


  const search = async (principal: Principal, filter: LocationSearchInput): Promise<TenantLocationSearchResult> => {
    const plan = tenantLocationSearch.plan(filter);
    const text = searchTextOf(filter);
    const candidates = await repository.list(principal.tenantId, {
      includeInactive: filter.IncludeDeleted ?? false,
      ...(filter.IsActive !== undefined ? { isActive: filter.IsActive } : {}),
      ...(filter.CustomerID ? { customerId: filter.CustomerID } : {}),
      ...(filter.ParentID ? { parentId: filter.ParentID } : {}),
      ...(text ? { search: text, searchNameOnly: filter.SearchNameOnly ?? false } : {}),
    });
    const ids = filter.IDs && filter.IDs.length > 0 ? new Set(filter.IDs) : undefined;
    const matching = candidates.filter(
      (location) =>
        (!ids || ids.has(location.ID)) &&
        (!filter.ID || location.ID === filter.ID) &&
        (!filter.IgnoreID || location.ID !== filter.IgnoreID) &&
        (!filter.IsExactMatch || !text || normaliseName(location.Name) === text),
    );
    return tenantLocationSearch.page(plan, matching);
  };

  return {
    get: (principal: Principal, id: number) => require(principal.tenantId, id),

    getAll: (principal: Principal) => repository.listActiveByName(principal.tenantId),

    async getByName(principal: Principal, filter: SearchFilter): Promise<TenantLocation> {
      const text = searchTextOf(filter);
      if (!text) throw new ValidationFailed([{ pointer: '/SearchString', detail: 'SearchString or Search is required' }]);
      const ignored = filter.IgnoreID;
      // A name comes first among the names it begins, so the location whose whole name is the text (found by its
      // name's claim, strongly consistent) is the answer by prefix too, whatever the index shows: the index lags, and
      // a location renamed a moment ago was not found by its new name. The index is read at the same time, for the
      // answer when no location has the whole name.
      const [exact, first] = await Promise.all([
        repository.findActiveByName(principal.tenantId, text),
        filter.IsExactMatch ? undefined : repository.findFirstActiveByNamePrefix(principal.tenantId, text, ignored),
      ]);
      const location = exact && exact.ID !== ignored ? exact : first;
      if (!location) throw new NotFound('No active tenant location has this name.');
      return location;
    },

    async getDefaultAddress(principal: Principal, id: number, addressType: string): Promise<Address> {
      const type = parseAddressType(addressType);
      const location = await require(principal.tenantId, id);
      const address = location.Address;
      if (!address || !(address[type.flag] === true || address.AddressType === type.value)) {
        throw new NotFound(`Tenant location ${id} has no ${type.name} address.`);
      }
      return address;
    },

    save,
    delete: remove,
    search,
  };
};

export type TenantLocationService = ReturnType<typeof createTenantLocationService>;
