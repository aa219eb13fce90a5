// Data layer (inventory): stock on hand of an item, as completed delivery receipts put it (one item per warehouse in
// the item's own partition, ./keys.ts). One strongly consistent Query with DynamoDB's exact decimals: the warehouse
// figures are summed as integers at the quantity scale, never as doubles.
import type { TableContext } from '#shared/data/client';
import { queryRawItems, storedNumberText } from '#shared/data/exact-items';
import { formatUnits, textToUnits } from '#shared/decimal/index';
import { quantityScale } from '#shared/schemas/limits';
import { stockOnHandPartition, warehouseSortKeyPrefix } from './keys';
import type { ItemStock, StockStore } from './store';

/** Stored stock as units of 10^-quantityScale: completion only ever adds quantities of that scale. */
const stockUnits = (text: string): bigint => {
  try {
    return textToUnits(text, quantityScale);
  } catch (error) {
    throw new Error(`stock on hand ${text} has more than ${quantityScale} decimal places`, { cause: error });
  }
};

/**
 * An item's stock from its warehouses' stored figures (decimal text, in sort-key order, i.e. by warehouse): summed as
 * integers at the quantity scale; undefined when no warehouse holds a figure. The in-memory store of the tests reads
 * through this too.
 */
export const itemStockOf = (inventoryId: number, figures: readonly { readonly warehouseId: number; readonly totalSOH: string }[]): ItemStock | undefined => {
  if (figures.length === 0) return undefined;
  let total = 0n;
  const warehouses = figures.map(({ warehouseId, totalSOH }) => {
    const units = stockUnits(totalSOH);
    total += units;
    return { warehouseId, totalSOH: formatUnits(units, quantityScale) };
  });
  return { inventoryId, warehouses, totalSOH: formatUnits(total, quantityScale) };
};

export const readItemStock = async (table: TableContext, tenantId: number, inventoryId: number): Promise<ItemStock | undefined> => {
  const items = await queryRawItems(table, stockOnHandPartition(tenantId, inventoryId), { prefix: warehouseSortKeyPrefix }, {
    ProjectionExpression: 'WarehouseID, TotalSOH',
  });
  return itemStockOf(
    inventoryId,
    items.map((item) => ({ warehouseId: Number(storedNumberText(item, 'WarehouseID')), totalSOH: storedNumberText(item, 'TotalSOH') ?? '0' })),
  );
};

/** The DynamoDB adapter of the inventory store. */
export const createStockRepository = (table: TableContext): StockStore => ({
  readItemStock: (tenantId, inventoryId) => readItemStock(table, tenantId, inventoryId),
});
