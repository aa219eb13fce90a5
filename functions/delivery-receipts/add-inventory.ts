// Entry: POST /v2/DeliveryReceipt/{id}/inventory: adds or updates one line per InventoryID of the caller's receipt.
import { httpOperation } from '#shared/http/operation';
import { deliveryReceiptAddInventory } from '#shared/compiled/operations/delivery-receipts';
import { inventoryAnswer } from '#shared/http/answers/delivery-receipts';
import { receiptService } from '#shared/delivery-receipts/wiring';

const receipts = receiptService();

export const handler = httpOperation(deliveryReceiptAddInventory).handler(async ({ principal, path, body }) =>
  inventoryAnswer(await receipts.addInventory(principal, path.id, body)),
);
