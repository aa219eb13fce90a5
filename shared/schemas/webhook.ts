// Schemas: the document-analysis provider's webhook event (camelCase, as the spec gives it) and our answer.
import { z } from 'zod';
import { dateTime, externalKey } from './common';

/** The event id: lowercase hex SHA-256 of the event's canonical JSON. */
const eventId = () => z.string().regex(/^[0-9a-f]{64}$/);
const eventType = () => z.string().min(1).max(100);

export const WebhookEventRequest = z
  .looseObject({
    type: eventType(),
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
    eventId: eventId(),
    status: z.literal('queued'),
  })
  .meta({ id: 'WebhookAccepted', description: 'The event was verified and accepted by the queue.' });

/** `{documentId}` of the read endpoint: the same bounds as `data.object.id`. */
export const DocumentPath = z.strictObject({ documentId: externalKey(256) });

export const DocumentEventView = z
  .strictObject({
    EventID: eventId(),
    Type: eventType(),
    /** The signed timestamp `t` (unix seconds). */
    Timestamp: z.int(),
    DateTime_utc: dateTime(),
    ReceivedDateTime_utc: dateTime(),
  })
  .meta({ id: 'DocumentEvent' });

export const DocumentStateView = z
  .strictObject({
    OrganisationID: externalKey(128),
    DocumentID: externalKey(256),
    State: z.enum(['Uploaded', 'Processing', 'Processed', 'Failed']).optional().meta({
      description: 'Absent while only events of unknown types have arrived.',
    }),
    StateEventType: eventType().optional(),
    StateEventID: eventId().optional(),
    UserID: externalKey(128),
    Object: z.record(z.string(), z.unknown()).optional().meta({ description: '`data.object` of the event that set the state.' }),
    FirstEventDateTime_utc: dateTime(),
    LastEventDateTime_utc: dateTime(),
    EventCount: z.int().min(1),
    Version: z.int().min(1),
    Events: z.array(DocumentEventView).meta({ description: 'Event history, newest first (by signed timestamp, then id).' }),
  })
  .meta({ id: 'DocumentState', description: "A document's tracked state and its event history." });
export type DocumentStateView = z.infer<typeof DocumentStateView>;
