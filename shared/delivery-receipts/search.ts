// Domain: delivery-receipt Search (issue 9, section 5; README.md, "Indexes and search"). The request is checked by
// the shared search mechanism (shared/search/) and turned into criteria here; one page is then read through the
// area's search port (store.ts `ReceiptSearchStore`; on the table, repository.ts reads the index of the requested
// order, its four shards merged, the filters that are not keys as FilterExpressions) until the page is full. Paging
// forward continues from a continuation kept per (query, row number), so page 5 costs what page 1 costs; a
// LastRowNumber without one is read from the start. IDs are read by key instead, whatever the order. The rules are
// here: the criteria, the order, what a page holds, when a continuation is kept, the lines budget, the totals.
import { createHash } from 'node:crypto';
import type { Principal } from '#shared/auth/principal';
import { ValidationFailed, type FieldError } from '#shared/errors';
import { SearchFilterMembers as searchFilterSchema } from '#shared/compiled/schemas/search-filter';
import type { DeliveryLine, DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import type { DeliveryReceiptSearchResult } from '#shared/schemas/delivery-receipt-search';
import { pagedActionResults } from '#shared/schemas/envelope-bodies';
import type { SearchFilterMembers } from '#shared/schemas/search-filter';
import { maxSearchGuids } from '#shared/schemas/limits';
import { receiptSearchMembers } from '#shared/schemas/search-members';
import { defineSearch, pageBudgetBytes, searchTextOf, withinPageBudget, type SearchPlan } from '#shared/search/search';
import { lineFieldOrder, receiptFieldOrder } from '#shared/schemas/receipt-fields';
import { parseStatus, receiptStatuses, statusOf, statusView, type ReceiptStatus } from './lifecycle';
import { activeLines, withDerivedFields } from './lines';
import { inFieldOrder, SaveInProgress, underLiveLease, waitingOutLeases } from './repository';
import { compareSortKeys, dateRange, receiptSortFields, receiptSortIndex, searchTextAttribute, sortableDate, type ReceiptSortField } from './search-keys';
import type { ReceiptSearchStore, SearchCriteria } from './store';

export type { SearchCriteria } from './store';

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
/** Lines a page answers (IsGetBasicInfo false) stop being read past this many bytes of JSON (the page's budget). */
export const pageLinesBudgetBytes = pageBudgetBytes;
/** GUIDs a search may name (the filter's schema states the same bound). */
export const maxGuids = maxSearchGuids;
const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


/** A bound's key: a midnight lower bound starts at the date itself, so a receipt dated that day (no time) is in. */
const lowerBound = (value: string): string => (value.endsWith('T00:00:00.000Z') ? value.slice(0, 10) : value);

/** Turns the filter members into criteria, refusing (400, every problem at once) what cannot match anything sensible. */
export const searchCriteria = (filter: SearchFilterMembers): SearchCriteria => {
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
  const text = searchTextOf(filter);
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

/** Does a stored header match? The same rules as the repository's `queryExpression`, for rows read by key. */
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

/** Names a query: its order and criteria (not the page size), and the tenant again, whose partition holds it. */
export const queryHashOf = (tenantId: number, plan: SearchPlan<ReceiptHit>, criteria: SearchCriteria): string =>
  createHash('sha256')
    .update(JSON.stringify([tenantId, plan.sortField, plan.ascending, criteria.statuses ? [...criteria.statuses].sort() : null, criteria.text ?? null, criteria.from ?? null, criteria.to ?? null, criteria.supplierId ?? null, criteria.guids ? [...criteria.guids].sort() : null]))
    .digest('base64url')
    .slice(0, 32);

/** A row's fields in DeliveryReceiptT's order, as Get shows a receipt (RowNumber where the schema has it). */
const rowFieldOrder = receiptFieldOrder.flatMap((field) => (field === 'GUIDstring' ? [field, 'RowNumber'] : field === 'Lines' ? [] : [field]));

export interface SearchDependencies {
  readonly store: ReceiptSearchStore;
  readonly clock?: () => Date;
}

export const createDeliveryReceiptSearch = ({ store, clock = () => new Date() }: SearchDependencies) => {
  /** The receipt's lines as Get shows them (service.ts receiptView): active lines, SequenceNumber order, QuantityToBeReceived derived. */
  const shownLines = async (tenantId: number, receiptId: number): Promise<DeliveryLine[]> =>
    activeLines(await store.readLines(tenantId, receiptId)).map((line) => inFieldOrder(withDerivedFields(line), lineFieldOrder) as DeliveryLine);

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

  /**
   * `read` (of headers, strongly consistent), made again while a header of the answer it gives (`shown`) is under
   * another save's live lease. Such a header already carries the Version that save will end with, beside the fields
   * and lines it is still writing: answered, a client that sent that copy back after the save committed had its stale
   * fields accepted at a Version that matched, and the other save's changes silently lost (a bad-day review). Waited
   * out as Get waits (`waitingOutLeases`: a 409 "being saved" if the lease outlasts the wait); a header the answer
   * does not show (filtered out, past the page) is not waited for.
   */
  const withoutLeased = <T>(read: () => Promise<T>, shown: (answer: T) => readonly Readonly<Record<string, unknown>>[]): Promise<T> =>
    waitingOutLeases(async () => {
      const answer = await read();
      const now = clock().getTime();
      if (shown(answer).some((item) => underLiveLease(item, now))) throw new SaveInProgress();
      return answer;
    });

  /** The rows still matching, each with its header as it is now (one strongly consistent read of the page's headers). */
  const currentRows = async <Row extends { readonly item: Readonly<Record<string, unknown>> }>(tenantId: number, rows: readonly Row[], criteria: SearchCriteria) => {
    if (rows.length === 0) return [];
    return withoutLeased(
      async () => {
        const headers = new Map((await store.readHeaders(tenantId, rows.map((row) => idOf(row)))).map((item) => [item.ID as number, item]));
        return rows.flatMap((row) => {
          const item = headers.get(idOf(row));
          return item && matches(item, criteria) ? [{ row, item }] : [];
        });
      },
      (current) => current.map(({ item }) => item),
    );
  };

  /** The header's own fields with the status fields of its stored Status (completion moves Status alone). */
  const toReceipt = (item: Readonly<Record<string, unknown>>, rowNumber: number): DeliveryReceiptT =>
    inFieldOrder({ ...item, ...statusView(statusOf(item as DeliveryReceiptT)), RowNumber: rowNumber } as DeliveryReceiptT, rowFieldOrder);

  const search = async (principal: Principal, filter: SearchFilterMembers): Promise<DeliveryReceiptSearchResult> => {
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
      const ids = criteria.ids;
      const result = await withoutLeased(
        async () => deliveryReceiptSearch.page(plan, (await store.readHeaders(tenantId, ids)).filter((item) => matches(item, criteria)).map((item) => ({ item }))),
        (page) => page.Value.map((row) => row.item),
      );
      const receipts = result.Value.map((row) => toReceipt(row.item, row.RowNumber));
      const answered = withinPageBudget(includeLines ? await withLines(tenantId, receipts) : receipts);
      if (answered.length === receipts.length) return { ...result, Value: answered };
      const last = answered.at(-1) as DeliveryReceiptT;
      return pagedActionResults(answered, { MoreToGet: true, LastRowNumber: last.RowNumber as number, TotalRecordCount: result.TotalRecordCount });
    }

    if (plan.countOnly) {
      // An exact count reads every matching header of the tenant: only when asked (README, "Indexes and search").
      const count = await store.count(tenantId, criteria);
      return pagedActionResults([], { MoreToGet: count > plan.start, LastRowNumber: Math.min(plan.start, count), TotalRecordCount: count });
    }

    const now = clock();
    const queryHash = queryHashOf(tenantId, plan, criteria);
    const cached = plan.start > 0 ? await store.readContinuation(tenantId, queryHash, plan.start, now) : undefined;
    const read = await store.readRows({
      tenantId,
      sortField: plan.sortField as ReceiptSortField,
      ascending: plan.ascending,
      criteria,
      compare: (a, b) => plan.compare({ item: a }, { item: b }),
      ...(cached ? { after: cached } : {}),
      skip: cached ? 0 : plan.start,
      take: plan.maxResults,
    });
    const before = cached ? plan.start : read.skipped;
    // The index lags the table (on AWS): a row may be a receipt as it was a moment ago (another Status or Version, a
    // filter it no longer passes). Each row is answered from its header read strongly consistent, as Get answers
    // it, and left out when it no longer matches; the page is then shorter, and its RowNumbers count what it answers.
    const current = await currentRows(tenantId, read.rows, criteria);
    const receipts = current.map(({ item }, index) => toReceipt(item, before + index + 1));
    // Headers and lines together within the page's budget (shared/search/search.ts): a page of 500 large headers
    // passed the 6 MB a function may answer.
    const answered = withinPageBudget(includeLines ? await withLines(tenantId, receipts) : receipts);
    const cut = answered.length < receipts.length;
    const moreToGet = cut || read.more;
    const lastRowNumber = before + answered.length;
    // The next page goes on after the last row answered, or after the last row read when every one was answered
    // (rows left out are not read again).
    const lastRow = cut ? current[answered.length - 1]?.row : read.rows.at(-1);
    if (moreToGet && lastRow) await store.writeContinuation(tenantId, queryHash, lastRowNumber, lastRow.cursor, new Date(now.getTime() + continuationTtlSeconds * 1000));
    // Exact on the last page; before it, the rows known to exist (README: an exact total is GetCountOnly's).
    return pagedActionResults(answered, { MoreToGet: moreToGet, LastRowNumber: lastRowNumber, TotalRecordCount: lastRowNumber + (moreToGet ? 1 : 0) });
  };

  return { search };
};

export type DeliveryReceiptSearch = ReturnType<typeof createDeliveryReceiptSearch>;
