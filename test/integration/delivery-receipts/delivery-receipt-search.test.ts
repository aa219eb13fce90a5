// Integration tests of delivery-receipt Search (shared/delivery-receipts/search.ts over repository.ts's search store) on DynamoDB Local: the four
// sharded indexes read in order and merged, the filters as FilterExpressions, paging through cached
// continuations, the fallback without one, tenancy, and what a page costs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/principal';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { tenantPartition } from '#shared/data/partition';
import { continuationKey, headerKey } from '#shared/delivery-receipts/keys';
import { createSearchRepository } from '#shared/delivery-receipts/repository';
import { createDeliveryReceiptSearch, queryHashOf, deliveryReceiptSearch, searchCriteria } from '#shared/delivery-receipts/search';
import { ApiError } from '#shared/errors';
import type { SearchFilterMembers as SearchFilter } from '#shared/schemas/search-filter';
import { attachCapacityMeter } from '#test/bench/capacity';
import { batchWriteAll } from '#test/bench/seed';
import { lineItem, receiptsOf, seedReceipts, type StoredReceipt } from '#test/support/delivery-receipt-search-seed';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { freshTenantId } from '#test/support/tenant-items';
import { freshPrincipal, openReceipts } from './support';

const { tableName } = requireLocalEndpoints();
const raw = localDynamoDbClient();
const meter = attachCapacityMeter(raw);
const table: TableContext = { client: createDocumentClient(raw), tableName };
afterAll(() => raw.destroy());

let now = new Date('2026-04-01T00:00:00.000Z');
const receiptSearch = createDeliveryReceiptSearch({ store: createSearchRepository(table), clock: () => now });

const principalOf = (tenantId: number): Principal => ({ tenantId, websiteId: 1, userId: 3 });
const tenant = principalOf(freshTenantId());
const otherTenant = principalOf(freshTenantId());
const receipts = receiptsOf(tenant.tenantId, 60);
const otherReceipts = receiptsOf(otherTenant.tenantId, 30).map((receipt) => ({ ...receipt, SupplierName: 'Other tenant supplier' }));

beforeAll(async () => {
  await seedReceipts(table, tenant.tenantId, receipts);
  await seedReceipts(table, otherTenant.tenantId, otherReceipts);
  // Receipt 2 has three lines, one deactivated; receipt 4 has none.
  await batchWriteAll(table, [
    lineItem(tenant.tenantId, 2, { ID: 1, SequenceNumber: 1, InventoryID: 11, QuantityOrdered: 5, IsActive: true }),
    lineItem(tenant.tenantId, 2, { ID: 2, SequenceNumber: 2, InventoryID: 12, QuantityOrdered: 1.5, IsActive: false }),
    lineItem(tenant.tenantId, 2, { ID: 3, SequenceNumber: 3, InventoryID: 13, QuantityOrdered: 2, IsActive: true }),
  ]);
}, 60_000);

const search = (filter: SearchFilter, principal = tenant) => receiptSearch.search(principal, filter);
const ids = (page: { Value: readonly { ID?: number | undefined }[] }) => page.Value.map((row) => row.ID);
const notCancelled = (receipt: StoredReceipt) => receipt.Status !== 'Cancelled';

/** The expected orders, written independently of the index keys: dates and ISO times compare as text. */
const expectedOrder = (rows: readonly StoredReceipt[], sortField: string, ascending = true): number[] => {
  const value = (receipt: StoredReceipt): string =>
    sortField === 'DeliveryDate' ? (receipt.DeliveryDate ?? '') : sortField === 'CreatedDateTime_utc' ? receipt.CreatedDateTime_utc : sortField === 'RefNumber' ? receipt.RefNumber.toLowerCase() : '';
  const sorted = [...rows].sort((a, b) => (value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : a.ID - b.ID));
  return (ascending ? sorted : sorted.reverse()).map((receipt) => receipt.ID);
};

