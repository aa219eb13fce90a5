// End to end: the receiving lifecycle over HTTP, row by row of the state table (shared/delivery-receipts/README.md):
// Draft -> InProgress (Started*) -> Complete (Completed*, stock on hand exactly the good quantities, lines stamped),
// or Cancelled; AllowedStatuses at each step; read-only receipts accept InternalNote and Attachments only; a large
// receipt answers 202 Completing and completes through the queue; a refused completion leaves receipt and stock
// untouched.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '#test/support/document-events';
import { api, tokenFor } from '#test/support/http';
import { viewOf } from '#test/support/responses';
import { freshTenantId } from '#test/support/tenant-items';
import { addInventory, getReceipt, linesOf, openReceiptTable, saveReceipt, type Receipt } from './support';

const tenant = freshTenantId();
const table = openReceiptTable();
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant, user: 5 });
});
afterAll(() => table.close());

interface StockBody {
  readonly Value: { InventoryID: number; StockOnHand: { WarehouseID: number; TotalSOH: number }[]; TotalSOH: number };
}

const stockOf = async (inventoryId: number) => {
  const response = await api<StockBody>(`/v2/Inventory/${inventoryId}/stockonhand`, { token });
  return response.status === 404 ? [] : response.json.Value.StockOnHand;
};

const save = async (value: Parameters<typeof saveReceipt>[1], status = 200) => {
  const response = await saveReceipt(token, value);
  expect(viewOf(response)).toMatchObject({ status });
  return response.json.Value;
};

const allowedOf = async (id: number) => (await getReceipt(token, id)).json.AllowedStatuses;

