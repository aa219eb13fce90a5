// Domain (inventory): the stock-on-hand view of an item, over the store the area declares (./store.ts).
import { jsonNumberOf } from '#shared/decimal/index';
import { NotFound } from '#shared/errors';
import type { InventoryStockOnHandT } from '#shared/schemas/inventory';
import type { StockStore } from './store';

export interface InventoryService {
  stockOnHandView(tenantId: number, inventoryId: number): Promise<InventoryStockOnHandT>;
}

/**
 * `InventoryStockOnHandT` of the caller's tenant. An item this tenant never received stock of answers 404: this
 * service holds no inventory master, so "no stock record" is all it can say about an unknown item, and a 404 shows
 * a mistyped ID instead of a plausible zero. Numbers are the exact decimals, digit for digit, past a double's 15
 * significant digits too (`jsonNumberOf`).
 */
export const createInventoryService = ({ store }: { readonly store: StockStore }): InventoryService => ({
  stockOnHandView: async (tenantId, inventoryId) => {
    const stock = await store.readItemStock(tenantId, inventoryId);
    if (!stock) throw new NotFound(`No stock of inventory item ${inventoryId} has been received.`);
    return {
      InventoryID: inventoryId,
      StockOnHand: stock.warehouses.map((warehouse) => ({ WarehouseID: warehouse.warehouseId, TotalSOH: jsonNumberOf(warehouse.totalSOH) })),
      TotalSOH: jsonNumberOf(stock.totalSOH),
    };
  },
});
