// Unit tests of delivery-receipt Search's plan (shared/delivery-receipts/search.ts): what a filter becomes before
// anything is read: the index and direction, the criteria, the key condition and FilterExpression, the refusals.
import { describe, expect, it } from '@jest/globals';
import { queryExpression } from '#shared/delivery-receipts/repository';
import { deliveryReceiptSearch, matches, queryHashOf, searchCriteria } from '#shared/delivery-receipts/search';
import { searchIndexAttributes } from '#shared/delivery-receipts/search-keys';
import { ValidationFailed } from '#shared/errors';

const refusalOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationFailed) return error.errors;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('plan', () => {
  it('names the sort field as declared (any case, trimmed) and its direction; DeliveryDate ascending by default', () => {
    expect([{}, { SortField: ' refnumber ', SortAsc: false }, { SortField: 'id' }].map((filter) => {
      const { sortField, ascending, start, maxResults, countOnly } = deliveryReceiptSearch.plan(filter);
      return { sortField, ascending, start, maxResults, countOnly };
    })).toEqual([
      { sortField: 'DeliveryDate', ascending: true, start: 0, maxResults: 50, countOnly: false },
      { sortField: 'RefNumber', ascending: false, start: 0, maxResults: 50, countOnly: false },
      { sortField: 'ID', ascending: true, start: 0, maxResults: 50, countOnly: false },
    ]);
  });

  it('refuses members of Object.prototype as sort fields, and members it does not apply', () => {
    for (const SortField of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(refusalOf(() => deliveryReceiptSearch.plan({ SortField }))).toEqual([
        { pointer: '/SortField', detail: 'must be DeliveryDate, CreatedDateTime_utc, RefNumber or ID' },
      ]);
    }
    expect(refusalOf(() => deliveryReceiptSearch.plan({ IsExactMatch: true, ParentID: 3 } as never))).toEqual([
      { pointer: '/IsExactMatch', detail: 'does not apply to delivery receipts' },
      { pointer: '/ParentID', detail: 'does not apply to delivery receipts' },
    ]);
  });
});