describe('the state table', () => {
  it('Draft -> InProgress -> Complete: stamps, AllowedStatuses, stock on hand exactly the received quantities', async () => {
    const created = await save(
      {
        WarehouseID: 4,
        Lines: [
          { InventoryID: 7001, QuantityOrdered: 10, QuantityReceived: 2.125, QuantityFaulty: 3 },
          { InventoryID: 7001, QuantityOrdered: 5, QuantityReceived: 0.875, QuantityOutOfDate: 1 },
          { InventoryID: 7002, QuantityOrdered: 4, QuantityIncorrect: 4 },
        ],
      },
      201,
    );
    expect(created).toMatchObject({ Status: 'Draft', FriendlyStatus: 'Draft', IsReadOnly: false });
    expect(await allowedOf(created.ID)).toEqual(['InProgress', 'Cancelled']);

    const started = await save({ ID: created.ID, Version: 1, Status: 'inprogress' });
    expect(started).toMatchObject({ Status: 'InProgress', FriendlyStatus: 'In progress', StartedByUserID: 5, StartedDateTime_utc: started.ModifiedDateTime_utc, Version: 2 });
    expect(await allowedOf(created.ID)).toEqual(['Complete', 'Cancelled']);

    const completed = await save({ ID: created.ID, Version: 2, Status: 'Complete' });
    expect(completed).toMatchObject({ Status: 'Complete', FriendlyStatus: 'Complete', IsReadOnly: true, CompletedByUserID: 5, Version: 3 });
    // The completion is a write: it moved the modified stamps with the Version (never older than CompletedDateTime_utc).
    expect(completed).toMatchObject({ ModifiedByUserID: 5, ModifiedDateTime_utc: completed.CompletedDateTime_utc });
    expect(Date.parse(completed.ModifiedDateTime_utc as string)).toBeGreaterThanOrEqual(Date.parse(started.ModifiedDateTime_utc as string));
    expect(completed.Lines.slice(0, 2).every((line: Receipt['Lines'][number]) => line.IsStockAdjustmentComplete && line.ReceivedByUserID === 5)).toBe(true);
    expect(completed.Lines[2]?.IsStockAdjustmentComplete).toBeUndefined();
    expect(await allowedOf(created.ID)).toEqual([]);
    // 2.125 + 0.875 of item 7001, grouped; faulty, out-of-date and incorrect never add stock.
    expect(await stockOf(7001)).toEqual([{ WarehouseID: 4, TotalSOH: 3 }]);
    expect(await stockOf(7002)).toEqual([]);
  });

  it('commits the body with the completion: lines changed and Complete in one save', async () => {
    const created = await save({ Status: 'InProgress', Lines: [{ InventoryID: 7101, QuantityOrdered: 2 }] }, 201);
    const completed = await save({ ID: created.ID, Status: 'Complete', WarehouseID: 8, Lines: [{ ID: 1, QuantityReceived: 2 }] });
    expect(completed).toMatchObject({ Status: 'Complete', WarehouseID: 8, Version: 3 });
    expect(await stockOf(7101)).toEqual([{ WarehouseID: 8, TotalSOH: 2 }]);
  });

  it('a read-only receipt takes InternalNote and Attachments, and refuses anything else (409) and add inventory', async () => {
    const created = await save({ Status: 'InProgress', WarehouseID: 1, Lines: [{ InventoryID: 7201, QuantityReceived: 1 }] }, 201);
    const completed = await save({ ID: created.ID, Status: 'Complete' });
    const noted = await save({ ID: created.ID, InternalNote: 'Checked by QA', Attachments: [{ Title: 'Delivery note', URI: 'https://files.example/dn.pdf' }] });
    expect(noted).toMatchObject({ Status: 'Complete', InternalNote: 'Checked by QA', Version: completed.Version + 1 });
    const fetched = (await getReceipt(token, created.ID)).json.Value;
    expect((await saveReceipt(token, fetched)).status).toBe(200);
    const before = await table.receiptItems(tenant, created.ID);
    for (const value of [{ ID: created.ID, SupplierName: 'Other' }, { ID: created.ID, Status: 'Cancelled' }, { ID: created.ID, Lines: [] }]) {
      expect((await saveReceipt(token, value)).status).toBe(409);
    }
    expect((await addInventory(token, created.ID, [{ InventoryID: 7201, Quantity: 5 }])).status).toBe(409);
    expect(await table.receiptItems(tenant, created.ID)).toEqual(before);
    expect(await stockOf(7201)).toEqual([{ WarehouseID: 1, TotalSOH: 1 }]);
  });

  it('Draft -> Cancelled and InProgress -> Cancelled; a cancelled receipt is read-only and moves no stock', async () => {
    const draft = await save({ WarehouseID: 2, Lines: [{ InventoryID: 7301, QuantityReceived: 1 }] }, 201);
    expect(await save({ ID: draft.ID, Status: 'Cancelled' })).toMatchObject({ Status: 'Cancelled', IsReadOnly: true });
    const started = await save({ Status: 'InProgress', WarehouseID: 2, Lines: [{ InventoryID: 7301, QuantityReceived: 1 }] }, 201);
    expect(await save({ ID: started.ID, Status: 'Cancelled' })).toMatchObject({ Status: 'Cancelled', FriendlyStatus: 'Cancelled' });
    for (const id of [draft.ID, started.ID]) {
      expect(await allowedOf(id)).toEqual([]);
      expect((await saveReceipt(token, { ID: id, Status: 'InProgress' })).status).toBe(409);
      expect((await saveReceipt(token, { ID: id, Status: 'Complete' })).status).toBe(409);
    }
    expect(await stockOf(7301)).toEqual([]);
  });

  it('a create may start InProgress or Cancelled, never Complete', async () => {
    expect(await save({ Status: 'InProgress' }, 201)).toMatchObject({ Status: 'InProgress', StartedByUserID: 5 });
    expect(await save({ Status: 'Cancelled' }, 201)).toMatchObject({ Status: 'Cancelled' });
    const refused = await saveReceipt(token, { Status: 'Complete', WarehouseID: 1 });
    expect(viewOf(refused)).toMatchObject({ status: 409, body: { detail: 'The status cannot change from Draft to Complete; allowed now: InProgress, Cancelled.' } });
  });

  it('a refused completion (a received line without InventoryID) leaves the receipt and the stock untouched', async () => {
    const started = await save({ Status: 'InProgress', WarehouseID: 3, Lines: [{ InventoryID: 7401, QuantityReceived: 2 }, { QuantityReceived: 1 }] }, 201);
    const before = await table.receiptItems(tenant, started.ID);
    const refused = await saveReceipt(token, { ID: started.ID, Status: 'Complete', InternalNote: 'would be saved' });
    expect(viewOf(refused)).toMatchObject({ status: 400, body: { errors: [{ pointer: '/Value/Lines' }] } });
    expect(await table.receiptItems(tenant, started.ID)).toEqual(before);
    expect(await stockOf(7401)).toEqual([]);
  });

  it('a receipt too large for one transaction answers 202 Completing, then completes through the queue, stock exact', async () => {
    // 150 lines of 75 items: 75 stock increments, 150 movements and 150 line stamps, in four chunks.
    const lines = linesOf(150).map((line, index) => ({ ...line, InventoryID: 7_500 + (index % 75), QuantityReceived: 0.5 }));
    const started = await save({ Status: 'InProgress', WarehouseID: 6, Lines: lines }, 201);
    const response = await saveReceipt(token, { ID: started.ID, Status: 'Complete' });
    expect(viewOf(response).status).toBe(202);
    expect(response.json.Value).toMatchObject({ Status: 'Completing', FriendlyStatus: 'Completing', IsReadOnly: true });
    const done = await eventually(
      async () => {
        const read = await getReceipt(token, started.ID);
        return read.json.Value.Status === 'Complete' ? read.json.Value : undefined;
      },
      'the queued completion',
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(done.Lines.every((line) => line.IsStockAdjustmentComplete)).toBe(true);
    expect(done.ModifiedDateTime_utc).toBe(done.CompletedDateTime_utc);
    expect(Date.parse(done.ModifiedDateTime_utc as string)).toBeGreaterThanOrEqual(Date.parse(started.ModifiedDateTime_utc as string));
    for (const item of [7_500, 7_537, 7_574]) expect(await stockOf(item)).toEqual([{ WarehouseID: 6, TotalSOH: 1 }]);
  });
});
