// Domain: the rules of tenant locations. Called by the functions with a validated request and the caller's
// principal; talks to storage only through the repository. Throws named errors; never builds a response.
import type { Principal } from '../auth/principal';
import { ConcurrentModification, NotFound, StaleVersion, ValidationFailed } from '../errors';
import type { SearchFilter, TenantLocationFilter } from '../schemas/search-filter';
import { defaultSearchResults } from '../schemas/limits';
import type { Address } from '../schemas/address';
import { addressTypes, type AddressTypeName } from '../schemas/address-types';
import type { TenantLocation, TenantLocationInfo, TenantLocationSearchResult } from '../schemas/tenant-location';
import { normaliseName } from './keys';
import type { TenantLocationRepository } from './repository';

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

/** SearchFilter fields that would filter other kinds of records: refused rather than silently ignored. */
const filtersNotForLocations = [
  'Statuses',
  'StatusStrings',
  'Status',
  'StartDate',
  'EndDate',
  'DatePeriod',
  'TransactionTypeDatTypeID',
  'CategoryID',
  'AdaptorID',
  'CategoryIDs',
  'BrandIDs',
  'GUIDs',
  'LinkedSupplierID',
  'IsApprovedForPOS',
  'IsApprovedForWeb',
  'IsApprovedForService',
  'Types',
  'IsShowFavourites',
  'IsHidden',
  'IncludeSystemTasks',
  'IsSystem',
  'BatchStatus',
  'GroupBy',
] as const satisfies readonly (keyof TenantLocationFilter)[];

type Comparator = (a: TenantLocation, b: TenantLocation) => number;
const byId: Comparator = (a, b) => a.ID - b.ID;
const byText =
  (pick: (location: TenantLocation) => string | undefined): Comparator =>
  (a, b) => {
    const left = normaliseName(pick(a) ?? '');
    const right = normaliseName(pick(b) ?? '');
    return left < right ? -1 : left > right ? 1 : 0;
  };

export const sortFields: Readonly<Record<string, Comparator>> = {
  name: byText((location) => location.Name),
  id: byId,
  description: byText((location) => location.Description),
  createddatetime_utc: byText((location) => location.CreatedDateTime_utc),
  modifieddatetime_utc: byText((location) => location.ModifiedDateTime_utc),
};

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

const maxSaveAttempts = 3;
const maxParentDepth = 16;

export interface TenantLocationServiceDependencies {
  readonly repository: TenantLocationRepository;
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

  /** A parent must be another existing location of the tenant, and must not make the hierarchy a loop. */
  const checkParent = async (tenantId: number, id: number | undefined, parentId: number | undefined) => {
    if (!parentId) return undefined;
    const invalid = (detail: string) => new ValidationFailed([{ pointer: '/ParentID', detail }]);
    if (parentId === id) throw invalid('a location cannot be its own parent');
    const parent = await repository.get(tenantId, parentId);
    if (!parent) throw invalid('no location of this tenant has this ID');
    let ancestor: TenantLocation | undefined = parent;
    for (let depth = 0; ancestor?.ParentID && depth < maxParentDepth; depth += 1) {
      if (ancestor.ParentID === id) throw invalid('this parent would make the hierarchy a loop');
      ancestor = await repository.get(tenantId, ancestor.ParentID);
    }
    return parent;
  };

