// Entry: PUT /v2/DeliveryReceipt/: one page of the tenant's delivery receipts matching the filter.
import { httpOperation } from '#shared/http/operation';
import { deliveryReceiptSearchV2 } from '#shared/compiled/operations/delivery-receipts';
import { createDeliveryReceiptSearch } from '#shared/delivery-receipts/search';
import { receiptSearchStore } from '#shared/delivery-receipts/wiring';

const receipts = createDeliveryReceiptSearch({ store: receiptSearchStore() });

export const handler = httpOperation(deliveryReceiptSearchV2).handler(({ principal, body }) => receipts.search(principal, body ?? {}));