describe('searchCriteria', () => {
  it('leaves Cancelled out by default, keeps every status with IncludeDeleted, and takes the union of the status lists', () => {
    expect(searchCriteria({})).toEqual({ statuses: ['Draft', 'InProgress', 'Completing', 'Complete'] });
    expect(searchCriteria({ IncludeDeleted: true })).toEqual({});
    expect(searchCriteria({ Statuses: [4], StatusStrings: ['draft'], Status: [' COMPLETE '] })).toEqual({ statuses: ['Cancelled', 'Draft', 'Complete'] });
  });

  it('normalises text, dates, GUIDs and IDs', () => {
    expect(
      searchCriteria({
        SearchString: '  ',
        Search: ' ＡCME ',
        StartDate: '2026-03-01T08:00:00+08:00',
        EndDate: '2026-03-31T23:59:59Z',
        GUIDs: ['AAAAAAAA-0000-4000-8000-000000000001'],
        IDs: [3, 3, 1],
        LinkedSupplierID: 7,
        IncludeDeleted: true,
      }),
    ).toEqual({
      text: 'acme',
      from: '2026-03-01',
      to: '2026-03-31T23:59:59.000Z',
      supplierId: 7,
      ids: [3, 1],
      guids: ['aaaaaaaa-0000-4000-8000-000000000001'],
    });
  });

  it('refuses every bad member at once', () => {
    expect(refusalOf(() => searchCriteria({ Statuses: [5, -1], StatusStrings: ['Open'], GUIDs: ['x'], StartDate: 'soon' }))).toEqual([
      { pointer: '/Statuses/0', detail: 'must be 0 (Draft), 1 (InProgress), 2 (Completing), 3 (Complete), 4 (Cancelled)' },
      { pointer: '/Statuses/1', detail: 'must be 0 (Draft), 1 (InProgress), 2 (Completing), 3 (Complete), 4 (Cancelled)' },
      { pointer: '/StatusStrings/0', detail: 'must be one of Draft, InProgress, Completing, Complete, Cancelled' },
      { pointer: '/StartDate', detail: 'must be an ISO 8601 date-time' },
      { pointer: '/GUIDs/0', detail: 'must be a GUID' },
    ]);
    const guids = Array.from({ length: 51 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);
    expect(refusalOf(() => searchCriteria({ GUIDs: guids }))).toEqual([{ pointer: '/GUIDs', detail: 'must have at most 50 items' }]);
  });
});

describe('queryExpression', () => {
  it('reads one shard of the tenant; a date range is the key condition of the DeliveryDate index, a filter elsewhere', () => {
    const criteria = searchCriteria({ StartDate: '2026-03-01T00:00:00Z', EndDate: '2026-03-02T00:00:00Z', Status: ['Draft'], SearchString: 'Acme', LinkedSupplierID: 4 });
    expect(queryExpression(42, 3, 'DeliveryDate', criteria)).toEqual({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
      FilterExpression: '(#status IN (:status0) OR attribute_not_exists(#status)) AND contains(#text, :text) AND #supplier = :supplier',
      ExpressionAttributeNames: { '#pk': 'gsi2pk', '#sk': 'gsi2sk', '#status': 'Status', '#text': 'searchText', '#supplier': 'SupplierID' },
      ExpressionAttributeValues: { ':pk': 'T#42#DRS#3', ':low': '2026-03-01', ':high': '2026-03-02T00:00:00.000Z\u0002', ':status0': 'Draft', ':text': 'acme', ':supplier': 4 },
    });
    expect(queryExpression(42, 0, 'RefNumber', searchCriteria({ EndDate: '2026-03-02T00:00:00Z', IncludeDeleted: true }))).toEqual({
      KeyConditionExpression: '#pk = :pk',
      FilterExpression: '(#date >= :low AND #date < :high)',
      ExpressionAttributeNames: { '#pk': 'gsi4pk', '#date': 'gsi2sk' },
      ExpressionAttributeValues: { ':pk': 'T#42#DRS#0', ':low': '0', ':high': '2026-03-02T00:00:00.000Z\u0002' },
    });
  });

  it('agrees with `matches`, the same rules for rows read by key', () => {
    const header = { ID: 5, RefNumber: 'DR-5', DeliveryDate: '2026-03-02', CreatedDateTime_utc: '2026-01-01T00:00:00Z', Status: 'InProgress', SupplierName: 'Acme' };
    const item = { ...header, SupplierID: 4, GUID: 'AAAAAAAA-0000-4000-8000-000000000001', ...searchIndexAttributes(1, header) };
    expect(matches(item, searchCriteria({ StartDate: '2026-03-02T00:00:00Z', EndDate: '2026-03-02T00:00:00Z', SearchString: 'acme', LinkedSupplierID: 4 }))).toBe(true);
    expect(matches(item, searchCriteria({ GUIDs: ['aaaaaaaa-0000-4000-8000-000000000001'] }))).toBe(true);
    expect(matches(item, searchCriteria({ StartDate: '2026-03-02T00:00:01Z' }))).toBe(false);
    expect(matches(item, searchCriteria({ Status: ['Draft'] }))).toBe(false);
    expect(matches({ ...item, Status: 'Cancelled' }, searchCriteria({}))).toBe(false);
  });
});

describe('queryHashOf', () => {
  it('differs by tenant, order and criteria, not by page size or paging', () => {
    const hash = (tenantId: number, filter: object) => queryHashOf(tenantId, deliveryReceiptSearch.plan(filter), searchCriteria(filter));
    const base = hash(1, { SortField: 'ID' });
    expect(hash(1, { SortField: 'id', MaxResults: 7, LastRowNumber: 40 })).toBe(base);
    expect(new Set([base, hash(2, { SortField: 'ID' }), hash(1, { SortField: 'ID', SortAsc: false }), hash(1, { SortField: 'ID', SearchString: 'x' })]).size).toBe(4);
  });
});
