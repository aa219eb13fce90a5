// Schemas: SearchFilter (TenantLocation_GetByName) and TenantLocationFilter (TenantLocation_Search).
import { z } from 'zod';
import { bool, dateTime, id, int32, limits, listOf, nameOf, namedIntEnum, shape, tenancyFields, text } from './common';
import { receiptStatuses } from './receipt-fields';
import { maxSearchGuids, maxSearchResults } from './limits';
import { commonSearchFields, inWords, receiptSearchMembers, receiptSortFields, tenantLocationSearchMembers, tenantLocationSortFields } from './search-members';

export { defaultSearchResults, maxSearchResults } from './limits';
export * from './search-members';

/** A delivery receipt status by name, as the receipt search reads it. */
const receiptStatusName = () => nameOf(receiptStatuses, `must be one of ${receiptStatuses.join(', ')}`);

const searchFilterFields = {
  /** Delivery receipt statuses by number (the only search that applies Statuses; others refuse it when set). */
  Statuses: listOf(
    namedIntEnum(
      receiptStatuses,
      receiptStatuses.map((name) => `A delivery receipt that is ${name}`),
      `A delivery receipt status: ${receiptStatuses.map((name, number) => `${number} ${name}`).join(', ')}.`,
      `must be ${receiptStatuses.map((name, number) => `${number} (${name})`).join(', ')}`,
    ),
  ).optional(),
  StatusStrings: listOf(receiptStatusName()).optional(),
  Status: listOf(receiptStatusName()).optional(),
  SearchString: text().optional(),
  SearchNameOnly: bool().optional(),
  Search: text().optional(),
  StartDate: dateTime().optional(),
  EndDate: dateTime().optional(),
  DatePeriod: text().optional(),
  IsExactMatch: bool().optional(),
  IsGetBasicInfo: bool().optional(),
  IncludeDeleted: bool().optional(),
  IncludeLogs: bool().optional(),
  IgnoreID: id().optional(),
  ParentID: id().optional(),
  GetCountOnly: bool().optional(),
  TransactionTypeDatTypeID: int32().optional(),
  CategoryID: id().optional(),
  AdaptorID: id().optional(),
  CategoryIDs: listOf(id()).optional(),
  BrandIDs: listOf(id()).optional(),
  IDs: listOf(id()).optional(),
  /** GUIDs in any case, surrounding spaces ignored (the delivery-receipt search reads them so). */
  GUIDs: listOf(text().regex(/^\s*[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\s*$/, { error: 'must be a GUID' }))
    .max(maxSearchGuids)
    .optional(),
  LinkedSupplierID: id().optional(),
  IsApprovedForPOS: bool().optional(),
  IsApprovedForWeb: bool().optional(),
  IsApprovedForService: bool().optional(),
  ID: id().optional(),
  IsHierarchicalSort: bool().optional(),
  Types: listOf(text()).optional(),
  IsShowFavourites: bool().optional(),
  IsHidden: bool().optional(),
  IncludeSystemTasks: bool().optional(),
  IsSystem: bool().optional(),
  BatchStatus: text().optional(),
  SortField: text().optional(),
  SortAsc: bool().optional(),
  GroupBy: text().optional(),
  /** The spec notes 64-bit values in the XML form; row numbers are still bounded by MAX_SAFE_INTEGER. */
  LastRowNumber: z.int().min(0).optional(),
  MaxResults: z.int32().min(1).max(maxSearchResults).optional(),
  ...tenancyFields,
};

/**
 * Every member of the platform's SearchFilter: what a search is given (a member it does not apply is refused by the
 * search, whoever calls; over HTTP each operation's filter lists only the members it applies). Not a component of the
 * document.
 */
export const SearchFilterMembers = z.strictObject(searchFilterFields);
export type SearchFilterMembers = z.infer<typeof SearchFilterMembers>;

/**
 * GetByName's rule (shared/tenant-locations/service.ts `searchText`), in the JSON Schema the document states it with:
 * SearchString or Search, one of them not blank once trimmed (`\S`: JavaScript's `trim` and `\s` remove the same
 * characters).
 */
const searchTextRules = [
  {
    anyOf: [
      { required: ['SearchString'], properties: { SearchString: { pattern: '\\S' } } },
      { required: ['Search'], properties: { Search: { pattern: '\\S' } } },
    ],
  },
];

/**
 * GetByName's body: the spec's SearchFilter, with the members the lookup applies and no others (a member it would not
 * apply is an unknown field, 400, as in the searches: it was read and silently ignored, so `IgnoreID` or
 * `IncludeDeleted` answered as if never sent).
 */
export const SearchFilter = shape(
  'SearchFilter',
  {
    SearchString: searchFilterFields.SearchString,
    Search: searchFilterFields.Search,
    IsExactMatch: searchFilterFields.IsExactMatch,
    IgnoreID: searchFilterFields.IgnoreID,
    ...tenancyFields,
  },
  'A tenant-location lookup by name: SearchString or Search (the first that is not blank once trimmed) is the text; ' +
    'IsExactMatch asks for the whole name, else the first active name (in name order) that starts with it; IgnoreID ' +
    'leaves that location out (is the name taken by another location?). The searches take the rest of the ' +
    "platform's SearchFilter members; this lookup applies only these.",
  undefined,
  searchTextRules,
);
export type SearchFilter = z.infer<typeof SearchFilter>;

type FilterMember = keyof typeof searchFilterFields;

/**
 * The filter of one search operation: SearchFilter's members that search applies and the common ones, nothing else (a
 * member it would not apply is an unknown field, 400), and its sort fields as an enumeration (any case, padded; blank
 * is the default, the first).
 */
const searchFilterOf = <M extends FilterMember>(sortFields: readonly string[], members: readonly M[]) => {
  const picked = Object.fromEntries([...members, ...commonSearchFields].map((member) => [member, searchFilterFields[member]]));
  return {
    ...(picked as Pick<typeof searchFilterFields, M | (typeof commonSearchFields)[number]>),
    SortField: nameOf(sortFields, `must be ${inWords(sortFields)}`, limits.shortText, true).optional(),
  };
};

export const TenantLocationFilter = shape('TenantLocationFilter', {
  ...searchFilterOf(tenantLocationSortFields, tenantLocationSearchMembers),
  CustomerID: id().optional(),
  /** Beyond the spec: true for active locations only, false for deleted ones only (implies IncludeDeleted). */
  IsActive: bool().optional(),
});
export type TenantLocationFilter = z.infer<typeof TenantLocationFilter>;


export const DeliveryReceiptFilter = shape('DeliveryReceiptFilter', searchFilterOf(receiptSortFields, receiptSearchMembers));
export type DeliveryReceiptFilter = z.infer<typeof DeliveryReceiptFilter>;
