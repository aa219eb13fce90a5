// End to end (issue 22): POST /v2/DeliveryReceipt/ with an Idempotency-Key through the gateway. The same key and
// body twice (JSON, then XML) is the same answer, status, body and Location, and one receipt; another body with the
// key is 422. Add inventory takes no key: the same request sent again changes nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tokenFor } from '#test/support/http';
import { freshTenantId } from '#test/support/tenant-items';
import { addInventory, openReceiptTable, saveReceipt } from './support';

const table = openReceiptTable();
afterAll(() => table.close());

let tenantId: number;
let token: string;
beforeAll(async () => {
  tenantId = freshTenantId();
  token = await tokenFor({ tenant: tenantId });
});

describe('POST /v2/DeliveryReceipt/ with an Idempotency-Key', () => {
  it('the same key and body twice: the same answer and one receipt; another body with the key is 422', async () => {
    const key = randomUUID();
    const body = { SupplierName: 'Keyed supplier', Lines: [{ InventoryID: 1, SKU: 'SKU-1', QuantityOrdered: 10 }] };
    const first = await saveReceipt(token, body, { key });
    expect(first.status).toBe(201);
    const again = await saveReceipt(token, body, { key, type: 'application/xml' });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const reused = await saveReceipt(token, { ...body, SupplierName: 'Another supplier' }, { key });
    expect(reused.status).toBe(422);
    expect(first.json.Value.ID).toBe(1);
    expect(await table.receiptItems(tenantId, 2)).toEqual([]);
  });

  it('add inventory sent twice changes nothing the second time (it takes no key)', async () => {
    const created = await saveReceipt(token, { SupplierName: 'Inventory supplier' });
    const id = created.json.Value.ID;
    const once = await addInventory(token, id, [{ InventoryID: 7, Quantity: 3 }]);
    const twice = await addInventory(token, id, [{ InventoryID: 7, Quantity: 3 }]);
    expect(once.status).toBe(200);
    expect(twice.json.Value.Version).toBe(once.json.Value.Version);
    expect(twice.json.Value.Lines).toEqual(once.json.Value.Lines);
  });
});
