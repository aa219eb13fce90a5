// Schemas, zod-free: which SearchFilter members each search operation applies and its sort fields. The filter schemas
// (search-filter.ts) list exactly these, so the document states them; the searches (shared/search, and the areas)
// read the same lists at run time without loading zod.

/** Members of every search's filter that the search mechanism reads (paging, sorting, counting) or the stack checks (tenancy). */
export const commonSearchFields = ['SortField', 'SortAsc', 'LastRowNumber', 'MaxResults', 'GetCountOnly', 'TenantID', 'WebsiteID', 'UserID'] as const;

/** TenantLocation_Search: its sort fields (the first is the default) and the SearchFilter members it applies. */
export const tenantLocationSortFields = ['Name', 'ID', 'Description', 'CreatedDateTime_utc', 'ModifiedDateTime_utc'] as const;
export const tenantLocationSearchMembers = ['SearchString', 'Search', 'SearchNameOnly', 'IsExactMatch', 'IncludeDeleted', 'ParentID', 'IDs', 'ID', 'IgnoreID'] as const;

/** DeliveryReceipt_Search (v2): its sort fields, each served by its own index (the first is the default), and members. */
export const receiptSortFields = ['DeliveryDate', 'CreatedDateTime_utc', 'RefNumber', 'ID'] as const;
export const receiptSearchMembers = [
  'Statuses', 'StatusStrings', 'Status', 'SearchString', 'Search', 'StartDate', 'EndDate', 'LinkedSupplierID', 'IDs', 'GUIDs', 'IncludeDeleted', 'IsGetBasicInfo',
] as const;

/** `a, b or c`: how a refusal lists the names it would accept. */
export const inWords = (names: readonly string[]): string =>
  names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
