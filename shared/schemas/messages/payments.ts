// Messaging: what the refund function puts on the payments queue and the consumer reads back: a queued refund, named
// by its tenant and ID. It carries no money and no card data: the consumer reads the refund record for the rest.
import { z } from 'zod';

export const QueuedRefund = z.strictObject({
  tenantId: z.int32().min(1),
  refundId: z.int32().min(1),
});
export type QueuedRefund = z.infer<typeof QueuedRefund>;
