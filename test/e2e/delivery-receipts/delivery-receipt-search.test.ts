// End to end: delivery-receipt Search (PUT /v2/DeliveryReceipt/) through the local gateway and the real handler:
// the filter in each of the five request media types, the answer in JSON and XML (PagedActionResults), paging with
// LastRowNumber, tenancy, and hostile filters refused with a problem. Receipts are stored as a save leaves them
// (test/support/delivery-receipt-search-seed.ts).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createDocumentClient } from '#shared/data/client';
import { DeliveryReceiptSearchResult } from '#shared/schemas/delivery-receipt-search';
import { encodeBody, isXml, requestMediaTypes, responseMediaTypes } from '#test/support/bodies';
import { receiptsOf, seedReceipts, type StoredReceipt } from '#test/support/delivery-receipt-search-seed';
import { api, tokenFor } from '#test/support/http';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { parseXmlAs, problemHeaders, successHeaders, validationProblem, viewOf } from '#test/support/responses';
import { freshTenantId } from '#test/support/tenant-items';

const path = '/v2/DeliveryReceipt/';
const tenant = freshTenantId();
const otherTenant = freshTenantId();
const receipts = receiptsOf(tenant, 40);
const otherReceipts = receiptsOf(otherTenant, 12);
const byId = new Map(receipts.map((receipt) => [receipt.ID, receipt]));
let token: string;
let otherToken: string;

const raw = localDynamoDbClient();
beforeAll(async () => {
  const table = { client: createDocumentClient(raw), tableName: requireLocalEndpoints().tableName };
  await Promise.all([seedReceipts(table, tenant, receipts), seedReceipts(table, otherTenant, otherReceipts)]);
  [token, otherToken] = await Promise.all([tokenFor({ tenant }), tokenFor({ tenant: otherTenant })]);
}, 60_000);
afterAll(() => raw.destroy());

const search = (body: unknown, headers: Record<string, string> = {}, as = token) => api(path, { method: 'PUT', token: as, body: body as object, headers });

/** The answer for these receipts, in that order, one page after `start`. */
const pageOf = (ids: readonly number[], { start = 0, more = false, total }: { start?: number; more?: boolean; total?: number } = {}) => ({
  MoreToGet: more,
  LastRowNumber: start + ids.length,
  Count: ids.length,
  TotalRecordCount: total ?? start + ids.length + (more ? 1 : 0),
  Value: ids.map((id, index) => ({ ...(byId.get(id) as StoredReceipt), RowNumber: start + index + 1 })),
  IsSuccess: true,
  Messages: [],
});

/** In-progress or draft receipts of Bayside Produce (SupplierID 101: IDs 1, 6, 11, ...), newest delivery first. */
const filter = { StatusStrings: ['InProgress', 'draft'], SearchString: 'bayside', SortField: 'DeliveryDate', SortAsc: false, MaxResults: 3 };
const expectedIds = receipts
  .filter((receipt) => receipt.SupplierID === 101 && (receipt.Status === 'InProgress' || receipt.Status === 'Draft'))
  .sort((a, b) => ((b.DeliveryDate ?? '') < (a.DeliveryDate ?? '') ? -1 : (b.DeliveryDate ?? '') > (a.DeliveryDate ?? '') ? 1 : b.ID - a.ID))
  .map((receipt) => receipt.ID);

describe.each(requestMediaTypes)('Search with an %s filter', (type) => {
  test('answers the first page of the matching receipts, the same as for a JSON filter', async () => {
    const { body, headers } = encodeBody(type, filter, 'SearchFilter');
    const response = await search(body, headers);
    expect(viewOf(response)).toEqual({
      status: 200,
      headers: successHeaders('application/json'),
      body: pageOf(expectedIds.slice(0, 3), { more: true }),
    });
  });
});

describe('the answer in each response media type', () => {
  test.each(responseMediaTypes)('%s: the same PagedActionResults<DeliveryReceiptT> (XML lists repeat their element)', async (accept) => {
    const response = await search({ ...filter, MaxResults: 50 }, { Accept: accept });
    const view = viewOf(response);
    expect({ ...view, body: isXml(accept) ? parseXmlAs(DeliveryReceiptSearchResult, response.text) : view.body }).toEqual({
      status: 200,
      headers: successHeaders(accept),
      body: pageOf(expectedIds),
    });
    if (isXml(accept)) {
      expect(response.text).toContain('<PagedActionResults_DeliveryReceiptT_');
      expect(response.text.match(/<Value>/g)).toHaveLength(expectedIds.length);
    }
  });
});

