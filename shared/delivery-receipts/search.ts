// Domain and data: delivery-receipt Search (issue 9, section 5; README.md, "Indexes and search"). The request is
// checked by the shared search mechanism (shared/search/), then one page is read from the index of the requested
// order: its four shards are read in that order and merged, the filters that are not keys run as
// FilterExpressions, and reading stops when the page is full. Paging forward continues from a continuation item
// cached per (query, row number), so page 5 costs what page 1 costs; a LastRowNumber without one is read from the
// start. IDs are read by key instead (BatchGetItem), whatever the order.
import { createHash } from 'node:crypto';
import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/principal';
import { defaultTable, queryAll, type TableContext } from '#shared/data/client';
import { normaliseClaimValue } from '#shared/data/claims';
import { assertItemFits } from '#shared/data/item-size';
import { composeKey, padNumber, tenantKey, type ItemKey } from '#shared/data/partition';
import { tableDefinition } from '#shared/data/table';
import { ValidationFailed, type FieldError } from '#shared/errors';
import { SearchFilter as searchFilterSchema } from '#shared/compiled/schemas/search-filter';
import type { DeliveryLine, DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import type { DeliveryReceiptSearchResult } from '#shared/schemas/delivery-receipt-search';
import { pagedActionResults } from '#shared/schemas/envelope-bodies';
import type { SearchFilter } from '#shared/schemas/search-filter';
import { receiptSearchMembers } from '#shared/schemas/search-members';
import { defineSearch, type SearchPlan } from '#shared/search/search';
import { lineFieldOrder, receiptFieldOrder } from '#shared/schemas/receipt-fields';
import { headerKey, lineSortKeyPrefix, receiptPartition } from './keys';
import { parseStatus, receiptStatuses, statusOf, statusView, type ReceiptStatus } from './lifecycle';
import { activeLines, withDerivedFields, type StoredLine } from './lines';
import { inFieldOrder } from './repository';
import {
  compareSortKeys,
  receiptSortFields,
  receiptSortIndex,
  searchPartition,
  searchShardCount,
  searchTextAttribute,
  sortableDate,
  type ReceiptSortField,
} from './search-keys';

/** A receipt as Search reads it: the stored header item (keys and index attributes included). */
export interface ReceiptHit {
  readonly item: Readonly<Record<string, unknown>>;
}

const idOf = (hit: ReceiptHit): number => hit.item.ID as number;
const sortKeyOf = (sortField: ReceiptSortField) => {
  const { sortKey } = receiptSortIndex(sortField).index;
  return (hit: ReceiptHit): string => (typeof hit.item[sortKey] === 'string' ? (hit.item[sortKey] as string) : '');
};

/** The filter members Search applies and its sort fields, compared exactly as their index orders its keys. */
export const deliveryReceiptSearch = defineSearch<ReceiptHit>({
  subject: 'delivery receipts',
  filterFields: Object.keys(searchFilterSchema.shape),
  supports: receiptSearchMembers,
  sortFields: receiptSortFields.map((sortField) => {
    const key = sortKeyOf(sortField);
    return [sortField, (a: ReceiptHit, b: ReceiptHit) => compareSortKeys(key(a), key(b))] as const;
  }),
  tieBreak: (a, b) => idOf(a) - idOf(b),
});

/** How long a continuation is kept: long enough for a person paging through results. */
export const continuationTtlSeconds = 3_600;
/** Lines a page answers (IsGetBasicInfo false) stop growing the page past this many bytes of JSON. */
export const pageLinesBudgetBytes = 4_000_000;
/** GUIDs are matched in lower and upper case, two operands each: at most 100 operands for one IN. */
export const maxGuids = 50;
const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The filter, normalised: what the rows must match (the order and paging are the plan's). */
export interface SearchCriteria {
  /** The statuses a row may have; absent: any. */
  readonly statuses?: readonly ReceiptStatus[];
  /** Lower-cased text found in RefNumber or SupplierName. */
  readonly text?: string;
  /** Sortable DeliveryDate bounds (search-keys.ts): the lower inclusive, the upper inclusive of the whole instant. */
  readonly from?: string;
  readonly to?: string;
  readonly supplierId?: number;
  readonly ids?: readonly number[];
  readonly guids?: readonly string[];
}

const textOf = (filter: SearchFilter): string | undefined => {
  for (const candidate of [filter.SearchString, filter.Search]) {
    const value = candidate === undefined ? undefined : normaliseClaimValue(candidate);
    if (value) return value;
  }
  return undefined;
};

/** A bound's key: a midnight lower bound starts at the date itself, so a receipt dated that day (no time) is in. */
const lowerBound = (value: string): string => (value.endsWith('T00:00:00.000Z') ? value.slice(0, 10) : value);

/** Turns the filter members into criteria, refusing (400, every problem at once) what cannot match anything sensible. */
export const searchCriteria = (filter: SearchFilter): SearchCriteria => {
  const errors: FieldError[] = [];
  const requested = new Set<ReceiptStatus>();
  (filter.Statuses ?? []).forEach((value, index) => {
    const status = receiptStatuses[value];
    if (status === undefined || !Number.isInteger(value) || value < 0) {
      errors.push({ pointer: `/Statuses/${index}`, detail: `must be ${receiptStatuses.map((name, number) => `${number} (${name})`).join(', ')}` });
    } else requested.add(status);
  });
  for (const member of ['StatusStrings', 'Status'] as const) {
    (filter[member] ?? []).forEach((value, index) => {
      try {
        requested.add(parseStatus(value, `/${member}/${index}`));
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        errors.push(...(error.errors ?? []));
      }
    });
  }
  const from = filter.StartDate === undefined ? undefined : sortableDate(filter.StartDate);
  const to = filter.EndDate === undefined ? undefined : sortableDate(filter.EndDate);
  if (from === '') errors.push({ pointer: '/StartDate', detail: 'must be an ISO 8601 date-time' });
  if (to === '') errors.push({ pointer: '/EndDate', detail: 'must be an ISO 8601 date-time' });
  const guids = filter.GUIDs?.map((guid) => guid.trim().toLowerCase());
  guids?.forEach((guid, index) => {
    if (!guidPattern.test(guid)) errors.push({ pointer: `/GUIDs/${index}`, detail: 'must be a GUID' });
  });
  if (guids && guids.length > maxGuids) errors.push({ pointer: '/GUIDs', detail: `must have at most ${maxGuids} items` });
  if (errors.length > 0) throw new ValidationFailed(errors);

  // Cancelled is what this API deletes: left out unless IncludeDeleted, or unless a status filter names it.
  const statuses =
    requested.size > 0 ? [...requested] : filter.IncludeDeleted === true ? undefined : receiptStatuses.filter((status) => status !== 'Cancelled');
  const text = textOf(filter);
  return {
    ...(statuses ? { statuses } : {}),
    ...(text ? { text } : {}),
    ...(from ? { from: lowerBound(from) } : {}),
    ...(to ? { to } : {}),
    ...(filter.LinkedSupplierID ? { supplierId: filter.LinkedSupplierID } : {}),
    ...(filter.IDs && filter.IDs.length > 0 ? { ids: [...new Set(filter.IDs)] } : {}),
    ...(guids && guids.length > 0 ? { guids: [...new Set(guids)] } : {}),
  };
};

const deliveryDateKey = receiptSortIndex('DeliveryDate').index.sortKey;
/** Above every sort key of a day's instants and IDs: `to` plus U+0002 (the separator is U+0001). */
const upperKey = (to: string): string => `${to}\u0002`;
/** Below every dated key and above every undated one (dates begin with a digit). */
const firstDatedKey = '0';

/** The bounds on the DeliveryDate sort key a date range gives, if any. */
const dateRange = (criteria: SearchCriteria): { readonly low: string; readonly high?: string } | undefined =>
  criteria.from === undefined && criteria.to === undefined
    ? undefined
    : { low: criteria.from ?? firstDatedKey, ...(criteria.to !== undefined ? { high: upperKey(criteria.to) } : {}) };

/** Does a stored header match? The same rules as `filterExpression`, for rows read by key. */
export const matches = (item: Readonly<Record<string, unknown>>, criteria: SearchCriteria): boolean => {
  const status = (typeof item.Status === 'string' ? item.Status : 'Draft') as ReceiptStatus;
  const range = dateRange(criteria);
  const dateKey = typeof item[deliveryDateKey] === 'string' ? (item[deliveryDateKey] as string) : '';
  const searchText = typeof item[searchTextAttribute] === 'string' ? (item[searchTextAttribute] as string) : '';
  const guid = typeof item.GUID === 'string' ? item.GUID : undefined;
  return (
    (!criteria.statuses || criteria.statuses.includes(status)) &&
    (!criteria.text || searchText.includes(criteria.text)) &&
    (!range || (compareSortKeys(dateKey, range.low) >= 0 && (range.high === undefined || compareSortKeys(dateKey, range.high) < 0))) &&
    (criteria.supplierId === undefined || item.SupplierID === criteria.supplierId) &&
    (!criteria.guids || (guid !== undefined && criteria.guids.includes(guid.toLowerCase())))
  );
};

interface Expression {
  readonly KeyConditionExpression?: string;
  readonly FilterExpression?: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

/** The key condition of one shard and the FilterExpression of the criteria that are not keys of this index. */
export const queryExpression = (tenantId: number, shard: number, sortField: ReceiptSortField, criteria: SearchCriteria): Expression => {
  const { index } = receiptSortIndex(sortField);
  const names: Record<string, string> = { '#pk': index.partitionKey };
  const values: Record<string, unknown> = { ':pk': searchPartition(tenantId, shard) };
  const filters: string[] = [];
  const range = dateRange(criteria);
  let keyCondition = '#pk = :pk';
  if (range) {
    values[':low'] = range.low;
    if (range.high !== undefined) values[':high'] = range.high;
    if (sortField === 'DeliveryDate') {
      names['#sk'] = index.sortKey;
      keyCondition += range.high === undefined ? ' AND #sk >= :low' : ' AND #sk BETWEEN :low AND :high';
    } else {
      names['#date'] = deliveryDateKey;
      filters.push(range.high === undefined ? '#date >= :low' : '(#date >= :low AND #date < :high)');
    }
  }
  if (criteria.statuses) {
    names['#status'] = 'Status';
    const operands = criteria.statuses.map((status, position) => {
      values[`:status${position}`] = status;
      return `:status${position}`;
    });
    // A header without a Status is a Draft (lifecycle.ts).
    filters.push(`(#status IN (${operands.join(', ')})${criteria.statuses.includes('Draft') ? ' OR attribute_not_exists(#status)' : ''})`);
  }
  if (criteria.text) {
    names['#text'] = searchTextAttribute;
    values[':text'] = criteria.text;
    filters.push('contains(#text, :text)');
  }
  if (criteria.supplierId !== undefined) {
    names['#supplier'] = 'SupplierID';
    values[':supplier'] = criteria.supplierId;
    filters.push('#supplier = :supplier');
  }
  if (criteria.guids) {
    names['#guid'] = 'GUID';
    const operands = criteria.guids.flatMap((guid, position) => {
      values[`:guid${position}`] = guid;
      values[`:GUID${position}`] = guid.toUpperCase();
      return [`:guid${position}`, `:GUID${position}`];
    });
    filters.push(`#guid IN (${operands.join(', ')})`);
  }
  return {
    KeyConditionExpression: keyCondition,
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};

/** Where one shard stands after a row: after the key of the last row taken from it, or read to its end. */
export interface ShardPosition {
  readonly after?: Record<string, string>;
  readonly done: boolean;
}

/** The continuation item of (tenant, query, row number): in the tenant's partition, so no other tenant can read it. */
export const continuationKey = (tenantId: number, queryHash: string, rowNumber: number): ItemKey =>
  tenantKey(tenantId, composeKey('DRSEARCH', queryHash, padNumber(rowNumber)));

/** Names a query: its order and criteria (not the page size), and the tenant again, whose partition holds it. */
export const queryHashOf = (tenantId: number, plan: SearchPlan<ReceiptHit>, criteria: SearchCriteria): string =>
  createHash('sha256')
    .update(JSON.stringify([tenantId, plan.sortField, plan.ascending, criteria.statuses ? [...criteria.statuses].sort() : null, criteria.text ?? null, criteria.from ?? null, criteria.to ?? null, criteria.supplierId ?? null, criteria.guids ? [...criteria.guids].sort() : null]))
    .digest('base64url')
    .slice(0, 32);

/** A row's fields in DeliveryReceiptT's order, as Get shows a receipt (RowNumber where the schema has it). */
const rowFieldOrder = receiptFieldOrder.flatMap((field) => (field === 'GUIDstring' ? [field, 'RowNumber'] : field === 'Lines' ? [] : [field]));

/** One shard of the index, read in order for one request: what it buffered, where it continues, where it stands. */
class ShardReader {
  readonly buffer: Record<string, unknown>[] = [];
  private next: Record<string, unknown> | undefined;
  private exhausted: boolean;
  private limit = 0;
  /** Where this shard stands after the rows taken so far. */
  position: ShardPosition;

  constructor(
    private readonly table: TableContext,
    private readonly input: QueryCommandInput,
    private readonly keyAttributes: readonly string[],
    start: ShardPosition,
  ) {
    this.next = start.after;
    this.exhausted = start.done;
    this.position = start;
  }

  get finished(): boolean {
    return this.exhausted && this.buffer.length === 0;
  }

  /** Reads until a row is buffered or the shard ends; `wanted` rows sizes the first read, and each empty read doubles it. */
  async fill(wanted: number): Promise<void> {
    this.limit = Math.max(this.limit, Math.min(1_000, Math.max(4, wanted)));
    while (this.buffer.length === 0 && !this.exhausted) {
      const answer = await this.table.client.send(new QueryCommand({ ...this.input, Limit: this.limit, ExclusiveStartKey: this.next }));
      this.buffer.push(...((answer.Items ?? []) as Record<string, unknown>[]));
      this.next = answer.LastEvaluatedKey;
      this.exhausted = this.next === undefined;
      if (this.buffer.length === 0) this.limit = Math.min(1_000, this.limit * 2);
    }
    if (this.finished) this.position = { ...this.position, done: true };
  }

  take(): Record<string, unknown> {
    const item = this.buffer.shift() as Record<string, unknown>;
    const after = Object.fromEntries(this.keyAttributes.map((name) => [name, item[name] as string]));
    this.position = { after, done: this.exhausted && this.buffer.length === 0 };
    return item;
  }
}

interface Taken {
  readonly hit: ReceiptHit;
  /** Every shard's position once this row is taken: the continuation after it. */
  readonly positions: readonly ShardPosition[];
}

export interface SearchDependencies {
  readonly table: TableContext;
  readonly clock?: () => Date;
}

export const createDeliveryReceiptSearch = ({ table, clock = () => new Date() }: SearchDependencies) => {
  const { client, tableName } = table;

  const readContinuation = async (tenantId: number, queryHash: string, rowNumber: number, now: Date): Promise<readonly ShardPosition[] | undefined> => {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: continuationKey(tenantId, queryHash, rowNumber), ConsistentRead: true }));
    const shards = Item?.shards;
    // TTL deletes an expired item within days, not at once: an expired one is as good as none.
    if (!Item || typeof Item.expiresAt !== 'number' || Item.expiresAt * 1000 <= now.getTime() || !Array.isArray(shards) || shards.length !== searchShardCount) return undefined;
    return shards as ShardPosition[];
  };

  const writeContinuation = (tenantId: number, queryHash: string, rowNumber: number, positions: readonly ShardPosition[], now: Date) => {
    const item = {
      ...continuationKey(tenantId, queryHash, rowNumber),
      entity: 'DeliveryReceiptSearchContinuation',
      shards: positions.map((position) => (position.after ? { after: position.after, done: position.done } : { done: position.done })),
      [tableDefinition.timeToLiveAttribute]: Math.floor(now.getTime() / 1000) + continuationTtlSeconds,
    };
    assertItemFits(item);
    return client.send(new PutCommand({ TableName: tableName, Item: item }));
  };

  /** Merges the shards in order: skips `skip` rows, then takes up to `take`; says whether a row lies after them. */
  const readMerged = async (tenantId: number, plan: SearchPlan<ReceiptHit>, criteria: SearchCriteria, start: readonly ShardPosition[], skip: number, take: number) => {
    const sortField = plan.sortField as ReceiptSortField;
    const { index } = receiptSortIndex(sortField);
    const keyAttributes = [tableDefinition.partitionKey, tableDefinition.sortKey, index.partitionKey, index.sortKey];
    const readers = start.map(
      (position, shard) =>
        new ShardReader(
          table,
          { TableName: tableName, IndexName: index.indexName, ScanIndexForward: plan.ascending, ...queryExpression(tenantId, shard, sortField, criteria) },
          keyAttributes,
          position,
        ),
    );
    const taken: Taken[] = [];
    let skipped = 0;
    // Each shard is asked for its share of the rows still needed, plus a fifth for rows a filter drops, so a page
    // is usually one Query per shard; a shard that runs dry is asked again (reads only grow with what is needed).
    const fillAll = () =>
      Promise.all(readers.map((reader) => reader.fill(Math.ceil((1.2 * (skip - skipped + take - taken.length + 1)) / searchShardCount) + 1)));
    for (;;) {
      await fillAll();
      if (taken.length >= take) break;
      let best: ShardReader | undefined;
      for (const reader of readers) {
        const head = reader.buffer[0];
        if (head && (!best || plan.compare({ item: head }, { item: best.buffer[0] as Record<string, unknown> }) < 0)) best = reader;
      }
      if (!best) break;
      const item = best.take();
      if (skipped < skip) skipped += 1;
      else taken.push({ hit: { item }, positions: readers.map((reader) => reader.position) });
    }
    return { skipped, taken, more: readers.some((reader) => reader.buffer.length > 0) };
  };

  const countMatching = async (tenantId: number, criteria: SearchCriteria): Promise<number> => {
    const { index } = receiptSortIndex('DeliveryDate');
    const counts = await Promise.all(
      Array.from({ length: searchShardCount }, async (_, shard) => {
        let count = 0;
        let ExclusiveStartKey: Record<string, unknown> | undefined;
        do {
          const answer = await client.send(
            new QueryCommand({ TableName: tableName, IndexName: index.indexName, Select: 'COUNT', ExclusiveStartKey, ...queryExpression(tenantId, shard, 'DeliveryDate', criteria) }),
          );
          count += answer.Count ?? 0;
          ExclusiveStartKey = answer.LastEvaluatedKey;
        } while (ExclusiveStartKey);
        return count;
      }),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  };

  /** The headers of these IDs that exist (BatchGetItem, 100 keys a request, unprocessed keys sent again). */
  const readByIds = async (tenantId: number, ids: readonly number[]): Promise<Record<string, unknown>[]> => {
    const items: Record<string, unknown>[] = [];
    for (let offset = 0; offset < ids.length; offset += 100) {
      let keys: Record<string, unknown>[] | undefined = ids.slice(offset, offset + 100).map((id) => ({ ...headerKey(tenantId, id) }));
      for (let attempt = 0; keys && keys.length > 0; attempt += 1) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 25 * 2 ** attempt)));
        const answer = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys } } }));
        items.push(...((answer.Responses?.[tableName] ?? []) as Record<string, unknown>[]));
        keys = answer.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined;
      }
    }
    return items;
  };

  /** The receipt's active lines, in SequenceNumber order. */
  const shownLines = async (tenantId: number, receiptId: number): Promise<DeliveryLine[]> => {
    const items = await queryAll(client, {
      TableName: tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :line)',
      ExpressionAttributeNames: { '#pk': tableDefinition.partitionKey, '#sk': tableDefinition.sortKey },
      ExpressionAttributeValues: { ':pk': receiptPartition(tenantId, receiptId), ':line': lineSortKeyPrefix },
    });
    // As Get shows them (service.ts receiptView): active lines, SequenceNumber order, QuantityToBeReceived derived.
    return activeLines(items.map((item) => inFieldOrder(item, lineFieldOrder) as StoredLine)).map(
      (line) => inFieldOrder(withDerivedFields(line), lineFieldOrder) as DeliveryLine,
    );
  };

  /** Adds each receipt's lines, in order, until the page's lines pass the budget: the page then ends early. */
  const withLines = async (tenantId: number, receipts: readonly DeliveryReceiptT[]): Promise<DeliveryReceiptT[]> => {
    const answered: DeliveryReceiptT[] = [];
    let bytes = 0;
    for (let offset = 0; offset < receipts.length && bytes <= pageLinesBudgetBytes; offset += 8) {
      const batch = receipts.slice(offset, offset + 8);
      const lines = await Promise.all(batch.map((receipt) => shownLines(tenantId, receipt.ID as number)));
      for (const [position, receipt] of batch.entries()) {
        const receiptLines = lines[position] as DeliveryLine[];
        bytes += Buffer.byteLength(JSON.stringify(receiptLines));
        if (answered.length > 0 && bytes > pageLinesBudgetBytes) break;
        answered.push({ ...receipt, Lines: receiptLines });
      }
    }
    return answered;
  };

  /** The header's own fields with the status fields of its stored Status (completion moves Status alone). */
  const toReceipt = (item: Readonly<Record<string, unknown>>, rowNumber: number): DeliveryReceiptT =>
    inFieldOrder({ ...item, ...statusView(statusOf(item as DeliveryReceiptT)), RowNumber: rowNumber } as DeliveryReceiptT, rowFieldOrder);

  const search = async (principal: Principal, filter: SearchFilter): Promise<DeliveryReceiptSearchResult> => {
    const plan = deliveryReceiptSearch.plan(filter);
    const criteria = searchCriteria(filter);
    const { tenantId } = principal;
    const includeLines = filter.IsGetBasicInfo === false;
    const range = dateRange(criteria);
    // StartDate after EndDate matches nothing (and a key condition's BETWEEN refuses a reversed range): read nothing.
    if (range?.high !== undefined && compareSortKeys(range.low, range.high) >= 0) {
      return pagedActionResults([], { MoreToGet: false, LastRowNumber: 0, TotalRecordCount: 0 });
    }

    if (criteria.ids) {
      // Read by key: the cost is the IDs', whatever the tenant holds; the mechanism orders and pages them in memory.
      const hits = (await readByIds(tenantId, criteria.ids)).filter((item) => matches(item, criteria)).map((item) => ({ item }));
      const result = deliveryReceiptSearch.page(plan, hits);
      const receipts = result.Value.map((row) => toReceipt(row.item, row.RowNumber));
      const answered = includeLines ? await withLines(tenantId, receipts) : receipts;
      if (answered.length === receipts.length) return { ...result, Value: answered };
      const last = answered.at(-1) as DeliveryReceiptT;
      return pagedActionResults(answered, { MoreToGet: true, LastRowNumber: last.RowNumber as number, TotalRecordCount: result.TotalRecordCount });
    }

    if (plan.countOnly) {
      // An exact count reads every matching header of the tenant: only when asked (README, "Indexes and search").
      const count = await countMatching(tenantId, criteria);
      return pagedActionResults([], { MoreToGet: count > plan.start, LastRowNumber: Math.min(plan.start, count), TotalRecordCount: count });
    }

    const now = clock();
    const queryHash = queryHashOf(tenantId, plan, criteria);
    const fromStart = Array.from({ length: searchShardCount }, (): ShardPosition => ({ done: false }));
    const cached = plan.start > 0 ? await readContinuation(tenantId, queryHash, plan.start, now) : undefined;
    const skip = cached ? 0 : plan.start;
    const read = await readMerged(tenantId, plan, criteria, cached ?? fromStart, skip, plan.maxResults);
    const before = cached ? plan.start : read.skipped;
    const receipts = read.taken.map((taken, index) => toReceipt(taken.hit.item, before + index + 1));
    const answered = includeLines ? await withLines(tenantId, receipts) : receipts;
    const cut = answered.length < receipts.length;
    const moreToGet = cut || read.more;
    const lastRowNumber = before + answered.length;
    const lastTaken = read.taken[answered.length - 1];
    if (moreToGet && lastTaken) await writeContinuation(tenantId, queryHash, lastRowNumber, lastTaken.positions, now);
    // Exact on the last page; before it, the rows known to exist (README: an exact total is GetCountOnly's).
    return pagedActionResults(answered, { MoreToGet: moreToGet, LastRowNumber: lastRowNumber, TotalRecordCount: lastRowNumber + (moreToGet ? 1 : 0) });
  };

  return { search };
};

export type DeliveryReceiptSearch = ReturnType<typeof createDeliveryReceiptSearch>;

let service: DeliveryReceiptSearch | undefined;

/** The search over the function's table, created once per process. */
export const deliveryReceiptSearchService = (): DeliveryReceiptSearch => {
  service ??= createDeliveryReceiptSearch({ table: defaultTable() });
  return service;
};
