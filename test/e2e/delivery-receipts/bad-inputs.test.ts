// End to end: bad input to the delivery-receipt operations gets a 4xx problem and changes nothing: the receipt's
// partition (header, lines, movements) and its items' stock on hand are the same after each refused request (wrong
// types, reserved keys, bad quantities, over-receipt, a 1,001st line, stale versions, refused transitions, taken
// references, another tenant's ids, bad path ids).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, tokenFor } from '#test/support/http';
import { viewOf } from '#test/support/responses';
import { refusedInventory, refusedPathIds, refusedReceiptSaves, type ReceiptTarget } from '#test/support/refused-bodies';
import { freshTenantId } from '#test/support/tenant-items';
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

const receiptIds = () => ({ tenant, draft: draft.ID, inProgress: inProgress.ID, cancelled: cancelled.ID, full: full.ID, fullLines: full.Lines });
const receiptTargets = (): Record<ReceiptTarget, number> => ({ draft: draft.ID, full: full.ID, cancelled: cancelled.ID, missing: 2_000_000_000 });

// The bodies name receipts created in beforeAll, so each case reads its body when it runs.
const refusedSaves = refusedReceiptSaves({ tenant, draft: 0, inProgress: 0, cancelled: 0, full: 0, fullLines: [] }).map(
  ([name, , status], index) => [name, () => refusedReceiptSaves(receiptIds())[index]?.[1], status] as const,
);
const refusedInventoryCases = refusedInventory.map(([name, target, body, status]) => [name, () => receiptTargets()[target], body, status] as const);

describe('refused requests change nothing', () => {
  it.each(refusedSaves)('Save with %s answers %i', async (_name, body, status) => {
    const before = await snapshot();
    const response = await api('/v2/DeliveryReceipt/', { method: 'POST', token, body: body() });
    expect(viewOf(response)).toMatchObject({ status, body: { status, IsSuccess: false, ErrorCode: status } });
    expect(await snapshot()).toEqual(before);
  });

  it.each(refusedInventoryCases)('add inventory with %s answers %i', async (_name, id, body, status) => {
    const before = await snapshot();
    const response = await api(`/v2/DeliveryReceipt/${id()}/inventory`, { method: 'POST', token, body });
    expect(viewOf(response)).toMatchObject({ status, body: { status, IsSuccess: false } });
    expect(await snapshot()).toEqual(before);
  });

  it.each(refusedPathIds)('refuses the path id %s (400) on Get and add inventory', async (id) => {
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
