// The contract of the stock store port (shared/inventory/store.ts `StockStore`): what the stock-on-hand service relies
// on, run in the unit tier against the in-memory store (test/unit/inventory/stock-store-contract.test.ts) and in the
// integration tier against the DynamoDB repository on DynamoDB Local (test/integration/inventory/
// stock-store-contract.test.ts). Its core: an item's stock in every warehouse of the tenant, by warehouse ID, each
// figure and the total exact (decimal text, summed as integers, never doubles), nothing for an item never received or
// another tenant's, every increment counted once read (strongly consistent), and a stored figure with more decimal
// places than the quantity scale refused rather than rounded.
import { describe, expect, it } from '@jest/globals';
import type { StockStore } from '#shared/inventory/store';
import { freshTenantId } from '#test/support/tenant-items';

export interface StockStoreUnderTest {
  readonly store: StockStore;
  /** Adds `quantity` (decimal text) to an item's stock in a warehouse, as receipt completion does (`ADD TotalSOH`). */
  readonly receive: (tenantId: number, inventoryId: number, warehouseId: number, quantity: string) => Promise<void>;
}

/** The suite, over the store `open` gives (once per suite). */
export const describeStockStoreContract = (implementation: string, open: () => StockStoreUnderTest) =>
  describe(`StockStore contract: ${implementation}`, () => {
    const { store, receive } = open();

    it('has nothing for an item never received, nor for another tenant’s item or another item of the tenant', async () => {
      const tenantId = freshTenantId();
      const before = await store.readItemStock(tenantId, 501);
      await receive(tenantId, 501, 1, '2');

      expect({ before, otherTenant: await store.readItemStock(freshTenantId(), 501), otherItem: await store.readItemStock(tenantId, 502) }).toEqual({
        before: undefined,
        otherTenant: undefined,
        otherItem: undefined,
      });
    });

    it('reads every warehouse of the item by warehouse ID, each figure the exact sum of what was received, and the exact total', async () => {
      const tenantId = freshTenantId();
      await receive(tenantId, 501, 12, '0.1');
      await receive(tenantId, 501, 3, '9999999999.99999');
      await receive(tenantId, 501, 12, '0.2');
      await receive(tenantId, 501, 4, '1.5');
      await receive(tenantId, 501, 4, '-1.5');

      expect(await store.readItemStock(tenantId, 501)).toEqual({
        inventoryId: 501,
        warehouses: [
          { warehouseId: 3, totalSOH: '9999999999.99999' },
          { warehouseId: 4, totalSOH: '0' },
          { warehouseId: 12, totalSOH: '0.3' },
        ],
        totalSOH: '10000000000.29999',
      });
    });

    it('counts every increment as soon as it is written, increments received at the same time included', async () => {
      const tenantId = freshTenantId();
      const reads = [];
      for (const quantity of ['0.00001', '1.23456']) {
        await receive(tenantId, 7, 1, quantity);
        reads.push((await store.readItemStock(tenantId, 7))?.totalSOH);
      }
      await Promise.all(Array.from({ length: 6 }, () => receive(tenantId, 7, 2, '0.1')));

      expect({ reads, after: await store.readItemStock(tenantId, 7) }).toEqual({
        reads: ['0.00001', '1.23457'],
        after: { inventoryId: 7, warehouses: [{ warehouseId: 1, totalSOH: '1.23457' }, { warehouseId: 2, totalSOH: '0.6' }], totalSOH: '1.83457' },
      });
    });

    it('refuses to read a figure with more decimal places than the quantity scale, rather than round it', async () => {
      const tenantId = freshTenantId();
      await receive(tenantId, 9, 1, '1.000001');

      await expect(store.readItemStock(tenantId, 9)).rejects.toThrow('stock on hand 1.000001 has more than 5 decimal places');
    });
  });
