// Domain + storage: stock on hand of an inventory item, as completed delivery receipts put it (one item per
// warehouse in the item's own partition, shared/delivery-receipts/keys.ts). Read strongly consistent with DynamoDB's
// exact decimals: the warehouse figures are summed as integers, never as doubles.
import type { TableContext } from '../data/client';
import { NotFound } from '../errors';
import { formatUnits, quantityScale } from '../delivery-receipts/decimal';
import { decimalText, queryRawItems } from '../delivery-receipts/exact-items';
import { stockOnHandPartition } from '../delivery-receipts/keys';
import { parseDecimal } from '../money/amount';
import type { InventoryStockOnHandT } from '../schemas/inventory';

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

const warehousePrefix = 'WH#';

/** Decimal text as integer units of 10^-scale (stock is a sum of quantities of at most `scale` places). */
const unitsOf = (text: string, scale: number): bigint => {
  const { negative, coefficient, scale: digits } = parseDecimal(text);
  if (digits > scale) throw new Error(`stock on hand ${text} has more than ${scale} decimal places`);
  const units = coefficient * 10n ** BigInt(scale - digits);
  return negative ? -units : units;
};

/** The stock of an item in every warehouse of the tenant, or undefined when none was ever recorded. */
export const readItemStock = async (table: TableContext, tenantId: number, inventoryId: number): Promise<ItemStock | undefined> => {
  const items = await queryRawItems(table, stockOnHandPartition(tenantId, inventoryId), warehousePrefix, {
    ProjectionExpression: 'WarehouseID, TotalSOH',
  });
  if (items.length === 0) return undefined;
  const warehouses = items.map((item) => ({
    warehouseId: Number(decimalText(item, 'WarehouseID')),
    totalSOH: formatUnits(unitsOf(decimalText(item, 'TotalSOH') ?? '0', quantityScale), quantityScale),
  }));
  const total = warehouses.reduce((sum, warehouse) => sum + unitsOf(warehouse.totalSOH, quantityScale), 0n);
  return { inventoryId, warehouses, totalSOH: formatUnits(total, quantityScale) };
};

/**
 * `InventoryStockOnHandT` of the caller's tenant. An item this tenant never received stock of answers 404: this
 * service holds no inventory master, so "no stock record" is all it can say about an unknown item, and a 404 shows
 * a mistyped ID instead of a plausible zero. Numbers are the nearest JSON numbers of the exact decimals, which are
 * the decimals themselves up to 15 significant digits (9,999,999,999.99999).
 */
export const stockOnHandView = async (table: TableContext, tenantId: number, inventoryId: number): Promise<InventoryStockOnHandT> => {
  const stock = await readItemStock(table, tenantId, inventoryId);
  if (!stock) throw new NotFound(`No stock of inventory item ${inventoryId} has been received.`);
  return {
    InventoryID: inventoryId,
    StockOnHand: stock.warehouses.map((warehouse) => ({ WarehouseID: warehouse.warehouseId, TotalSOH: Number(warehouse.totalSOH) })),
    TotalSOH: Number(stock.totalSOH),
  };
};
