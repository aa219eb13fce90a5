// Unit tests of the inventory service over its store port (shared/inventory/store.ts): any StockStore will do, so a
// fake one stands in for DynamoDB here (the DynamoDB adapter is tested end to end in test/e2e/inventory).
import { describe, expect, it } from '@jest/globals';
import { createInventoryService } from '#shared/inventory/service';
import type { ItemStock, StockStore } from '#shared/inventory/store';

const storeOf = (stock: ReadonlyMap<string, ItemStock>): StockStore & { readonly asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    readItemStock: async (tenantId, inventoryId) => {
      asked.push(`${tenantId}/${inventoryId}`);
      return stock.get(`${tenantId}/${inventoryId}`);
    },
  };
};

describe('stockOnHandView', () => {
  it('answers every warehouse and the exact total as JSON numbers', async () => {
    const store = storeOf(
      new Map([
        [
          '7/501',
          {
            inventoryId: 501,
            warehouses: [
              { warehouseId: 3, totalSOH: '0.3' },
              { warehouseId: 4, totalSOH: '9999999999.99999' },
            ],
            totalSOH: '10000000000.29999',
          },
        ],
      ]),
    );
    expect(await createInventoryService({ store }).stockOnHandView(7, 501)).toEqual({
      InventoryID: 501,
      StockOnHand: [
        { WarehouseID: 3, TotalSOH: 0.3 },
        { WarehouseID: 4, TotalSOH: 9999999999.99999 },
      ],
      TotalSOH: 10000000000.29999,
    });
    expect(store.asked).toEqual(['7/501']);
  });

  it('answers 404 for an item the tenant never received, asking only for the caller\'s tenant', async () => {
    const store = storeOf(new Map([['8/501', { inventoryId: 501, warehouses: [{ warehouseId: 1, totalSOH: '1' }], totalSOH: '1' }]]));
    await expect(createInventoryService({ store }).stockOnHandView(7, 501)).rejects.toMatchObject({ name: 'NotFound', status: 404 });
    expect(store.asked).toEqual(['7/501']);
  });
});
