// Data layer: the index keys of delivery-receipt Search (see README.md, "Indexes and search"). Only headers carry
// them (lines never write to an index). Each of the four sort orders has its own sparse index; each index's
// partition key is the tenant's receipts write-sharded by `ID mod 4`, so no one key takes a tenant's header writes,
// and Search merges the four shards in order. The sort key is the sort value, U+0001, then the ID in 10 digits:
// U+0001 sorts below every character a value can hold, so a value comes before the longer values it begins and
// rows equal on the sort field are ordered by ID, in the index exactly as in `compareSortKeys`.
import { normaliseClaimValue, searchableText } from '#shared/data/visible-text';
import { composeKey, padNumber, tenantPartition } from '#shared/data/partition';
import { receiptsByCreatedDateTime, receiptsByDeliveryDate, receiptsById, receiptsByRefNumber } from '#shared/data/indexes';
import type { IndexDefinition } from '#shared/data/table';
import { epochMsOf, readCalendar } from '#shared/schemas/calendar';
import { receiptSortFields } from '#shared/schemas/search-members';

/** Shards of each index's partition key per tenant. Changing it re-keys every header (a migration). */
export const searchShardCount = 4;

export const searchShardOf = (receiptId: number): number => receiptId % searchShardCount;

/** The partition key of one shard of a tenant's receipts, the same in the four indexes. */
export const searchPartition = (tenantId: number, shard: number): string => composeKey(tenantPartition(tenantId), 'DRS', shard);

/** Separates a sort value from the ID: below every character a stored value can hold (no C0 controls but TAB/CR/LF). */
export const sortValueSeparator = '\u0001';

/** The header fields the index keys are derived from. */
export interface SearchHeader {
  readonly ID: number;
  readonly RefNumber: string;
  readonly DeliveryDate?: string | undefined;
  readonly CreatedDateTime_utc: string;
  readonly Status: string;
  /** Matched, lower-cased, by SearchString; pass it whenever the header has one. */
  readonly SupplierName?: string | undefined;
}

/**
 * A date or date-time in its sortable form: `YYYY-MM-DD` for a date (which then sorts before every instant of that
 * day), the UTC instant `YYYY-MM-DDTHH:mm:ss.sssZ` for a date-time (no offset: UTC), '' for anything else or none
 * (sorted first ascending, last descending, and outside every date range). Read by the one calendar reader, so a date
 * that does not exist is none, never the next day.
 */
export const sortableDate = (value: string | undefined): string => {
  const trimmed = value?.trim();
  if (!trimmed) return '';
  const parsed = readCalendar(trimmed);
  if (!parsed) return '';
  if (!parsed.time) return trimmed;
  const epochMs = epochMsOf(parsed);
  return Number.isFinite(epochMs) ? new Date(epochMs).toISOString() : '';
};

/** The text SearchString is matched in (`contains`): RefNumber and SupplierName (`searchableText`). */
export const searchTextOf = (header: Pick<SearchHeader, 'RefNumber' | 'SupplierName'>): string => searchableText([header.RefNumber, header.SupplierName]);

export const searchTextAttribute = 'searchText';

/** The sort fields of Search, declared by its filter schema (each served by its own index, below). */
export { receiptSortFields };
export type ReceiptSortField = (typeof receiptSortFields)[number];

export interface ReceiptSortIndex {
  readonly sortField: ReceiptSortField;
  readonly index: IndexDefinition;
  /** The sort value of a header in this order (before the separator and ID). */
  readonly value: (header: Pick<SearchHeader, 'RefNumber' | 'DeliveryDate' | 'CreatedDateTime_utc' | 'ID'>) => string;
}

/** The four sort orders of Search, each served by its own index. */
export const receiptSortIndexes = new Map<ReceiptSortField, ReceiptSortIndex>([
  ['DeliveryDate', { sortField: 'DeliveryDate', index: receiptsByDeliveryDate, value: (header) => sortableDate(header.DeliveryDate) }],
  ['CreatedDateTime_utc', { sortField: 'CreatedDateTime_utc', index: receiptsByCreatedDateTime, value: (header) => sortableDate(header.CreatedDateTime_utc) }],
  ['RefNumber', { sortField: 'RefNumber', index: receiptsByRefNumber, value: (header) => normaliseClaimValue(header.RefNumber ?? '') }],
  ['ID', { sortField: 'ID', index: receiptsById, value: () => '' }],
]);

export const receiptSortIndex = (sortField: ReceiptSortField): ReceiptSortIndex => receiptSortIndexes.get(sortField) as ReceiptSortIndex;

/** The sort key of a header in one index. */
export const searchSortKey = (value: string, receiptId: number): string => `${value}${sortValueSeparator}${padNumber(receiptId)}`;

/** Orders sort keys as DynamoDB does: by their UTF-8 bytes (JavaScript's `<` compares UTF-16 code units). */
export const compareSortKeys = (left: string, right: string): number => Buffer.compare(Buffer.from(left, 'utf8'), Buffer.from(right, 'utf8'));

/**
 * Contract C6: the index attributes of a receipt header, spread onto the header item on every header write (and
 * only there). Every value is a string: the four indexes' keys and the lower-cased search text.
 */
export const searchIndexAttributes = (tenantId: number, header: SearchHeader): Record<string, string> => {
  const partition = searchPartition(tenantId, searchShardOf(header.ID));
  const attributes: Record<string, string> = { [searchTextAttribute]: searchTextOf(header) };
  for (const { index, value } of receiptSortIndexes.values()) {
    attributes[index.partitionKey] = partition;
    attributes[index.sortKey] = searchSortKey(value(header), header.ID);
  }
  return attributes;
};

/** Above every sort key of a day's instants and IDs: `to` plus U+0002 (the separator is U+0001). */
const upperKey = (to: string): string => `${to}\u0002`;
/** Below every dated key and above every undated one (dates begin with a digit). */
const firstDatedKey = '0';

/** The bounds on the DeliveryDate sort key a Search's date range gives (sortable bounds, `to` inclusive), if any. */
export const dateRange = (bounds: { readonly from?: string; readonly to?: string }): { readonly low: string; readonly high?: string } | undefined =>
  bounds.from === undefined && bounds.to === undefined
    ? undefined
    : { low: bounds.from ?? firstDatedKey, ...(bounds.to !== undefined ? { high: upperKey(bounds.to) } : {}) };
