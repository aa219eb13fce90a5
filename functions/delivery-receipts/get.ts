// Entry: GET /v2/DeliveryReceipt/{id}: the caller's receipt with its active lines and AllowedStatuses (404 for any
// other tenant's).
import { httpOperation } from '#shared/http/operation';
import { deliveryReceiptGetV2 } from '#shared/compiled/operations/delivery-receipts';
import { readAnswer } from '#shared/http/answers/delivery-receipts';
import { receiptService } from '#shared/delivery-receipts/wiring';

const receipts = receiptService();

export const handler = httpOperation(deliveryReceiptGetV2).handler(async ({ principal, path }) => readAnswer(await receipts.get(principal, path.id)));
