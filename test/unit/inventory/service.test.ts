// Unit tests of the inventory service over the in-memory stock store (test/stores/inventory/memory-stock-store.ts,
// held to the DynamoDB repository by the store's contract suite), stocked as receipt completion stocks the table; each
// read the service makes is recorded (the DynamoDB adapter is tested end to end in test/e2e/inventory).
import { describe, expect, it } from '@jest/globals';
import { createInventoryService } from '#shared/inventory/service';
import type { StockStore } from '#shared/inventory/store';
import { createMemoryStockStore } from '#test/stores/inventory/memory-stock-store';

/** The in-memory store, with the reads asked of it as `<tenant>/<item>`. */
const recordingStore = () => {
  const memory = createMemoryStockStore();
  const asked: string[] = [];
  const store: StockStore = {
    readItemStock: (tenantId, inventoryId) => {
      asked.push(`${tenantId}/${inventoryId}`);
      return memory.store.readItemStock(tenantId, inventoryId);
    },
  };
  return { store, asked, receive: memory.receive };
};

describe('stockOnHandView', () => {
  it('answers every warehouse and the exact total as JSON numbers', async () => {
    const { store, asked, receive } = recordingStore();
    await receive(7, 501, 4, '9999999999.99999');
    await receive(7, 501, 3, '0.1');
    await receive(7, 501, 3, '0.2');

    // As JSON text, which is what a client reads: the total is a number of 16 significant digits, written digit for
    // digit whether the runtime writes it as raw JSON (the functions' Node 24) or as the double nearest to it (Node 20).
    const text = JSON.stringify(await createInventoryService({ store }).stockOnHandView(7, 501));
    expect(text).toContain('"TotalSOH":10000000000.29999}');
    expect(JSON.parse(text)).toEqual({
      InventoryID: 501,
      StockOnHand: [
        { WarehouseID: 3, TotalSOH: 0.3 },
        { WarehouseID: 4, TotalSOH: 9999999999.99999 },
      ],
      TotalSOH: 10000000000.29999,
    });
    expect(asked).toEqual(['7/501']);
  });

  it('answers 404 for an item the tenant never received, asking only for the caller\'s tenant', async () => {
    const { store, asked, receive } = recordingStore();
    await receive(8, 501, 1, '1');
    await expect(createInventoryService({ store }).stockOnHandView(7, 501)).rejects.toMatchObject({ name: 'NotFound', status: 404 });
    expect(asked).toEqual(['7/501']);
  });
});
