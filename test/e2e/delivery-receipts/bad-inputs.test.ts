// End to end: bad input to the delivery-receipt operations gets a 4xx problem and changes nothing: the receipt's
// partition (header, lines, movements) and its items' stock on hand are the same after each refused request (wrong
// types, reserved keys, bad quantities, over-receipt, a 1,001st line, stale versions, refused transitions, taken
// references, another tenant's ids, bad path ids).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, tokenFor } from '../../support/http';
import { viewOf } from '../../support/responses';
import { freshTenantId } from '../../support/tenant-items';
import { addInventory, linesOf, openReceiptTable, saveReceipt, type Receipt } from './support';

const tenant = freshTenantId();
const table = openReceiptTable();
let token: string;
let draft: Receipt;
let inProgress: Receipt;
let cancelled: Receipt;
let full: Receipt;

beforeAll(async () => {
  token = await tokenFor({ tenant });
  draft = (await saveReceipt(token, { RefNumber: 'PO-1', WarehouseID: 2, Lines: linesOf(3) })).json.Value;
  inProgress = (await saveReceipt(token, { Status: 'InProgress', Lines: linesOf(2, 100) })).json.Value;
  cancelled = (await saveReceipt(token, { Status: 'Cancelled', WarehouseID: 2, Lines: linesOf(1, 200) })).json.Value;
  full = (await saveReceipt(token, { Lines: linesOf(1_000, 1_000) })).json.Value;
});
afterAll(() => table.close());

/** Everything a request could change: each receipt's partition and the stock of every item on them. */
const snapshot = async () => {
  const receipts = await Promise.all([draft, inProgress, cancelled, full].map((receipt) => table.receiptItems(tenant, receipt.ID)));
  const stock = await Promise.all([1, 2, 3, 100, 101, 200].map((item) => table.stockItems(tenant, item)));
  return { receipts, stock };
};

const many = (count: number, item: object) => Array.from({ length: count }, () => item);

const refusedSaves: [string, () => unknown, number][] = [
  ['no Value', () => ({}), 400],
  ['a string for a number', () => ({ Value: { ID: draft.ID, SupplierID: '61' } }), 400],
  ['an unknown field', () => ({ Value: { ID: draft.ID, supplierName: 'x' } }), 400],
  ['a __proto__ key', () => JSON.parse(`{"Value":{"ID":${draft.ID},"__proto__":{"IsReadOnly":false}}}`) as unknown, 400],
  ['a constructor key in a line', () => ({ Value: { ID: draft.ID, Lines: [{ constructor: { prototype: 1 } }] } }), 400],
  ['a negative quantity', () => ({ Value: { ID: draft.ID, Lines: [{ ID: 1, QuantityReceived: -1 }] } }), 400],
  ['six decimals', () => ({ Value: { ID: draft.ID, Lines: [{ ID: 1, QuantityReceived: 0.000001 }] } }), 400],
  ['an over-receipt', () => ({ Value: { ID: draft.ID, Lines: [{ ID: 1, QuantityReceived: 8, QuantityFaulty: 3 }] } }), 400],
  ['an unknown line ID', () => ({ Value: { ID: draft.ID, Lines: [{ ID: 99, QuantityReceived: 1 }] } }), 400],
  ['two body lines naming one line', () => ({ Value: { ID: draft.ID, Lines: [{ ID: 1 }, { ID: 1 }] } }), 400],
  ['a 1,001st line', () => ({ Value: { ID: full.ID, Lines: [...full.Lines, { InventoryID: 5 }] } }), 400],
  ['1,001 lines in the body', () => ({ Value: { Lines: many(1_001, { InventoryID: 1 }) } }), 400],
  ['501 attachments', () => ({ Value: { ID: draft.ID, Attachments: many(501, { Title: 'x' }) } }), 400],
  ['an unknown status', () => ({ Value: { ID: draft.ID, Status: 'Shipped' } }), 400],
  ['a header too large for one DynamoDB item', () => ({ Value: { ID: draft.ID, Attachments: many(110, { Caption: 'x'.repeat(4_000) }) } }), 413],
  ['a reserved reference', () => ({ Value: { ID: draft.ID, RefNumber: 'DR-000999' } }), 400],
  ['a reference another receipt holds', () => ({ Value: { ID: inProgress.ID, RefNumber: 'po-1' } }), 409],
  ['a stale Version', () => ({ Value: { ID: draft.ID, Version: 7, InternalNote: 'x' } }), 409],
  ['Draft -> Complete', () => ({ Value: { ID: draft.ID, Status: 'Complete' } }), 409],
  ['Draft -> Completing', () => ({ Value: { ID: draft.ID, Status: 'Completing' } }), 409],
  ['InProgress -> Draft', () => ({ Value: { ID: inProgress.ID, Status: 'Draft' } }), 409],
  ['InProgress -> Complete without a WarehouseID', () => ({ Value: { ID: inProgress.ID, Status: 'Complete', InternalNote: 'go' } }), 400],
  ['Cancelled -> InProgress', () => ({ Value: { ID: cancelled.ID, Status: 'InProgress' } }), 409],
  ['a change to a cancelled receipt', () => ({ Value: { ID: cancelled.ID, SupplierName: 'Other', InternalNote: 'ok' } }), 409],
  ['a line change on a cancelled receipt', () => ({ Value: { ID: cancelled.ID, Lines: [{ ID: 1, QuantityReceived: 1 }] } }), 409],
  ['another tenant in the envelope', () => ({ TenantID: tenant + 1, Value: { ID: draft.ID } }), 403],
  ['another tenant in the receipt', () => ({ Value: { ID: draft.ID, TenantID: tenant + 1 } }), 403],
  ['an ID that is not the tenant\'s', () => ({ Value: { ID: 2_000_000_000, InternalNote: 'x' } }), 404],
];

