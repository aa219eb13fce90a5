// Messaging: the one way the service puts a message on one of its queues. One SQS client per process (traced), the
// queue's size limit checked before sending (413 with the size and the limit), and any failure to send mapped to
// 503 + Retry-After: an HTTP caller that gets it retries, and a consumer whose send fails fails its record, which
// SQS delivers again. README.md says what it guarantees.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PayloadTooLarge, ServiceUnavailable } from '#shared/errors';
import type { QueueDefinition } from '#shared/events/queues';
import { awsRequestHandler, serviceClient } from '#shared/aws-requests';
import { environmentValue } from '#shared/environment';

let processClient: SQSClient | undefined;

/** The process's SQS client, created on the first send (the AWS SDK reads AWS_ENDPOINT_URL_SQS locally). */
export const sqsClient = (): SQSClient => (processClient ??= serviceClient(new SQSClient({ requestHandler: awsRequestHandler })));

/** Seconds an HTTP caller is told to wait (`Retry-After`) when a queue did not take its message. */
export const sendRetryAfterSeconds = 5;

export interface PublisherOptions<T> {
  /** The queue (shared/events/queues.ts): its size limit, and the variable its URL is read from. */
  readonly queue: Pick<QueueDefinition, 'maximumMessageBytes' | 'urlVariable'>;
  /** What one message is, in the errors' details (`event`: "The event could not be queued"). */
  readonly what: string;
  /**
   * The queue's URL; by default the queue's variable (set by the function's send grant, checked when the function
   * loads), read when the publisher is created: a publisher without a URL is never made.
   */
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
  const queueUrl = options.queueUrl ?? environmentValue(queue.urlVariable);
  return async (message) => {
    const body = sqsSafe(encode(message));
    const size = Buffer.byteLength(body, 'utf8');
    const limit = queue.maximumMessageBytes;
    if (size > limit) throw new PayloadTooLarge(limit, `The ${what} takes ${size} bytes once queued, above the queue's limit of ${limit} bytes.`);
    try {
      await (options.client ?? sqsClient()).send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, ...(delaySeconds === undefined ? {} : { DelaySeconds: delaySeconds }) }),
      );
    } catch (error) {
      throw new ServiceUnavailable(`The ${what} could not be queued; retry shortly.`, sendRetryAfterSeconds, error);
    }
  };
};

/**
 * Seconds a guarantee message waits before its first delivery (`createGuaranteedPublisher`): well past an API
 * function's 10 s timeout, so the write it guards has committed or never will by the time it is read.
 */
export const guaranteeDelaySeconds = 60;

/**
 * Sends a message that follows a write: `{ guarantee: true }` before the write's commit, with `guaranteeDelaySeconds`
 * of delay; without it at once, after the commit. The write's consumer must be idempotent and must find nothing to
 * do for a message whose write never committed.
 */
export type GuaranteedPublisher<T> = (message: T, options?: { readonly guarantee?: boolean }) => Promise<void>;

/**
 * The rule of a message that must follow a committed write (issue 22): a write that commits, then dies before its
 * send, must not lose its message. So the message goes twice: the guarantee, delayed, BEFORE the transaction (a queue
 * that cannot take it refuses the write with nothing written), and the same message at once after the commit (the
 * fast path; if that send fails or the function dies first, the guarantee delivers it a minute later). README.md,
 * "A message that follows a write".
 */
export const createGuaranteedPublisher = <T>(options: Omit<PublisherOptions<T>, 'delaySeconds'>): GuaranteedPublisher<T> => {
  const now = createPublisher(options);
  const later = createPublisher({ ...options, delaySeconds: guaranteeDelaySeconds });
  return (message, { guarantee = false } = {}) => (guarantee ? later(message) : now(message));
};
