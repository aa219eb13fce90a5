// Unit tests of delivery-receipt Search's rules (shared/delivery-receipts/search.ts) over the in-memory search store
// (test/stores/delivery-receipts/memory-search-store.ts, held to the repository by its contract suite): what a page
// answers (MoreToGet, LastRowNumber, TotalRecordCount), when a continuation is kept and used, how long it is kept, the
// lines a page adds, IDs read by key, and what reads nothing. The same over DynamoDB Local: the integration test.
import { describe, expect, it } from '@jest/globals';
import { createDeliveryReceiptSearch } from '#shared/delivery-receipts/search';
import type { ReceiptSearchStore } from '#shared/delivery-receipts/store';
import type { SearchFilterMembers as SearchFilter } from '#shared/schemas/search-filter';
import { createMemorySearchStore } from '#test/stores/delivery-receipts/memory-search-store';
import { headerItem, lineItem, receiptsOf } from '#test/support/delivery-receipt-search-seed';

const tenantId = 7;
const principal = { tenantId, websiteId: 1, userId: 3 };
const receipts = receiptsOf(tenantId, 30);
const notCancelled = receipts.filter((receipt) => receipt.Status !== 'Cancelled').map((receipt) => receipt.ID);

/** A search over a seeded in-memory store whose every call is recorded, with a clock the test moves. */
const searchOver = async () => {
  const memory = createMemorySearchStore();
  await memory.seed([
    ...receipts.map((receipt) => headerItem(tenantId, receipt)),
    lineItem(tenantId, 2, { ID: 1, SequenceNumber: 1, InventoryID: 11, QuantityOrdered: 5, QuantityReceived: 2, IsActive: true }),
    lineItem(tenantId, 2, { ID: 2, SequenceNumber: 2, InventoryID: 12, IsActive: false }),
  ]);
  const calls: string[] = [];
  const store = Object.fromEntries(
    Object.entries(memory.store).map(([name, method]) => [name, (...args: unknown[]) => (calls.push(name), (method as (...a: unknown[]) => unknown)(...args))]),
  ) as unknown as ReceiptSearchStore;
  const clock = { now: new Date('2026-04-01T00:00:00.000Z') };
  const search = createDeliveryReceiptSearch({ store, clock: () => clock.now });
  return { calls, clock, search: (filter: SearchFilter) => search.search(principal, filter) };
};
const idsOf = (page: { Value: readonly { ID?: number | undefined }[] }) => page.Value.map((row) => row.ID);

describe('delivery-receipt Search rules', () => {
  it('pages forward through continuations: rows numbered, MoreToGet, a total known to exist, exact on the last page', async () => {
    const { search, calls } = await searchOver();
    const pages = [];
    for (let LastRowNumber = 0; ; ) {
      const page = await search({ SortField: 'ID', MaxResults: 10, LastRowNumber });
      pages.push({ ids: idsOf(page), rows: page.Value.map((row) => row.RowNumber), more: page.MoreToGet, last: page.LastRowNumber, total: page.TotalRecordCount });
      if (!page.MoreToGet) break;
      LastRowNumber = page.LastRowNumber as number;
    }

    expect(pages).toEqual([
      { ids: notCancelled.slice(0, 10), rows: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], more: true, last: 10, total: 11 },
      { ids: notCancelled.slice(10, 20), rows: [11, 12, 13, 14, 15, 16, 17, 18, 19, 20], more: true, last: 20, total: 21 },
      { ids: notCancelled.slice(20), rows: notCancelled.slice(20).map((_, index) => 21 + index), more: false, last: notCancelled.length, total: notCancelled.length },
    ]);
    // Every page but the last keeps its continuation; every page after the first reads one.
    expect(calls.filter((call) => call.endsWith('Continuation'))).toEqual(['writeContinuation', 'readContinuation', 'writeContinuation', 'readContinuation']);
  });

  it('reads a page from the start when its continuation expired (an hour on), and answers the same rows', async () => {
    const { search, clock } = await searchOver();
    await search({ SortField: 'RefNumber', SortAsc: false, MaxResults: 5 });
    const continued = await search({ SortField: 'RefNumber', SortAsc: false, MaxResults: 5, LastRowNumber: 5 });
    clock.now = new Date(clock.now.getTime() + 3_600_000);
    const fromStart = await search({ SortField: 'RefNumber', SortAsc: false, MaxResults: 5, LastRowNumber: 5 });

    expect(fromStart).toEqual(continued);
  });

  it('adds each receipt’s active lines, as Get shows them, only when IsGetBasicInfo is false', async () => {
    const { search } = await searchOver();
    const [basic, full] = [await search({ IDs: [2] }), await search({ IDs: [2], IsGetBasicInfo: false })];

    expect({ basic: basic.Value[0]?.Lines, full: full.Value[0]?.Lines }).toEqual({
      basic: undefined,
      full: [expect.objectContaining({ ID: 1, SequenceNumber: 1, QuantityOrdered: 5, QuantityReceived: 2, QuantityToBeReceived: 3 })],
    });
  });

  it('reads IDs by key, with the other filters, in the order asked; a reversed date range reads nothing', async () => {
    const { search, calls } = await searchOver();
    const byIds = await search({ IDs: [9, 3, 4, 5, 999], SortField: 'ID', SortAsc: false, IncludeDeleted: false });
    const readsBefore = calls.length;
    const reversed = await search({ StartDate: '2026-03-05T00:00:00Z', EndDate: '2026-03-01T00:00:00Z' });

    expect({
      byIds: idsOf(byIds),
      reversed: [reversed.Value, reversed.TotalRecordCount],
      reads: calls.slice(readsBefore),
    }).toEqual({ byIds: [9, 5, 4, 3].filter((id) => notCancelled.includes(id)), reversed: [[], 0], reads: [] });
  });

  it('counts only when asked (GetCountOnly): the exact count, no rows', async () => {
    const { search, calls } = await searchOver();
    const counted = await search({ GetCountOnly: true, LastRowNumber: 10 });

    expect({ rows: counted.Value, total: counted.TotalRecordCount, more: counted.MoreToGet, last: counted.LastRowNumber, calls }).toEqual({
      rows: [],
      total: notCancelled.length,
      more: true,
      last: 10,
      calls: ['count'],
    });
  });
});
