// Messaging: the message of a chunked receipt completion (`{"tenantId":1,"receiptId":8,"completionId":"<uuid>"}`)
// on the receipt completions queue: read and checked by the contract the queue's definition carries
// (shared/events/queues.ts: the compiled form of shared/schemas/messages/delivery-receipts.ts, so the consumer's bundle
// loads no zod), and its publisher (shared/messaging/publisher.ts, the guaranteed one).
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { z } from 'zod';
import { receiptCompletionsQueue } from '#shared/events/queues';
import { createGuaranteedPublisher, type GuaranteedPublisher } from '#shared/messaging/publisher';
import type * as schema from '#shared/schemas/messages/delivery-receipts';

export type CompletionMessage = Readonly<z.output<typeof schema.CompletionMessage>>;

/**
 * The save sends the guarantee (`{ guarantee: true }`, delayed) before its start commits and the message at once
 * after it; the consumer's continuation is sent at once (shared/messaging/README.md, "A message that follows a write").
 */
export type CompletionPublisher = GuaranteedPublisher<CompletionMessage>;

/** The message with exactly its three members, or a thrown Error for anything else. */
export const completionMessageOf = (value: unknown): CompletionMessage => receiptCompletionsQueue.message.check(value);

/** Parses a queue message body; throws on anything the completion publisher did not write. */
export const parseCompletionMessage = (body: string): CompletionMessage => receiptCompletionsQueue.message.read(body);

/**
 * Without a URL, the publisher of a function holding the `sendReceiptCompletions` grant (it sets the queue URL
 * variable, checked when the function loads).
 */
export const createCompletionPublisher = (queueUrl?: string, client?: SQSClient): CompletionPublisher =>
  createGuaranteedPublisher({
    queue: receiptCompletionsQueue,
    what: 'completion',
    ...(queueUrl ? { queueUrl } : {}),
    // Checked before it is sent: a message the consumer would refuse never leaves.
    encode: (message: CompletionMessage) => JSON.stringify(completionMessageOf(message)),
    ...(client ? { client } : {}),
  });

export const defaultCompletionPublisher = (): CompletionPublisher => createCompletionPublisher();
