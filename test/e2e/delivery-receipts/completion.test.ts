// End to end: completing delivery receipts through the local gateway. A small receipt goes InProgress -> Complete in
// one transaction (200); a large one answers 202 Completing and the receipt completions consumer (its own process,
// fed by the local event source mapping) makes it Complete. Stock on hand is exact through GET
// /v2/Inventory/{id}/stockonhand; another tenant sees neither the receipt nor the stock; a refused completion
// changes neither.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '#test/support/document-events';
import { api, tokenFor } from '#test/support/http';
import { freshTenantId } from '#test/support/tenant-items';
import { addInventory } from './support';
import type { DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import type { InventoryStockOnHandT } from '#shared/schemas/inventory';

interface Answer<T> {
  readonly Value: T;
  readonly IsSuccess: boolean;
  readonly Messages: string[];
}
type Receipt = DeliveryReceiptT & { readonly ID: number; readonly Version: number };

let token: string;
let otherToken: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: freshTenantId(), user: 7 });
  otherToken = await tokenFor({ tenant: freshTenantId(), user: 8 });
});

const save = (value: object, as = token) => api<Answer<Receipt>>('/v2/DeliveryReceipt/', { token: as, body: { Value: value } });
const getReceipt = (id: number, as = token) => api<Answer<Receipt> | undefined>(`/v2/DeliveryReceipt/${id}`, { token: as });
const stockOnHand = (id: number, as = token) => api<Answer<InventoryStockOnHandT>>(`/v2/Inventory/${id}/stockonhand`, { token: as });

/** Creates an InProgress receipt at warehouse 3 and returns its ID and Version. */
const createInProgress = async (lines: readonly object[]) => {
  const created = await save({ Status: 'InProgress', WarehouseID: 3, SupplierName: 'Acme', Lines: lines });
  expect(created.status).toBe(201);
  return { id: created.json.Value.ID, version: created.json.Value.Version };
};

