// Messaging: puts verified webhook events on the document-events queue. Any failure to enqueue is a dependency
// being down for the caller (503 + Retry-After), so the provider retries and no event is lost.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PayloadTooLarge, ServiceUnavailable } from '../errors';
import { documentEventsQueue } from '../events/queues';
import { traced } from '../observability/tracing';

/** SQS refuses U+FFFE and U+FFFF even inside JSON strings: send them escaped (the JSON value is unchanged). */
const sqsSafe = (json: string) => json.replace(/[\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

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

export const createEventPublisher = (queueUrl: string, client: SQSClient = traced(new SQSClient({}))): EventPublisher => async (event) => {
  const body = sqsSafe(messageBody(event));
  const size = Buffer.byteLength(body, 'utf8');
  if (size > documentEventsQueue.maximumMessageBytes) {
    const limit = documentEventsQueue.maximumMessageBytes;
    throw new PayloadTooLarge(limit, `The event takes ${size} bytes once queued, above the queue's limit of ${limit} bytes.`);
  }
  try {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  } catch (error) {
    throw new ServiceUnavailable('The event could not be queued; retry shortly.', 5, error);
  }
};