const refusedInventory: [string, () => number, unknown, number][] = [
  ['no InventoryList', () => draft.ID, { Value: {} }, 400],
  ['an empty InventoryList', () => draft.ID, { Value: { InventoryList: [] } }, 400],
  ['no InventoryID', () => draft.ID, { Value: { InventoryList: [{ Quantity: 1 }] } }, 400],
  ['one InventoryID twice', () => draft.ID, { Value: { InventoryList: [{ InventoryID: 1 }, { InventoryID: 1 }] } }, 400],
  ['a LineTotal off by a cent', () => draft.ID, { Value: { InventoryList: [{ InventoryID: 7, Quantity: 3, BuyPriceEx: 1.5, LineTotal: 4.51 }] } }, 400],
  ['a LineTotal without a price', () => draft.ID, { Value: { InventoryList: [{ InventoryID: 7, Quantity: 3, LineTotal: 4.5 }] } }, 400],
  ['a negative Quantity', () => draft.ID, { Value: { InventoryList: [{ InventoryID: 7, Quantity: -3 }] } }, 400],
  ['an over-receipt', () => draft.ID, { Value: { InventoryList: [{ InventoryID: 7, Quantity: 1, AdjustedQuantityReceived: 2 }] } }, 400],
  ['a 1,001st line', () => full.ID, { Value: { InventoryList: [{ InventoryID: 1, Quantity: 1 }] } }, 400],
  ['a cancelled receipt', () => cancelled.ID, { Value: { InventoryList: [{ InventoryID: 7, Quantity: 1 }] } }, 409],
  ['an unknown receipt', () => 2_000_000_000, { Value: { InventoryList: [{ InventoryID: 7, Quantity: 1 }] } }, 404],
  ['a __proto__ key', () => draft.ID, JSON.parse('{"Value":{"InventoryList":[{"InventoryID":7,"__proto__":{"x":1}}]}}') as unknown, 400],
];

describe('refused requests change nothing', () => {
  it.each(refusedSaves)('Save with %s answers %i', async (_name, body, status) => {
    const before = await snapshot();
    const response = await api('/v2/DeliveryReceipt/', { method: 'POST', token, body: body() });
    expect(viewOf(response)).toMatchObject({ status, body: { status, IsSuccess: false, ErrorCode: status } });
    expect(await snapshot()).toEqual(before);
  });

  it.each(refusedInventory)('add inventory with %s answers %i', async (_name, id, body, status) => {
    const before = await snapshot();
    const response = await api(`/v2/DeliveryReceipt/${id()}/inventory`, { method: 'POST', token, body });
    expect(viewOf(response)).toMatchObject({ status, body: { status, IsSuccess: false } });
    expect(await snapshot()).toEqual(before);
  });

  it.each(['0', '-1', '1.5', '1e3', '2147483648', 'abc'])('refuses the path id %s (400) on Get and add inventory', async (id) => {
    expect(viewOf(await api(`/v2/DeliveryReceipt/${id}`, { token })).status).toBe(400);
    expect(viewOf(await addInventory(token, id, [{ InventoryID: 1 }])).status).toBe(400);
  });

  it('names the allowed transitions in a refused one', async () => {
    const response = await api('/v2/DeliveryReceipt/', { method: 'POST', token, body: { Value: { ID: draft.ID, Status: 'Complete' } } });
    expect(response.json).toMatchObject({
      status: 409,
      detail: 'The status cannot change from Draft to Complete; allowed now: InProgress, Cancelled.',
      errors: [{ pointer: '/Value/Status', detail: 'allowed now: InProgress, Cancelled' }],
    });
  });
});
