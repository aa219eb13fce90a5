// Messaging: what the webhook puts on the document-events queue and the consumer reads back. The signature is not
// carried: it has been verified, and its timestamp travels as `t`.
import { z } from 'zod';
import { WebhookEventRequest } from '#shared/schemas/webhook';

export const QueuedDocumentEvent = z.strictObject({
  eventId: z.string().regex(/^[0-9a-f]{64}$/),
  t: z.int().min(0),
  receivedAt: z.iso.datetime({ offset: true }),
  event: WebhookEventRequest.omit({ signature: true }),
});
export type QueuedDocumentEvent = z.infer<typeof QueuedDocumentEvent>;
