// Schemas: the answer of delivery-receipt Search (deliveryReceiptSearchV2): the platform's
// PagedActionResults<DeliveryReceiptT>, rows numbered by RowNumber (shared/delivery-receipts/search.ts).
import type { z } from 'zod';
import { DeliveryReceiptT } from './delivery-receipt';
import { PagedActionResults } from './envelopes';

export const DeliveryReceiptSearchResult = PagedActionResults(DeliveryReceiptT, { id: 'PagedActionResults_DeliveryReceiptT_' });
export type DeliveryReceiptSearchResult = z.infer<typeof DeliveryReceiptSearchResult>;
