// The contract of delivery-receipt Search's store port (shared/delivery-receipts/store.ts `ReceiptSearchStore`): what
// search.ts relies on, run in the unit tier against the in-memory store (test/unit/delivery-receipts/
// search-store-contract.test.ts) and in the integration tier against the DynamoDB repository on DynamoDB Local
// (test/integration/delivery-receipts/search-store-contract.test.ts). The rows a criteria reads are the rows
// `matches` (search.ts) accepts, so the repository's key conditions and FilterExpressions are held to the rule; a
// cursor continues exactly after its row; a continuation is the tenant's own and gone once expired.
import { describe, expect, it } from '@jest/globals';
import { deliveryReceiptSearch, searchCriteria } from '#shared/delivery-receipts/search';
import type { ReceiptSortField } from '#shared/delivery-receipts/search-keys';
import type { HeaderItem, ReceiptSearchStore, SearchCursor } from '#shared/delivery-receipts/store';
import type { SearchFilterMembers as SearchFilter } from '#shared/schemas/search-filter';
import { headerItem, lineItem, receiptsOf, type StoredReceipt } from '#test/support/delivery-receipt-search-seed';
import { freshTenantId } from '#test/support/tenant-items';

export interface SearchStoreUnderTest {
  readonly store: ReceiptSearchStore;
  /** Stores items (header and line items, as a save leaves them). */
  readonly seed: (items: readonly Record<string, unknown>[]) => Promise<void>;
}

const receiptCount = 40;

