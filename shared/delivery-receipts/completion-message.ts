// Messaging: the message of a chunked receipt completion (`{"tenantId":1,"receiptId":8,"completionId":"<uuid>"}`)
// on the receipt completions queue, its guard (zod-free: the consumer's bundle loads no zod) and its publisher.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { requireEnv } from '../data/client';
import { receiptCompletionsQueue } from '../events/queues';
import { traced } from '../observability/tracing';

export interface CompletionMessage {
  readonly tenantId: number;
  readonly receiptId: number;
  /** The completion the message drives: a message of an earlier, undone completion finds nothing to do. */
  readonly completionId: string;
}

export type CompletionPublisher = (message: CompletionMessage) => Promise<void>;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isPositiveId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0 && (value as number) <= 2_147_483_647;

/** The message with exactly its three members, or a thrown Error for anything else. */
export const completionMessageOf = (value: unknown): CompletionMessage => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('a completion message is an object');
  const { tenantId, receiptId, completionId, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new Error('a completion message has only tenantId, receiptId and completionId');
  if (!isPositiveId(tenantId) || !isPositiveId(receiptId)) throw new Error('tenantId and receiptId are positive int32');
  if (typeof completionId !== 'string' || !uuidPattern.test(completionId)) throw new Error('completionId is a lower-case UUID');
  return { tenantId, receiptId, completionId };
};

/** Parses a queue message body; throws on anything the completion publisher did not write. */
export const parseCompletionMessage = (body: string): CompletionMessage => completionMessageOf(JSON.parse(body) as unknown);

export const createCompletionPublisher =
  (queueUrl: string, client: SQSClient = traced(new SQSClient({}))): CompletionPublisher =>
  async (message) => {
    const { tenantId, receiptId, completionId } = completionMessageOf(message);
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ tenantId, receiptId, completionId }) }));
  };

/**
 * The publisher of a function holding the `sendReceiptCompletions` grant (it sets the queue URL variable), read on
 * the first send: a save whose completion fits one transaction never needs the queue.
 */
export const defaultCompletionPublisher = (): CompletionPublisher => {
  let publish: CompletionPublisher | undefined;
  return (message) => {
    publish ??= createCompletionPublisher(requireEnv(receiptCompletionsQueue.urlVariable));
    return publish(message);
  };
};
