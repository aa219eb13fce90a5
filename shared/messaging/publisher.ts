// Messaging: the one way the service puts a message on one of its queues. One SQS client per process (traced), the
// queue's size limit checked before sending (413 with the size and the limit), and any failure to send mapped to
// 503 + Retry-After: an HTTP caller that gets it retries, and a consumer whose send fails fails its record, which
// SQS delivers again. README.md says what it guarantees.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { requireEnv } from '#shared/data/client';
import { PayloadTooLarge, ServiceUnavailable } from '#shared/errors';
import type { QueueDefinition } from '#shared/events/queues';
import { awsRequestHandler } from '#shared/aws-requests';
import { traced } from '#shared/observability/tracing';

let processClient: SQSClient | undefined;

/** The process's SQS client, created on the first send (the AWS SDK reads AWS_ENDPOINT_URL_SQS locally). */
export const sqsClient = (): SQSClient => (processClient ??= traced(new SQSClient({ requestHandler: awsRequestHandler })));

/** Seconds an HTTP caller is told to wait (`Retry-After`) when a queue did not take its message. */
export const sendRetryAfterSeconds = 5;

export interface PublisherOptions<T> {
  /** The queue (shared/events/queues.ts): its size limit, and the variable its URL is read from. */
  readonly queue: Pick<QueueDefinition, 'maximumMessageBytes' | 'urlVariable'>;
  /** What one message is, in the errors' details (`event`: "The event could not be queued"). */
  readonly what: string;
  /** The queue's URL; by default the queue's variable (set by the function's send grant), read on the first send. */
  readonly queueUrl?: string;
  readonly client?: SQSClient;
  /** The body of a message: its JSON unless given. */
  readonly encode?: (message: T) => string;
  /** Seconds SQS keeps each message before its first delivery. */
  readonly delaySeconds?: number;
}

export type Publisher<T> = (message: T) => Promise<void>;

/** SQS refuses U+FFFE and U+FFFF even inside JSON strings: send them escaped (the JSON value is unchanged). */
export const sqsSafe = (json: string): string => json.replace(/[\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/** The publisher of one queue's messages. */
export const createPublisher = <T>(options: PublisherOptions<T>): Publisher<T> => {
  const { queue, what, encode = JSON.stringify, delaySeconds } = options;
  let queueUrl = options.queueUrl;
  return async (message) => {
    const body = sqsSafe(encode(message));
    const size = Buffer.byteLength(body, 'utf8');
    const limit = queue.maximumMessageBytes;
    if (size > limit) throw new PayloadTooLarge(limit, `The ${what} takes ${size} bytes once queued, above the queue's limit of ${limit} bytes.`);
    queueUrl ??= requireEnv(queue.urlVariable);
    try {
      await (options.client ?? sqsClient()).send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, ...(delaySeconds === undefined ? {} : { DelaySeconds: delaySeconds }) }),
      );
    } catch (error) {
      throw new ServiceUnavailable(`The ${what} could not be queued; retry shortly.`, sendRetryAfterSeconds, error);
    }
  };
};
