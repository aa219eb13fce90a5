// OpenAPI examples: stock on hand, as the delivery-receipt run (delivery-receipts.ts) leaves it: 8 of item 11 in
// warehouse 3.
import { envelope } from './envelopes';
import type { AreaExamples } from './types';

export const inventoryExamples: AreaExamples = {
  operations: {
    inventoryGetDetailedSOHV2: {
      parameters: { id: 11 },
      responses: { 200: envelope({ InventoryID: 11, StockOnHand: [{ WarehouseID: 3, TotalSOH: 8 }], TotalSOH: 8 }) },
    },
  },
  run: [{ operationId: 'inventoryGetDetailedSOHV2', status: 200 }],
};
