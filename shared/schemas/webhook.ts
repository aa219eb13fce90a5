// Schemas: the document-analysis provider's webhook event (camelCase, as the spec gives it) and our answer.
import { z } from 'zod';
import { externalKey } from './common';

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

/** `{documentId}` of the read endpoint: the same bounds as `data.object.id`. */
export const DocumentPath = z.strictObject({ documentId: externalKey(256) });

export const DocumentEventView = z
  .strictObject({
    EventID: z.string(),
    Type: z.string(),
    /** The signed timestamp `t` (unix seconds). */
    Timestamp: z.int(),
    DateTime_utc: z.iso.datetime({ offset: true }),
    ReceivedDateTime_utc: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'DocumentEvent' });

export const DocumentStateView = z
  .strictObject({
    OrganisationID: z.string(),
    DocumentID: z.string(),
    State: z.enum(['Uploaded', 'Processing', 'Processed', 'Failed']).optional().meta({
      description: 'Absent while only events of unknown types have arrived.',
    }),
    StateEventType: z.string().optional(),
    StateEventID: z.string().optional(),
    UserID: z.string(),
    Object: z.record(z.string(), z.unknown()).optional().meta({ description: '`data.object` of the event that set the state.' }),
    FirstEventDateTime_utc: z.iso.datetime({ offset: true }),
    LastEventDateTime_utc: z.iso.datetime({ offset: true }),
    EventCount: z.int().min(1),
    Version: z.int().min(1),
    Events: z.array(DocumentEventView).meta({ description: 'Event history, newest first (by signed timestamp, then id).' }),
  })
  .meta({ id: 'DocumentState', description: "A document's tracked state and its event history." });
export type DocumentStateView = z.infer<typeof DocumentStateView>;