const refusal = async (filter: SearchFilter) => {
  try {
    await search(filter);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, errors: error.errors };
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('delivery-receipt Search: the answer', () => {
  it("by default lists the tenant's receipts but Cancelled by DeliveryDate (undated first), 50 to a page, without lines", async () => {
    const page = await search({});
    const expected = expectedOrder(receipts.filter(notCancelled), 'DeliveryDate');
    const byId = new Map(receipts.map((receipt) => [receipt.ID, receipt]));

    expect(page).toStrictEqual({
      MoreToGet: true,
      LastRowNumber: 50,
      Count: 50,
      TotalRecordCount: 51,
      Value: expected.slice(0, 50).map((id, index) => ({ ...byId.get(id), RowNumber: index + 1 })),
      IsSuccess: true,
      Messages: [],
    });
  });

  it('answers each receipt’s active lines in SequenceNumber order when IsGetBasicInfo is false, and only then', async () => {
    const page = await search({ IDs: [2, 4], IsGetBasicInfo: false, SortField: 'ID' });
    expect(page.Value.map((row) => [row.ID, row.Lines?.map((line) => [line.SequenceNumber, line.InventoryID])])).toEqual([
      [2, [[1, 11], [3, 13]]],
      [4, []],
    ]);
    expect((await search({ IDs: [2] })).Value[0]).not.toHaveProperty('Lines');
  });
});

describe('delivery-receipt Search: receipts written by the receipt service', () => {
  const { service } = openReceipts();

  it('finds what Save stored, as Get shows it, through every index; a completed receipt shows its new status', async () => {
    const principal = freshPrincipal();
    const saved = await service.save(principal, {
      Value: { SupplierName: 'Ｈarbour Traders', DeliveryDate: '2026-05-04', WarehouseID: 3, Lines: [{ InventoryID: 7, QuantityOrdered: 4, QuantityReceived: 1.5 }] },
    });
    const other = await service.save(principal, { Value: { RefNumber: 'PO-77', Status: 'InProgress' } });
    const id = saved.receipt.ID as number;
    const { receipt: shown } = await service.get(principal, id);
    const { Lines: lines, ...header } = shown;

    for (const SortField of ['DeliveryDate', 'CreatedDateTime_utc', 'RefNumber', 'ID']) {
      const page = await receiptSearch.search(principal, { SortField, SearchString: 'harbour' });
      expect(page.Value).toStrictEqual([{ ...header, RowNumber: 1 }]);
    }
    expect((await receiptSearch.search(principal, { IDs: [id], IsGetBasicInfo: false })).Value).toStrictEqual([{ ...header, RowNumber: 1, Lines: lines }]);
    expect(ids(await receiptSearch.search(principal, { SortField: 'RefNumber' }))).toEqual([id, other.receipt.ID]);

    // Draft -> InProgress -> Complete: completion moves the status; Search shows it as Get does.
    const started = await service.save(principal, { Value: { ID: id, Version: shown.Version, Status: 'InProgress' } });
    const completed = await service.save(principal, { Value: { ID: id, Version: started.receipt.Version, Status: 'Complete' } });
    const { Lines: _lines, ...completedHeader } = (await service.get(principal, id)).receipt;
    expect(completed.receipt.Status).toBe('Complete');
    expect((await receiptSearch.search(principal, { Status: ['Complete'] })).Value).toStrictEqual([{ ...completedHeader, RowNumber: 1 }]);
  });
});

describe('delivery-receipt Search: order and paging', () => {
  it.each([
    ['DeliveryDate', true],
    ['DeliveryDate', false],
    ['CreatedDateTime_utc', true],
    ['RefNumber', true],
    ['RefNumber', false],
    ['ID', false],
  ] as const)('pages through %s (ascending: %s), 7 at a time, in the index order, with no overlap or gap', async (sortField, ascending) => {
    const seen: number[] = [];
    let LastRowNumber = 0;
    for (let page = 0; page < 20; page += 1) {
      const answer = await search({ SortField: sortField.toLowerCase(), SortAsc: ascending, MaxResults: 7, LastRowNumber, IncludeDeleted: true });
      expect(answer.Value.map((row) => row.RowNumber)).toEqual(answer.Value.map((_, index) => LastRowNumber + index + 1));
      seen.push(...(ids(answer) as number[]));
      LastRowNumber = answer.LastRowNumber;
      if (!answer.MoreToGet) {
        expect(answer.TotalRecordCount).toBe(60);
        break;
      }
    }
    expect(seen).toEqual(expectedOrder(receipts, sortField, ascending));
  });

  it('reads a LastRowNumber it never gave from the start (no continuation), with the same rows', async () => {
    const expected = expectedOrder(receipts.filter(notCancelled), 'RefNumber');
    const page = await search({ SortField: 'RefNumber', LastRowNumber: 13, MaxResults: 5 });
    expect(ids(page)).toEqual(expected.slice(13, 18));
    const past = await search({ SortField: 'RefNumber', LastRowNumber: 1_000_000, MaxResults: 5 });
    expect(past).toMatchObject({ MoreToGet: false, LastRowNumber: expected.length, Count: 0, TotalRecordCount: expected.length, Value: [] });
  });

  it('continues from the continuation of the page before: the rows before it are not read again', async () => {
    const filter = { SortField: 'CreatedDateTime_utc', MaxResults: 10 } as const;
    const first = await search(filter);
    const stored = await table.client.send(
      new GetCommand({ TableName: tableName, Key: continuationKey(tenant.tenantId, queryHashOf(tenant.tenantId, deliveryReceiptSearch.plan(filter), searchCriteria(filter)), 10), ConsistentRead: true }),
    );
    expect(stored.Item).toMatchObject({ pk: tenantPartition(tenant.tenantId), entity: 'DeliveryReceiptSearchContinuation', expiresAt: now.getTime() / 1000 + 3600 });

    const { value: second, capacity } = await meter.measure(() => search({ ...filter, LastRowNumber: first.LastRowNumber }));
    expect(ids(second)).toEqual(expectedOrder(receipts.filter(notCancelled), 'CreatedDateTime_utc').slice(10, 20));
    // One Query per shard from where page 1 stopped (about 11 rows), never the 10 rows before it again.
    const queried = capacity.byCommand.QueryCommand;
    expect(queried?.requests).toBeLessThanOrEqual(12);

    // Expired (TTL not yet run): read from the start, same rows.
    now = new Date(now.getTime() + 3_601_000);
    expect(ids(await search({ ...filter, LastRowNumber: 10 }))).toEqual(ids(second));
  });

  it("never reads another tenant's continuation: the same query and row number reads the caller's own receipts", async () => {
    const filter = { SortField: 'ID', MaxResults: 5 } as const;
    const mine = await search(filter);
    const hash = (tenantId: number) => queryHashOf(tenantId, deliveryReceiptSearch.plan(filter), searchCriteria(filter));
    // The continuation of tenant A lives in A's partition; B's lookup of the same query is another key.
    expect(continuationKey(tenant.tenantId, hash(tenant.tenantId), 5).pk).toBe(tenantPartition(tenant.tenantId));
    expect(continuationKey(otherTenant.tenantId, hash(otherTenant.tenantId), 5)).not.toEqual(continuationKey(tenant.tenantId, hash(tenant.tenantId), 5));

    const theirs = await search({ ...filter, LastRowNumber: mine.LastRowNumber }, otherTenant);
    expect(ids(theirs)).toEqual(expectedOrder(otherReceipts.filter(notCancelled), 'ID').slice(5, 10));
    expect(theirs.Value.every((row) => row.TenantID === otherTenant.tenantId && row.SupplierName === 'Other tenant supplier')).toBe(true);
  });
});

describe('delivery-receipt Search: filters', () => {
  const only = (predicate: (receipt: StoredReceipt) => boolean, sortField = 'DeliveryDate') => expectedOrder(receipts.filter(predicate), sortField);

  it.each<[string, SearchFilter, (receipt: StoredReceipt) => boolean]>([
    ['Statuses (numbers)', { Statuses: [0, 3] }, (r) => r.Status === 'Draft' || r.Status === 'Complete'],
    ['StatusStrings, any case', { StatusStrings: [' inprogress '] }, (r) => r.Status === 'InProgress'],
    ['Status naming Cancelled', { Status: ['Cancelled'] }, (r) => r.Status === 'Cancelled'],
    ['IncludeDeleted', { IncludeDeleted: true }, () => true],
    ['SearchString in SupplierName, case-insensitive', { SearchString: 'BAYSIDE' }, (r) => notCancelled(r) && r.SupplierName === 'Bayside Produce'],
    ['Search in RefNumber', { Search: 'PO-' }, (r) => notCancelled(r) && r.RefNumber.startsWith('po-')],
    ['SearchString, non-ASCII', { SearchString: 'évora' }, (r) => notCancelled(r) && r.SupplierName === 'Évora Imports'],
    ['LinkedSupplierID', { LinkedSupplierID: 102 }, (r) => notCancelled(r) && r.SupplierID === 102],
    [
      'StartDate and EndDate (a date is in from its midnight)',
      { StartDate: '2026-03-03T00:00:00Z', EndDate: '2026-03-05T23:59:59+00:00' },
      (r) => notCancelled(r) && r.DeliveryDate !== undefined && r.DeliveryDate >= '2026-03-03' && r.DeliveryDate <= '2026-03-05',
    ],
    ['EndDate alone leaves undated receipts out', { EndDate: '2026-03-02T00:00:00Z' }, (r) => notCancelled(r) && r.DeliveryDate !== undefined && r.DeliveryDate <= '2026-03-02'],
    [
      'GUIDs, any case',
      { GUIDs: ['00000000-0000-4000-8000-000000000007', '00000000-0000-4000-8000-00000000000A'.toUpperCase(), '00000000-0000-4000-8000-000000000009'] },
      (r) => notCancelled(r) && [7, 9].includes(r.ID),
    ],
  ])('%s', async (_, filter, predicate) => {
    const page = await search({ ...filter, MaxResults: 500 });
    expect(ids(page)).toEqual(only(predicate));
    expect(page.TotalRecordCount).toBe(page.Count);
    // The same filter sorted by another index (the date range is then a FilterExpression) finds the same rows.
    const byRef = await search({ ...filter, SortField: 'RefNumber', MaxResults: 500 });
    expect(ids(byRef)).toEqual(only(predicate, 'RefNumber'));
  });

  it('matches nothing, and reads nothing, when StartDate is after EndDate', async () => {
    const { value, capacity } = await meter.measure(() => search({ StartDate: '2026-03-05T00:00:00Z', EndDate: '2026-03-04T23:59:59Z' }));
    expect(value).toMatchObject({ MoreToGet: false, LastRowNumber: 0, Count: 0, TotalRecordCount: 0, Value: [] });
    expect(capacity.requests).toBe(0);
  });

  it('reads IDs by key, in the requested order, with the other filters applied', async () => {
    const { value: page, capacity } = await meter.measure(() => search({ IDs: [9, 3, 4, 999, 3, 10], SortField: 'ID', SortAsc: false, StatusStrings: ['Draft', 'InProgress', 'Cancelled'] }));
    expect(ids(page)).toEqual([10, 4, 3]);
    expect(Object.keys(capacity.byCommand)).toEqual(['BatchGetItemCommand']);
  });

  it('counts only when asked (GetCountOnly): the exact count, no rows', async () => {
    const count = receipts.filter((r) => notCancelled(r) && r.SupplierID === 101).length;
    expect(await search({ GetCountOnly: true, LinkedSupplierID: 101 })).toStrictEqual({
      MoreToGet: true,
      LastRowNumber: 0,
      Count: 0,
      TotalRecordCount: count,
      Value: [],
      IsSuccess: true,
      Messages: [],
    });
    expect(await search({ GetCountOnly: true, LinkedSupplierID: 101, LastRowNumber: count })).toMatchObject({ MoreToGet: false, TotalRecordCount: count });
  });
});

describe('delivery-receipt Search: a receipt another save is writing', () => {
  // A save in chunks takes a lease that already moves the header's Version to the one the save ends with, while its
  // fields and lines are still being written. Answered as it stood, that Version named the half-written copy too:
  // a client that sent it back after the save committed was accepted, and the save's changes silently lost (a
  // bad-day review). Search now waits a lease out as Get does.
  const leased = async (tenantId: number, receiptId: number, expiresAt: number) =>
    table.client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: headerKey(tenantId, receiptId),
        UpdateExpression: 'SET SaveLease = :lease, Version = Version + :one',
        ExpressionAttributeValues: { ':lease': { id: 'a-save-in-chunks', expiresAt }, ':one': 1 },
      }),
    );
  const released = async (tenantId: number, receiptId: number) =>
    table.client.send(new UpdateCommand({ TableName: tableName, Key: headerKey(tenantId, receiptId), UpdateExpression: 'REMOVE SaveLease SET SupplierName = :name', ExpressionAttributeValues: { ':name': 'Saved in chunks' } }));

  /** Search over a store that counts its header reads and runs `afterFirst` once, after the first read answered. */
  const countingSearch = (afterFirst: () => Promise<unknown> = async () => undefined) => {
    const store = createSearchRepository(table);
    let reads = 0;
    const counted = createDeliveryReceiptSearch({
      store: {
        ...store,
        readHeaders: async (...args: Parameters<typeof store.readHeaders>) => {
          const items = await store.readHeaders(...args);
          reads += 1;
          if (reads === 1) await afterFirst();
          return items;
        },
      },
      clock: () => now,
    });
    return { search: counted, reads: () => reads };
  };

  it('answers a receipt whose save commits during the wait as that save left it, by IDs and through the indexes', async () => {
    const principal = principalOf(freshTenantId());
    await seedReceipts(table, principal.tenantId, receiptsOf(principal.tenantId, 3));
    const before = (await receiptSearch.search(principal, { IDs: [2] })).Value[0] as { Version: number };
    for (const filter of [{ IDs: [2] }, { SortField: 'ID' }] as SearchFilter[]) {
      await leased(principal.tenantId, 2, now.getTime() + 30_000);
      // The lease is released once the first read has seen it: the answer is the second read's.
      const { search: releasing, reads } = countingSearch(() => released(principal.tenantId, 2));
      const row = (await releasing.search(principal, filter)).Value.find((receipt) => receipt.ID === 2);
      expect(row).toMatchObject({ SupplierName: 'Saved in chunks' });
      expect(reads()).toBe(2);
    }
    expect(((await receiptSearch.search(principal, { IDs: [2] })).Value[0] as { Version: number }).Version).toBe(before.Version + 2);
  });

  it('does not wait for a leased receipt the answer does not show (filtered out)', async () => {
    const principal = principalOf(freshTenantId());
    const seeded = receiptsOf(principal.tenantId, 3);
    await seedReceipts(table, principal.tenantId, seeded);
    const hidden = seeded.find((receipt) => receipt.Status === 'Cancelled')?.ID as number;
    expect(hidden).toBeDefined();
    await leased(principal.tenantId, hidden, now.getTime() + 30_000);
    const { search: counted, reads } = countingSearch();
    expect(ids(await counted.search(principal, { IDs: [1, 2, 3] })).sort()).toEqual(seeded.filter((receipt) => receipt.ID !== hidden).map((receipt) => receipt.ID).sort());
    expect(reads()).toBe(1);
  });

  it('answers 409 "being saved" when the lease outlasts the wait, and a lease expired as the receipt stands', async () => {
    const principal = principalOf(freshTenantId());
    await seedReceipts(table, principal.tenantId, receiptsOf(principal.tenantId, 3));
    await leased(principal.tenantId, 2, now.getTime() + 30_000);
    const refused = await receiptSearch.search(principal, { IDs: [1, 2] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ name: 'StillBeingSaved', status: 409 });
    await leased(principal.tenantId, 2, now.getTime() - 1);
    expect(ids(await receiptSearch.search(principal, { IDs: [1, 2] }))).toEqual([1, 2]);
  }, 30_000);
});

