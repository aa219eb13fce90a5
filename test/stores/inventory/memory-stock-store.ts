// Test support: the stock store port (shared/inventory/store.ts `StockStore`) in memory, for fast unit tests of the
// inventory service. It passes the same contract suite as the DynamoDB repository (./stock-store-contract.ts, in the
// unit tier against this store, in the integration tier against DynamoDB Local). It keeps each warehouse's figure as
// DynamoDB does, an exact decimal that receiving only ever adds to (`receive`, what receipt completion's `ADD TotalSOH`
// does), and reads an item's stock through the repository's own summing (`itemStockOf`): warehouses by ID, the total
// exact at the quantity scale, a figure with more decimal places refused loudly.
import { addDecimals, formatDecimal, parseDecimal, type ExactDecimal } from '#shared/decimal/index';
import { itemStockOf } from '#shared/inventory/repository';
import type { StockStore } from '#shared/inventory/store';

const keyOf = (tenantId: number, inventoryId: number) => `${tenantId}/${inventoryId}`;

export const createMemoryStockStore = () => {
  /** `<tenant>/<item>` -> each warehouse's figure. */
  const figures = new Map<string, Map<number, ExactDecimal>>();

  const store: StockStore = {
    readItemStock: async (tenantId, inventoryId) => {
      const byWarehouse = figures.get(keyOf(tenantId, inventoryId)) ?? new Map<number, ExactDecimal>();
      return itemStockOf(
        inventoryId,
        [...byWarehouse].sort(([left], [right]) => left - right).map(([warehouseId, figure]) => ({ warehouseId, totalSOH: formatDecimal(figure) })),
      );
    },
  };

  return {
    store,
    /** Adds `quantity` (decimal text) to the item's figure in the warehouse, as a completed receipt's line does. */
    receive: async (tenantId: number, inventoryId: number, warehouseId: number, quantity: string): Promise<void> => {
      const byWarehouse = figures.get(keyOf(tenantId, inventoryId)) ?? new Map<number, ExactDecimal>();
      figures.set(keyOf(tenantId, inventoryId), byWarehouse);
      byWarehouse.set(warehouseId, addDecimals(byWarehouse.get(warehouseId) ?? parseDecimal('0'), parseDecimal(quantity)));
    },
  };
};
