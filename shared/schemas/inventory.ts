// Schemas: stock on hand of an inventory item (beyond the spec, issue 9 section 6), with the original platform's
// names (Inventory_GetDetailedSOHV2 answers ActionResults<InventoryStockOnHandT>: platform-conventions.md).
// InventoryCode and WarehouseName belong to the platform's inventory and warehouse records, which this service does
// not hold: they are declared, as the platform has them, and never filled.
import { decimal, id, listOf, shape, text } from './common';
import type { z } from 'zod';

export const WarehouseStockOnHandT = shape(
  'WarehouseStockOnHandT',
  {
    WarehouseID: id(),
    WarehouseName: text().optional(),
    TotalSOH: decimal().meta({ description: 'Stock on hand of the item in this warehouse: an exact decimal of at most 5 places.' }),
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
    TotalSOH: decimal().meta({ description: 'The exact sum of StockOnHand over every warehouse.' }),
  },
  'Stock on hand of one inventory item, per warehouse and in total.',
);
export type InventoryStockOnHandT = z.infer<typeof InventoryStockOnHandT>;