describe('delivery-receipt Search: hostile input is a 400 and reads nothing', () => {
  it.each<[string, SearchFilter, object[]]>([
    ['a __proto__ sort field', { SortField: '__proto__' }, [{ pointer: '/SortField', detail: 'must be DeliveryDate, CreatedDateTime_utc, RefNumber or ID' }]],
    ['a constructor sort field', { SortField: 'constructor' }, [{ pointer: '/SortField', detail: 'must be DeliveryDate, CreatedDateTime_utc, RefNumber or ID' }]],
    ['a huge MaxResults', { MaxResults: 1_000_000 }, [{ pointer: '/MaxResults', detail: 'must be a whole number from 1 to 500' }]],
    ['a member Search does not apply', { IsHidden: false, CategoryIDs: [] }, [
      { pointer: '/CategoryIDs', detail: 'does not apply to delivery receipts' },
      { pointer: '/IsHidden', detail: 'does not apply to delivery receipts' },
    ]],
    ['an unknown status', { Statuses: [9], Status: ['Shipped'] }, [
      { pointer: '/Statuses/0', detail: 'must be 0 (Draft), 1 (InProgress), 2 (Completing), 3 (Complete), 4 (Cancelled)' },
      { pointer: '/Status/0', detail: 'must be one of Draft, InProgress, Completing, Complete, Cancelled' },
    ]],
    ['a GUID that is not one', { GUIDs: ['not-a-guid'] }, [{ pointer: '/GUIDs/0', detail: 'must be a GUID' }]],
  ])('%s', async (_, filter, errors) => {
    const { value, capacity } = await meter.measure(() => refusal(filter));
    expect(value).toEqual({ status: 400, errors });
    expect(capacity.requests).toBe(0);
  });
});