export const describeReceiptSearchStoreContract = (implementation: string, open: () => SearchStoreUnderTest) =>
  describe(`ReceiptSearchStore contract: ${implementation}`, () => {
    const { store, seed } = open();
    const tenantId = freshTenantId();
    const otherTenantId = freshTenantId();
    const receipts = receiptsOf(tenantId, receiptCount);
    let seeded: Promise<void> | undefined;
    /** The tenant's receipts (another tenant's too, so tenancy is tested), seeded once. */
    const ready = () => {
      seeded ??= seed([
        ...receipts.map((receipt) => headerItem(tenantId, receipt)),
        ...receiptsOf(otherTenantId, 10).map((receipt) => headerItem(otherTenantId, receipt)),
        lineItem(tenantId, 2, { ID: 2, SequenceNumber: 2, InventoryID: 12, QuantityOrdered: 1.5, IsActive: false }),
        lineItem(tenantId, 2, { ID: 1, SequenceNumber: 1, InventoryID: 11, QuantityOrdered: 5, IsActive: true }),
      ]);
      return seeded;
    };
    const query = (filter: SearchFilter, extra: { after?: SearchCursor; skip?: number; take?: number } = {}) => {
      const plan = deliveryReceiptSearch.plan(filter);
      return store.readRows({
        tenantId,
        sortField: plan.sortField as ReceiptSortField,
        ascending: plan.ascending,
        criteria: searchCriteria(filter),
        compare: (a, b) => plan.compare({ item: a }, { item: b }),
        ...(extra.after ? { after: extra.after } : {}),
        skip: extra.skip ?? 0,
        take: extra.take ?? 500,
      });
    };
    const ids = (rows: readonly { readonly item: HeaderItem }[]) => rows.map((row) => row.item.ID);
    const byDate = (receipt: StoredReceipt) => receipt.DeliveryDate ?? '';
    const notCancelled = receipts.filter((receipt) => receipt.Status !== 'Cancelled');

    it('reads the matching rows in order, either way, and a cursor continues right after its row', async () => {
      await ready();
      const ascending = [...notCancelled].sort((a, b) => (byDate(a) < byDate(b) ? -1 : byDate(a) > byDate(b) ? 1 : a.ID - b.ID)).map((receipt) => receipt.ID);
      const filter = { SortField: 'DeliveryDate', SortAsc: true };

      const whole = await query(filter);
      const first = await query(filter, { skip: 3, take: 7 });
      const rest = await query(filter, { after: first.rows.at(-1)?.cursor as SearchCursor, take: 500 });
      const descending = await query({ SortField: 'ID', SortAsc: false }, { take: 5 });

      expect({
        whole: [ids(whole.rows), whole.more, whole.skipped],
        first: [ids(first.rows), first.more, first.skipped],
        rest: [ids(rest.rows), rest.more],
        descending: [ids(descending.rows), descending.more],
      }).toEqual({
        whole: [ascending, false, 0],
        first: [ascending.slice(3, 10), true, 3],
        rest: [ascending.slice(10), false],
        descending: [notCancelled.map((receipt) => receipt.ID).reverse().slice(0, 5), true],
      });
    });

    it('reads exactly the rows the criteria match, and counts them', async () => {
      await ready();
      const cases: [SearchFilter, (receipt: StoredReceipt) => boolean][] = [
        [{ IncludeDeleted: true }, () => true],
        [{ StatusStrings: ['Cancelled', 'Complete'] }, (receipt) => receipt.Status === 'Cancelled' || receipt.Status === 'Complete'],
        [{ SearchString: 'évora', IncludeDeleted: true }, (receipt) => receipt.SupplierName === 'Évora Imports'],
        [{ SearchString: 'PO-', IncludeDeleted: true }, (receipt) => receipt.RefNumber.startsWith('po-')],
        [{ LinkedSupplierID: 102, IncludeDeleted: true }, (receipt) => receipt.SupplierID === 102],
        [{ StartDate: '2026-03-03T00:00:00Z', EndDate: '2026-03-05T00:00:00Z', IncludeDeleted: true }, (receipt) => byDate(receipt) >= '2026-03-03' && byDate(receipt) <= '2026-03-05'],
        [{ GUIDs: ['00000000-0000-4000-8000-000000000007', '00000000-0000-4000-8000-000000000004'], IncludeDeleted: true }, (receipt) => receipt.ID === 7 || receipt.ID === 4],
      ];
      const found = [];
      for (const [filter] of cases) {
        found.push({ rows: ids((await query({ ...filter, SortField: 'ID' })).rows), count: await store.count(tenantId, searchCriteria(filter)) });
      }

      expect(found).toEqual(
        cases.map(([, keep]) => {
          const rows = receipts.filter(keep).map((receipt) => receipt.ID);
          return { rows, count: rows.length };
        }),
      );
    });

    it('reads headers by ID (those that exist, of the tenant only) and a receipt’s every line in SequenceNumber order', async () => {
      await ready();
      const headers = (await store.readHeaders(tenantId, [5, 999, 2])).map((item) => item.ID).sort((a, b) => Number(a) - Number(b));

      expect({
        headers,
        otherTenant: await store.readHeaders(freshTenantId(), [5]),
        lines: (await store.readLines(tenantId, 2)).map((line) => [line.SequenceNumber, line.IsActive]),
        none: await store.readLines(tenantId, 3),
        otherTenantLines: await store.readLines(otherTenantId, 2),
      }).toEqual({ headers: [2, 5], otherTenant: [], lines: [[1, true], [2, false]], none: [], otherTenantLines: [] });
    });

    it('keeps a continuation for its tenant and query until it expires', async () => {
      await ready();
      const filter = { SortField: 'ID' };
      const { rows } = await query(filter, { take: 4 });
      const cursor = rows.at(-1)?.cursor as SearchCursor;
      const now = new Date('2026-04-01T00:00:00.000Z');
      await store.writeContinuation(tenantId, 'query-a', 4, cursor, new Date(now.getTime() + 3_600_000));

      const kept = await store.readContinuation(tenantId, 'query-a', 4, now);
      expect({
        continued: ids((await query(filter, { after: kept as SearchCursor, take: 3 })).rows),
        otherRow: await store.readContinuation(tenantId, 'query-a', 5, now),
        otherQuery: await store.readContinuation(tenantId, 'query-b', 4, now),
        otherTenant: await store.readContinuation(otherTenantId, 'query-a', 4, now),
        expired: await store.readContinuation(tenantId, 'query-a', 4, new Date(now.getTime() + 3_600_000)),
      }).toEqual({ continued: ids((await query(filter, { skip: 4, take: 3 })).rows), otherRow: undefined, otherQuery: undefined, otherTenant: undefined, expired: undefined });
    });
  });
