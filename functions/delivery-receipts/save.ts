// Entry: POST /v2/DeliveryReceipt/: creates (201 + Location) or updates (200) a receipt; a completion that continues
// through the queue answers 202 with the receipt in Completing. Once per Idempotency-Key: the key's claim is written
// in the receipt's own transaction (shared/data/idempotency.ts).
import { httpOperation, respond } from '#shared/http/operation';
import { deliveryReceiptSaveV2 } from '#shared/compiled/operations/delivery-receipts';
import { savedAnswer } from '#shared/http/answers/delivery-receipts';
import { completeReceipt } from '#shared/delivery-receipts/completion';
import { completingReceiptService, idempotencyKeyHeader, receiptIdempotency } from '#shared/delivery-receipts/wiring';

const receipts = completingReceiptService(completeReceipt);
const idempotency = receiptIdempotency(deliveryReceiptSaveV2.operationId);

export const handler = httpOperation(deliveryReceiptSaveV2).handler(async ({ principal, body, headers }) => {
  const answer = await idempotency.run({ tenantId: principal.tenantId, key: headers[idempotencyKeyHeader], request: { body } }, savedAnswer, (claim) =>
    receipts.save(principal, body, claim),
  );
  return respond(answer.status, answer.body, { ...answer.headers });
});