describe('delivery-receipt Search: a page costs in proportion to the page', () => {
  const bigTenant = principalOf(freshTenantId());
  const smallTenant = principalOf(freshTenantId());
  const big = 20_000;

  beforeAll(async () => {
    await seedReceipts(table, smallTenant.tenantId, receiptsOf(smallTenant.tenantId, 20), 6);
    await seedReceipts(table, bigTenant.tenantId, receiptsOf(bigTenant.tenantId, big), 8);
  }, 240_000);

  /** Read units and rows of page 1 and of page 5 (reached by paging forward) of 50, newest delivery first. */
  const pageCosts = async (principal: Principal) => {
    const costs: { readUnits: number; rows: number }[] = [];
    let LastRowNumber = 0;
    for (let page = 1; page <= 5; page += 1) {
      const { value, capacity } = await meter.measure(() => search({ SortField: 'DeliveryDate', SortAsc: false, MaxResults: 50, LastRowNumber }, principal));
      if (page === 1 || page === 5) costs.push({ readUnits: capacity.readUnits, rows: value.Count });
      LastRowNumber = value.LastRowNumber;
    }
    return costs as [{ readUnits: number; rows: number }, { readUnits: number; rows: number }];
  };

  it('page 5 costs within 2x of page 1, for 20 and for 20,000 receipts, and a row costs the same at both sizes (within 2x)', async () => {
    const [smallFirst, smallFifth] = await pageCosts(smallTenant);
    const [bigFirst, bigFifth] = await pageCosts(bigTenant);
    process.stdout.write(`search RCU, page 1 / page 5 of 50: 20 receipts ${smallFirst.readUnits} / ${smallFifth.readUnits}, ${big} receipts ${bigFirst.readUnits} / ${bigFifth.readUnits}\n`);

    expect(smallFifth.readUnits).toBeLessThanOrEqual(2 * smallFirst.readUnits);
    expect(bigFifth.readUnits).toBeLessThanOrEqual(2 * bigFirst.readUnits);
    // The 20-receipt tenant's only page holds 17 rows, a page of the large one 50: per row answered, within 2x.
    const perRow = smallFirst.readUnits / smallFirst.rows;
    expect(bigFirst.rows).toBe(50);
    expect(bigFirst.readUnits / bigFirst.rows).toBeLessThanOrEqual(2 * perRow);
    expect(bigFifth.readUnits / bigFifth.rows).toBeLessThanOrEqual(2 * perRow);
  }, 120_000);

  it('page 5 reads from its continuation; without one it reads the 200 rows before it too', async () => {
    const filter = { SortField: 'ID', MaxResults: 50 } as const;
    let LastRowNumber = 0;
    for (let page = 1; page < 5; page += 1) LastRowNumber = (await search({ ...filter, LastRowNumber }, bigTenant)).LastRowNumber;
    const hash = queryHashOf(bigTenant.tenantId, deliveryReceiptSearch.plan(filter), searchCriteria(filter));
    const withContinuation = await meter.measure(() => search({ ...filter, LastRowNumber }, bigTenant));
    await table.client.send(new DeleteCommand({ TableName: tableName, Key: continuationKey(bigTenant.tenantId, hash, LastRowNumber) }));
    const fromStart = await meter.measure(() => search({ ...filter, LastRowNumber }, bigTenant));
    expect(ids(fromStart.value)).toEqual(ids(withContinuation.value));
    // 250 rows read instead of 50 (rounded up to 4 KB per Query, so a little less than 5x).
    const queryUnits = (capacity: typeof fromStart.capacity) => capacity.byCommand.QueryCommand?.units ?? 0;
    expect(queryUnits(fromStart.capacity)).toBeGreaterThanOrEqual(3 * queryUnits(withContinuation.capacity));
  }, 60_000);

  it('reads no other tenant: the big tenant’s index partitions hold only its headers', async () => {
    const answer = await table.client.send(
      new QueryCommand({ TableName: tableName, IndexName: 'gsi5', KeyConditionExpression: 'gsi5pk = :pk', ExpressionAttributeValues: { ':pk': `T#${smallTenant.tenantId}#DRS#1` } }),
    );
    expect(answer.Items?.map((item) => item.TenantID)).toEqual(Array.from({ length: 5 }, () => smallTenant.tenantId));
  });
});