describe('paging', () => {
  test('sending back the LastRowNumber given continues where the page stopped, to the end', async () => {
    const seen: number[] = [];
    let LastRowNumber = 0;
    for (let guard = 0; guard < 10; guard += 1) {
      const response = await search({ SortField: 'ID', MaxResults: 15, LastRowNumber, IncludeDeleted: true });
      expect(response.status).toBe(200);
      const page = response.json as { Value: StoredReceipt[]; LastRowNumber: number; MoreToGet: boolean; TotalRecordCount: number };
      seen.push(...page.Value.map((row) => row.ID));
      LastRowNumber = page.LastRowNumber;
      if (!page.MoreToGet) {
        expect(page.TotalRecordCount).toBe(40);
        break;
      }
    }
    expect(seen).toEqual(receipts.map((receipt) => receipt.ID));
  });

  test('no body is the default search: DeliveryDate order, Cancelled left out', async () => {
    const response = await api(path, { method: 'PUT', token });
    expect(response.status).toBe(200);
    expect((response.json as { Count: number }).Count).toBe(receipts.filter((receipt) => receipt.Status !== 'Cancelled').length);
  });

  test('a forged LastRowNumber past the end answers an empty last page', async () => {
    const response = await search({ LastRowNumber: 9_007_199_254_740_991 });
    expect(response.json).toMatchObject({ MoreToGet: false, Count: 0, Value: [] });
  });
});

describe('receipts saved through the API', () => {
  test('are found as Get shows them (without lines, or with them when IsGetBasicInfo is false), in JSON and XML', async () => {
    const ownTenant = freshTenantId();
    const own = await tokenFor({ tenant: ownTenant });
    const saved = await api('/v2/DeliveryReceipt/', {
      token: own,
      body: { Value: { SupplierName: 'Quay & Sons', DeliveryDate: '2026-06-01', Lines: [{ InventoryID: 5, QuantityOrdered: 3 }, { InventoryID: 6, QuantityOrdered: 1.25 }] } },
    });
    expect(saved.status).toBe(201);
    const id = (saved.json as { Value: { ID: number } }).Value.ID;
    const got = await api(`/v2/DeliveryReceipt/${id}`, { token: own });
    const { Lines: lines, ...header } = (got.json as { Value: StoredReceipt }).Value;

    const basic = await search({ SearchString: 'QUAY' }, {}, own);
    expect(basic.json).toEqual({ MoreToGet: false, LastRowNumber: 1, Count: 1, TotalRecordCount: 1, Value: [{ ...header, RowNumber: 1 }], IsSuccess: true, Messages: [] });
    const full = await search({ SearchString: 'QUAY', IsGetBasicInfo: false }, { Accept: 'application/xml' }, own);
    expect(parseXmlAs(DeliveryReceiptSearchResult, full.text).Value).toEqual([{ ...header, RowNumber: 1, Lines: lines }]);
    expect(full.text.match(/<Lines>/g)).toHaveLength(2);
  });
});

describe('tenancy', () => {
  test("another tenant's search, with the same filter and row number, sees only its own receipts", async () => {
    const mine = await search({ SortField: 'ID', MaxResults: 5, IncludeDeleted: true });
    const theirs = await search({ SortField: 'ID', MaxResults: 5, IncludeDeleted: true, LastRowNumber: (mine.json as { LastRowNumber: number }).LastRowNumber }, {}, otherToken);
    expect((theirs.json as { Value: StoredReceipt[] }).Value.map((row) => [row.ID, row.TenantID])).toEqual([6, 7, 8, 9, 10].map((id) => [id, otherTenant]));
    const byIds = await search({ IDs: [1, 2, 3] }, {}, otherToken);
    expect((byIds.json as { Value: StoredReceipt[] }).Value.every((row) => row.TenantID === otherTenant)).toBe(true);
  });

  test('a TenantID in the filter that is not the token’s is refused (403)', async () => {
    const response = await search({ TenantID: otherTenant });
    expect(response.status).toBe(403);
  });
});

describe('hostile filters are refused with a problem', () => {
  test.each<[string, object, object[]]>([
    ['a __proto__ sort field', { SortField: '__proto__' }, [{ pointer: '/SortField', detail: 'must be DeliveryDate, CreatedDateTime_utc, RefNumber or ID' }]],
    // The search's filter lists only the members it applies (issue 23): any other is not a member of it.
    ['a member Search does not apply', { IsApprovedForPOS: true }, [{ pointer: '/IsApprovedForPOS', detail: 'is not a known field (names are case-sensitive)' }]],
    ['an unknown status name', { StatusStrings: ['Shipped'] }, [{ pointer: '/StatusStrings/0', detail: 'must be one of Draft, InProgress, Completing, Complete, Cancelled' }]],
  ])('%s', async (_, body, errors) => {
    expect(viewOf(await search(body))).toEqual({ status: 400, headers: problemHeaders(), body: validationProblem(errors) });
  });

  test('a huge MaxResults and a __proto__ member are refused by validation, before the handler', async () => {
    expect((await search({ MaxResults: 100_000 })).status).toBe(400);
    const reserved = await search('{"__proto__":{"SortField":"ID"}}', { 'Content-Type': 'application/json' });
    expect(reserved.status).toBe(400);
  });
});
