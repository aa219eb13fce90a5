// Entry: POST /v2/DeliveryReceipt/: creates (201 + Location) or updates (200) a receipt; a completion that continues
// through the queue answers 202 with the receipt in Completing.
import { httpOperation, respond } from '#shared/http/operation';
import { deliveryReceiptSaveV2 } from '#shared/compiled/operations/delivery-receipts';
import { savedAnswer } from '#shared/http/answers/delivery-receipts';
import { completeReceipt } from '#shared/delivery-receipts/completion';
import { completingReceiptService } from '#shared/delivery-receipts/wiring';

const receipts = completingReceiptService(completeReceipt);

export const handler = httpOperation(deliveryReceiptSaveV2).handler(async ({ principal, body }) => {
  const answer = savedAnswer(await receipts.save(principal, body));
  return respond(answer.status, answer.body, answer.headers);
});