describe('completion through Save', () => {
  it('completes a small receipt at once (200) and puts exactly the good stock on hand', async () => {
    const lines = [
      { InventoryID: 11, QuantityOrdered: 10, QuantityReceived: 2.5, QuantityFaulty: 1, QuantityOutOfDate: 0.5, QuantityIncorrect: 0.25 },
      { InventoryID: 12, QuantityReceived: 0.1 },
      { InventoryID: 11, QuantityReceived: 0.00001 },
      { InventoryID: 12, QuantityReceived: 0.2 },
      { InventoryID: 13, QuantityReceived: 0, QuantityFaulty: 3 },
    ];
    const { id, version } = await createInProgress(lines);
    const completed = await save({ ID: id, Version: version, Status: 'Complete' });
    expect(completed.status).toBe(200);
    expect(completed.json.Value).toMatchObject({ ID: id, Status: 'Complete', IsReadOnly: true, CompletedByUserID: 7 });
    expect((completed.json.Value.Lines ?? []).map((line) => line.IsStockAdjustmentComplete ?? false)).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);

    expect((await stockOnHand(11)).json).toEqual({ Value: { InventoryID: 11, StockOnHand: [{ WarehouseID: 3, TotalSOH: 2.50001 }], TotalSOH: 2.50001 }, IsSuccess: true, Messages: [] });
    expect((await stockOnHand(12)).json.Value.TotalSOH).toBe(0.3);
    expect((await stockOnHand(13)).status).toBe(404);

    // Completing again is a refused transition: 409, and the stock is untouched.
    const again = await save({ ID: id, Version: completed.json.Value.Version, Status: 'Complete', InternalNote: 'again' });
    expect(again.status).toBe(200);
    const cancel = await save({ ID: id, Status: 'Cancelled' });
    expect(cancel.status).toBe(409);
    expect((await stockOnHand(11)).json.Value.TotalSOH).toBe(2.50001);
  });

  it('completes a large receipt through the queue: 202 Completing, then Complete, stock exact', async () => {
    const lines = Array.from({ length: 300 }, (_, index) => ({ InventoryID: 1000 + index, QuantityOrdered: 5, QuantityReceived: index % 2 === 0 ? 1.1 : 0.2 }));
    const { id, version } = await createInProgress(lines);
    const completing = await save({ ID: id, Version: version, Status: 'Complete' });
    expect(completing.status).toBe(202);
    expect(completing.json.Value).toMatchObject({ ID: id, Status: 'Completing', IsReadOnly: true });

    // Read-only while Completing.
    expect((await save({ ID: id, SupplierName: 'Changed' })).status).toBe(409);

    const done = await eventually(
      async () => {
        const read = await getReceipt(id);
        return read.json?.Value?.Status === 'Complete' ? read.json.Value : undefined;
      },
      'the receipt completed by the consumer',
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(done).toMatchObject({ Status: 'Complete', CompletedByUserID: 7, SupplierName: 'Acme' });
    expect((done.Lines ?? []).every((line) => line.IsStockAdjustmentComplete === true)).toBe(true);
    expect((await stockOnHand(1000)).json.Value).toEqual({ InventoryID: 1000, StockOnHand: [{ WarehouseID: 3, TotalSOH: 1.1 }], TotalSOH: 1.1 });
    expect((await stockOnHand(1299)).json.Value.TotalSOH).toBe(0.2);
  }, 90_000);

  it('answers every one of concurrent completes without Version 200, and puts the stock on hand once', async () => {
    const { id } = await createInProgress([{ InventoryID: 31, QuantityReceived: 3.5 }]);
    const answers = await Promise.all(Array.from({ length: 5 }, () => save({ ID: id, Status: 'Complete' })));
    // Each decides from what it reads: the first completes, the others find the receipt Complete (no transition).
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    for (const answer of answers) expect(answer.json.Value).toMatchObject({ ID: id, Status: 'Complete' });
    expect((await stockOnHand(31)).json.Value.TotalSOH).toBe(3.5);
  });

  it('completes a save that changes fields even when lines are added between its commit and its completion', async () => {
    const { id } = await createInProgress([{ InventoryID: 41, QuantityOrdered: 5, QuantityReceived: 1 }]);
    const added = Array.from({ length: 8 }, (_, index) =>
      addInventory(token, id, [{ InventoryID: 42 + index, Quantity: 5, AdjustedQuantityReceived: 1 }]),
    );
    const saved = await save({ ID: id, SupplierName: 'Changed', InternalNote: 'completed in a race', Status: 'Complete' });
    const inventoryAnswers = await Promise.all(added);
    // The save is one intent: its changes and the completion, not a 409 after its changes were kept.
    expect(saved.status).toBe(200);
    expect(saved.json.Value).toMatchObject({ Status: 'Complete', SupplierName: 'Changed', InternalNote: 'completed in a race' });
    // An addition that came after the completion is refused (read-only); every other one is on hand exactly once.
    for (const answer of inventoryAnswers) expect([200, 409]).toContain(answer.status);
    const final = (await getReceipt(id)).json!.Value;
    expect(final).toMatchObject({ Status: 'Complete', SupplierName: 'Changed' });
    const onReceipt = new Set((final.Lines ?? []).map((line) => line.InventoryID));
    expect(onReceipt.size).toBe(1 + inventoryAnswers.filter((answer) => answer.status === 200).length);
    for (const inventoryId of onReceipt) expect((await stockOnHand(Number(inventoryId))).json.Value.TotalSOH).toBe(1);
  });

  it('hides a tenant\'s receipts and stock from another tenant (404), and changes nothing for it', async () => {
    const { id, version } = await createInProgress([{ InventoryID: 21, QuantityReceived: 4 }]);
    expect((await save({ ID: id, Version: version, Status: 'Complete' }, otherToken)).status).toBe(404);
    expect((await getReceipt(id, otherToken)).status).toBe(404);
    expect((await getReceipt(id)).json?.Value.Status).toBe('InProgress');
    expect((await stockOnHand(21)).status).toBe(404);
    expect((await save({ ID: id, Version: version, Status: 'Complete' })).status).toBe(200);
    expect((await stockOnHand(21)).json.Value.TotalSOH).toBe(4);
    expect((await stockOnHand(21, otherToken)).status).toBe(404);
  });
});
