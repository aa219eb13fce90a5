// Schemas: the document-analysis provider's webhook event (camelCase, as the spec gives it) and our answer.
import { z } from 'zod';

/** Keys of our records come from these fields: bounded, printable, no separators of our composed keys. */
const externalKey = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\u0000-\u001f\u007f#]+$/, { error: 'must be printable text without "#"' });

export const WebhookEventRequest = z
  .looseObject({
    type: z.string().min(1).max(100),
    userId: externalKey(128),
    organisationId: externalKey(128),
    signature: z.string().min(1).max(2048),
    data: z.looseObject({
      object: z.looseObject({ id: externalKey(256) }),
    }),
  })
  .meta({
    id: 'WebhookEventRequest',
    description:
      'One event from the document-analysis provider. Members beyond these are kept: the signature covers the whole event.',
  });
export type WebhookEventRequest = z.infer<typeof WebhookEventRequest>;

export const WebhookAccepted = z
  .strictObject({
    eventId: z.string().regex(/^[0-9a-f]{64}$/),
    status: z.literal('queued'),
  })
  .meta({ id: 'WebhookAccepted', description: 'The event was verified and accepted by the queue.' });
