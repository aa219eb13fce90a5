// End to end: GET /v2/Inventory/{id}/stockonhand over HTTP against the local stack (its function in its own
// process, with only its Query grant). Stock is put on hand by completing receipts seeded in the table (until the
// receipt Save is merged, which drives completion through HTTP): exact sums per warehouse and in total, in JSON and
// in XML; an item never received, or another tenant's, is 404; a bad id is 400.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { completeReceipt } from '#shared/delivery-receipts/completion';
import { createCompletionRepository } from '#shared/delivery-receipts/repository';
import { inventoryGetDetailedSOHV2 } from '#shared/operations/inventory';
import { api, tokenFor } from '#test/support/http';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { parseXmlAs, problem, problemHeaders, successHeaders, validationProblem, viewOf } from '#test/support/responses';
import { freshTenantId } from '#test/support/tenant-items';
import { seededVersion, seedReceipt } from '#test/integration/delivery-receipts/completion-support';
import { refusedPathIds } from '#test/support/refused-bodies';

const raw = localDynamoDbClient();
const table: TableContext = { client: createDocumentClient(raw), tableName: requireLocalEndpoints().tableName };
afterAll(() => raw.destroy());

const tenantId = freshTenantId();
let token: string;
let otherToken: string;
const stockOnHand = (id: number | string, as = token, accept = 'application/json') =>
  api(`/v2/Inventory/${id}/stockonhand`, { token: as, headers: { Accept: accept } });

beforeAll(async () => {
  token = await tokenFor({ tenant: tenantId });
  otherToken = await tokenFor({ tenant: freshTenantId() });
  const receipts = [
    { receiptId: 1, warehouseId: 3, lines: [{ InventoryID: 501, QuantityReceived: 0.1 }, { InventoryID: 501, QuantityReceived: 0.2, QuantityFaulty: 5 }] },
    { receiptId: 2, warehouseId: 3, lines: [{ InventoryID: 501, QuantityReceived: 12.34567 }, { InventoryID: 502, QuantityReceived: 1 }] },
    { receiptId: 3, warehouseId: 9, lines: [{ InventoryID: 501, QuantityReceived: 99999.99999, QuantityOutOfDate: 2 }] },
    // Past a double's 15 significant digits once summed: 9,999,999,999.99999 + 9,999,999,999,999 in one warehouse.
    { receiptId: 4, warehouseId: 5, lines: [{ InventoryID: 503, QuantityReceived: 9999999999.99999 }] },
    { receiptId: 5, warehouseId: 5, lines: [{ InventoryID: 503, QuantityReceived: 9999999999999 }] },
    { receiptId: 6, warehouseId: 6, lines: [{ InventoryID: 503, QuantityReceived: 0.00001 }] },
  ];
  for (const receipt of receipts) {
    await seedReceipt(table, { tenantId, ...receipt });
    await completeReceipt(createCompletionRepository(table), { tenantId, receiptId: receipt.receiptId, expectedVersion: seededVersion, actor: { userId: 1 }, now: new Date() });
  }
});

const expected501 = {
  InventoryID: 501,
  StockOnHand: [
    { WarehouseID: 3, TotalSOH: 12.64567 },
    { WarehouseID: 9, TotalSOH: 99999.99999 },
  ],
  TotalSOH: 100012.64566,
};

describe('GET /v2/Inventory/{id}/stockonhand', () => {
  it('answers the exact stock per warehouse and in total, in JSON', async () => {
    const view = viewOf(await stockOnHand(501));
    expect(view).toEqual({
      status: 200,
      headers: successHeaders('application/json'),
      body: { Value: expected501, IsSuccess: true, Messages: [] },
    });
    expect(viewOf(await stockOnHand(502)).body).toEqual({
      Value: { InventoryID: 502, StockOnHand: [{ WarehouseID: 3, TotalSOH: 1 }], TotalSOH: 1 },
      IsSuccess: true,
      Messages: [],
    });
  });

  it('answers the same in XML, the list repeating its element', async () => {
    const response = await stockOnHand(501, token, 'application/xml');
    const view = viewOf(response);
    expect(view.status).toBe(200);
    expect(view.headers).toEqual(successHeaders('application/xml'));
    expect(response.text.match(/<StockOnHand>/g)).toHaveLength(2);
    expect(parseXmlAs(inventoryGetDetailedSOHV2.success.schema, response.text)).toEqual({ Value: expected501, IsSuccess: true, Messages: [] });
  });

  it('answers a figure past 15 significant digits digit for digit, in JSON and in XML, never rounded to a double', async () => {
    const json = await stockOnHand(503);
    expect(json.status).toBe(200);
    expect(json.text).toContain('"StockOnHand":[{"WarehouseID":5,"TotalSOH":10009999999998.99999},{"WarehouseID":6,"TotalSOH":0.00001}]');
    expect(json.text).toContain('"TotalSOH":10009999999999}');
    const xml = await stockOnHand(503, token, 'application/xml');
    expect(xml.text).toContain('<TotalSOH>10009999999998.99999</TotalSOH>');
    expect(xml.text).toContain('<TotalSOH>10009999999999</TotalSOH>');
  });

  it('answers 404 for an item never received and for another tenant\'s item', async () => {
    for (const [id, as] of [
      [777, token],
      [501, otherToken],
    ] as const) {
      const view = viewOf(await stockOnHand(id, as));
      expect(view).toEqual({ status: 404, headers: problemHeaders(), body: problem({ status: 404, title: 'Not Found' }) });
    }
  });

  it.each(refusedPathIds)('answers 400 naming the parameter for id %s', async (id) => {
    const view = viewOf(await stockOnHand(id));
    expect(view).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ parameter: 'id', detail: 'must be a positive 32-bit integer' }]),
    });
  });
});
