// Contracts: the schema of the receipt completions queue's message, `{"tenantId":1,"receiptId":8,"completionId":"<uuid>"}`.
// Zod, read only by the validators generator (shared/compiled/schemas/messages/delivery-receipts.ts, the
// zod-free form the consumer and the publisher load) and for types.
import { z } from 'zod';

export const CompletionMessage = z.strictObject({
  tenantId: z.int32().min(1),
  receiptId: z.int32().min(1),
  /** The completion the message drives: a message of an earlier, undone completion finds nothing to do. */
  completionId: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
});
