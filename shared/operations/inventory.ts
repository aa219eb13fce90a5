// Operations manifest: inventory. Beyond the spec (issue 9, section 6): stock on hand, so a completed delivery
// receipt's effect is visible, on the original platform's own path and operation id (Inventory_GetDetailedSOHV2).
import { ActionResults } from '#shared/schemas/envelopes';
import { InventoryStockOnHandT } from '#shared/schemas/inventory';
import { idPath, defineOperation } from './operation';

export const inventoryGetDetailedSOHV2 = defineOperation({
  operationId: 'inventoryGetDetailedSOHV2',
  summary: 'Get the stock on hand of an inventory item',
  description:
    "Beyond the spec (the original platform's Inventory_GetDetailedSOHV2): the item's stock on hand in each warehouse " +
    'of the caller\'s tenant, as completed delivery receipts put it, and the total. Exact decimals of at most 5 places. ' +
    'An item the tenant never received stock of (or another tenant\'s) answers 404. Strongly consistent: a receipt ' +
    'that answered Complete is already counted.',
  area: 'inventory',
  method: 'GET',
  path: '/v2/Inventory/{id}/stockonhand',
  module: 'stock-on-hand',
  pathParameters: idPath,
  success: { status: 200, schema: ActionResults(InventoryStockOnHandT), description: 'Stock on hand per warehouse and in total.' },
  problems: [400, 401, 404, 406],
  tableAccess: ['dynamodb:Query'],
});

export const inventoryOperations = [inventoryGetDetailedSOHV2] as const;
