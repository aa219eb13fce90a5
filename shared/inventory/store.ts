// Domain port (inventory): what the stock-on-hand service needs from storage. The DynamoDB adapter is
// repository.ts; the unit tests' in-memory store (test/stores/inventory/memory-stock-store.ts) passes the same
// contract suite.

/** Stock on hand of one warehouse, as exact decimal text. */
export interface WarehouseStock {
  readonly warehouseId: number;
  readonly totalSOH: string;
}

export interface ItemStock {
  readonly inventoryId: number;
  readonly warehouses: readonly WarehouseStock[];
  /** The exact sum over the warehouses, as decimal text. */
  readonly totalSOH: string;
}

export interface StockStore {
  /** The stock of an item in every warehouse of the tenant (strongly consistent), or undefined when none was recorded. */
  readItemStock(tenantId: number, inventoryId: number): Promise<ItemStock | undefined>;
}
