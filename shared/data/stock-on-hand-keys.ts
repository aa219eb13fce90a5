// Data layer: where stock on hand lives in the single table. Two areas meet on this item: delivery-receipt completion
// writes it (ADD TotalSOH, once per received line) and inventory reads it, so its key builders sit here, with the
// table's key definitions, rather than in either area (neither area imports the other).
//
//   pk `T#<tenant>#SOH#<item>`     sk `WH#<warehouse>`  TotalSOH of an item in a warehouse (exact decimal, ADD only)
import { composeKey, padNumber, tenantPartition, type ItemKey } from './partition';

/** Every warehouse item of one inventory item's partition has a sort key starting with this. */
export const warehouseSortKeyPrefix = 'WH#';

/** Stock on hand of one inventory item: one item per warehouse in the item's own partition. */
export const stockOnHandPartition = (tenantId: number, inventoryId: number): string => composeKey(tenantPartition(tenantId), 'SOH', padNumber(inventoryId));
export const stockOnHandKey = (tenantId: number, inventoryId: number, warehouseId: number): ItemKey => ({
  pk: stockOnHandPartition(tenantId, inventoryId),
  sk: `${warehouseSortKeyPrefix}${padNumber(warehouseId)}`,
});