  const save = async (principal: Principal, input: TenantLocationInfo): Promise<SaveOutcome> => {
    const name = input.Name?.trim();
    if (!name) throw new ValidationFailed([{ pointer: '/Name', detail: 'is required' }]);
    const tenantId = principal.tenantId;
    const isUpdate = Boolean(input.ID);
    const parent = await checkParent(tenantId, input.ID, input.ParentID);
    // Allocated only once the input is known good; a save that still fails later leaves a gap in the IDs.
    const id = isUpdate ? (input.ID as number) : await repository.nextId(tenantId);

    for (let attempt = 1; ; attempt += 1) {
      const previous = isUpdate ? await require(tenantId, id) : undefined;
      if (previous && input.Version !== undefined && input.Version !== previous.Version) throw new StaleVersion();
      const timestamp = now();
      const isActive = input.IsActive ?? previous?.IsActive ?? true;
      const next: TenantLocation = {
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
        Version: (previous?.Version ?? 0) + 1,
        CreatedDateTime_utc: previous?.CreatedDateTime_utc ?? timestamp,
        CreatedByUserID: previous?.CreatedByUserID ?? principal.userId,
        ModifiedDateTime_utc: timestamp,
        ModifiedByUserID: principal.userId,
      };
      const becomesDefault = next.IsDefault && !(previous?.IsActive && previous.IsDefault);
      const previousDefaultId = becomesDefault ? await repository.defaultLocationId(tenantId) : undefined;
      try {
        await repository.write({ next, previous, previousDefaultId, actorUserId: principal.userId, now: timestamp });
        return { created: !isUpdate, location: next };
      } catch (error) {
        if (!(error instanceof ConcurrentModification)) throw error;
        // The client named the version it edited: another writer got there first, so its edit is stale.
        if (input.Version !== undefined) throw new StaleVersion();
        if (attempt >= maxSaveAttempts) throw error;
      }
    }
  };

  const remove = async (principal: Principal, id: number): Promise<TenantLocation> => {
    for (let attempt = 1; ; attempt += 1) {
      const previous = await require(principal.tenantId, id);
      if (!previous.IsActive) return previous;
      const timestamp = now();
      const next: TenantLocation = {
        ...previous,
        IsActive: false,
        IsDefault: false,
        Version: previous.Version + 1,
        ModifiedDateTime_utc: timestamp,
        ModifiedByUserID: principal.userId,
      };
      try {
        await repository.write({ next, previous, actorUserId: principal.userId, now: timestamp });
        return next;
      } catch (error) {
        if (!(error instanceof ConcurrentModification) || attempt >= maxSaveAttempts) throw error;
      }
    }
  };

  /** SearchString, or Search when SearchString is absent or blank (an XML or form client may send it empty). */
  const searchText = (filter: SearchFilter) => {
    for (const candidate of [filter.SearchString, filter.Search]) {
      const value = candidate?.normalize('NFKC').trim().toLowerCase();
      if (value) return value;
    }
    return undefined;
  };

  const search = async (principal: Principal, filter: TenantLocationFilter): Promise<TenantLocationSearchResult> => {
    const refused = filtersNotForLocations.filter((field) => filter[field] !== undefined);
    if (refused.length > 0) {
      throw new ValidationFailed(refused.map((field) => ({ pointer: `/${field}`, detail: 'does not apply to tenant locations' })));
    }
    const sortKey = (filter.SortField?.trim() || 'Name').toLowerCase();
    const comparator = sortFields[sortKey];
    if (!comparator) {
      throw new ValidationFailed([{ pointer: '/SortField', detail: 'must be Name, ID, Description, CreatedDateTime_utc or ModifiedDateTime_utc' }]);
    }
    const text = searchText(filter);
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
    const direction = filter.SortAsc === false ? -1 : 1;
    matching.sort((a, b) => direction * (comparator(a, b) || byId(a, b)));

    const start = Math.min(filter.LastRowNumber ?? 0, matching.length);
    const maxResults = filter.MaxResults ?? defaultSearchResults;
    const page = filter.GetCountOnly ? [] : matching.slice(start, start + maxResults);
    return {
      Rows: page.map((location, index) => ({ ...location, RowNumber: start + index + 1 })),
      TotalCount: matching.length,
      HasMore: start + (filter.GetCountOnly ? 0 : page.length) < matching.length,
      LastRowNumber: start + page.length,
      MaxResults: maxResults,
    };
  };

  return {
    get: (principal: Principal, id: number) => require(principal.tenantId, id),

    getAll: (principal: Principal) => repository.listActiveByName(principal.tenantId),

    async getByName(principal: Principal, filter: SearchFilter): Promise<TenantLocation> {
      const text = searchText(filter);
      if (!text) throw new ValidationFailed([{ pointer: '/SearchString', detail: 'SearchString or Search is required' }]);
      const location = filter.IsExactMatch
        ? await repository.findActiveByName(principal.tenantId, text)
        : await repository.findFirstActiveByNamePrefix(principal.tenantId, text);
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
