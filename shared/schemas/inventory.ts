// Schemas: stock on hand of an inventory item (beyond the spec, issue 9 section 6), with the original platform's
// names (Inventory_GetDetailedSOHV2 answers ActionResults<InventoryStockOnHandT>: platform-conventions.md).
// InventoryCode and WarehouseName belong to the platform's inventory and warehouse records, which this service does
// not hold: they are declared, as the platform has them, and never filled.
import { id, listOf, shape, storableNumber, text } from './common';
import type { z } from 'zod';

/**
 * A sum of received quantities, answered as exact decimal text (shared/inventory/README.md): beyond the 1e13 of one
 * quantity, since receipts add up, and written with every digit, more than a 64-bit float may keep (read it as a
 * decimal); within what DynamoDB stores.
 */
const exactSum = () => storableNumber();

export const WarehouseStockOnHandT = shape(
  'WarehouseStockOnHandT',
  {
    WarehouseID: id(),
    WarehouseName: text().optional(),
    TotalSOH: exactSum().meta({ description: 'Stock on hand of the item in this warehouse: an exact decimal of at most 5 places.' }),
  },
  'Stock on hand of one item in one warehouse.',
);
export type WarehouseStockOnHandT = z.infer<typeof WarehouseStockOnHandT>;

export const InventoryStockOnHandT = shape(
  'InventoryStockOnHandT',
  {
    InventoryID: id(),
    InventoryCode: text().optional(),
    StockOnHand: listOf(WarehouseStockOnHandT).meta({ description: 'One entry per warehouse holding a stock record of the item, by WarehouseID.' }),
    TotalSOH: exactSum().meta({ description: 'The exact sum of StockOnHand over every warehouse.' }),
  },
  'Stock on hand of one inventory item, per warehouse and in total.',
);
export type InventoryStockOnHandT = z.infer<typeof InventoryStockOnHandT>;
