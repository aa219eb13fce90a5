// Messaging: puts verified webhook events on the document-events queue (shared/messaging/publisher.ts: the size
// check, 413 above the queue's limit, and any failure to enqueue a 503 + Retry-After, so the provider retries and no
// event is lost).
import type { SQSClient } from '@aws-sdk/client-sqs';
import { documentEventsQueue } from '#shared/events/queues';
import { createPublisher } from '#shared/messaging/publisher';

/** A verified event to queue: `canonicalEvent` is the exact JCS text that was signed (signature removed). */
export interface VerifiedEvent {
  readonly eventId: string;
  readonly t: number;
  readonly receivedAt: string;
  readonly canonicalEvent: string;
}

export type EventPublisher = (event: VerifiedEvent) => Promise<void>;

/** The queue message (a QueuedDocumentEvent), with the signed text spliced in as is: never re-parsed or re-serialised. */
const messageBody = ({ eventId, t, receivedAt, canonicalEvent }: VerifiedEvent): string =>
  `{"eventId":${JSON.stringify(eventId)},"t":${t},"receivedAt":${JSON.stringify(receivedAt)},"event":${canonicalEvent}}`;

export const createEventPublisher = (queueUrl?: string, client?: SQSClient): EventPublisher =>
  createPublisher({ queue: documentEventsQueue, what: 'event', encode: messageBody, ...(queueUrl ? { queueUrl } : {}), ...(client ? { client } : {}) });
