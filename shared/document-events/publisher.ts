// Messaging: puts verified webhook events on the document-events queue. Any failure to enqueue is a dependency
// being down for the caller (503 + Retry-After), so the provider retries and no event is lost.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PayloadTooLarge, ServiceUnavailable } from '../errors';
import { documentEventsQueue } from '../events/queues';
import type { QueuedDocumentEvent } from './message';

/** SQS refuses U+FFFE and U+FFFF even inside JSON strings: send them escaped (the JSON value is unchanged). */
const sqsSafe = (json: string) => json.replace(/[\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

export type EventPublisher = (message: QueuedDocumentEvent) => Promise<void>;

export const createEventPublisher = (queueUrl: string, client: SQSClient = new SQSClient({})): EventPublisher => async (message) => {
  const body = sqsSafe(JSON.stringify(message));
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
