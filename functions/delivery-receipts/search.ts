// Entry: PUT /v2/DeliveryReceipt/: one page of the tenant's delivery receipts matching the filter.
import { httpOperation } from '#shared/http/operation';
import { deliveryReceiptSearchV2 } from '#shared/compiled/operations/delivery-receipts';
import { deliveryReceiptSearchService } from '#shared/delivery-receipts/search';

const receipts = deliveryReceiptSearchService();

export const handler = httpOperation(deliveryReceiptSearchV2).handler(({ principal, body }) => receipts.search(principal, body ?? {}));
