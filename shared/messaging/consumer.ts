// Messaging: the one skeleton of every SQS consumer. Given a consumed queue's definition (shared/events/queues.ts,
// which carries its message contract) and a handler of one message, it returns the Lambda handler: each record is read
// by the contract, handled on its own by Powertools' BatchProcessor, and the failures are returned as a partial batch
// response (`ReportBatchItemFailures`, which every consumed queue's event source sets). README.md says what it
// guarantees.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueDefinition } from '#shared/events/queues';
import { loadFunctionEnvironment, type FunctionNeeds } from '#shared/operations/environment';
import { describeError, logger } from '#shared/observability/logger';

/** What a handler knows of the record besides its message. */
export interface Delivery {
  readonly messageId: string;
  /** SQS's ApproximateReceiveCount: 1 on the first delivery. */
  readonly receiveCount: number;
  /** Whether this is the last receive before the message goes to the dead-letter queue (a failure now is final). */
  readonly lastReceive: boolean;
  /** The invocation's context (its remaining time, for work done in steps). */
  readonly context: Context;
}

export type MessageHandler<T> = (message: T, delivery: Delivery) => Promise<void>;

/** A message its contract refuses: permanent, so it fails every receive and ends in the dead-letter queue. */
export class UnreadableMessage extends Error {
  constructor(name: string) {
    super(`unreadable ${name}`);
    this.name = 'UnreadableMessage';
  }
}

/**
 * What the consumer reads of a queue's definition: its message contract, its size limit, its receive count and, for
 * a queue of queues.ts, its consumer's table access and grants (the function's environment, checked at load).
 */
export type ConsumedQueue<T> = Pick<QueueDefinition<T, string>, 'message' | 'maximumMessageBytes' | 'deadLetterQueue'> & {
  readonly consumer?: FunctionNeeds;
};

/** Reads one record by the contract; an unreadable one is logged by its id and error class only, never its body. */
const readRecord = <T>(queue: ConsumedQueue<T>, record: SQSRecord): T => {
  const { message } = queue;
  try {
    if (Buffer.byteLength(record.body, 'utf8') > queue.maximumMessageBytes) throw new RangeError('above the queue\'s message size');
    return message.read(record.body);
  } catch (error) {
    logger.error(`unreadable ${message.name}`, { messageId: record.messageId, ...describeError(error) });
    throw new UnreadableMessage(message.name);
  }
};

/** The Lambda handler of a queue's consumer: `handle` runs once per readable record, with its typed message. */
export const consumer = <T>(queue: ConsumedQueue<T>, handle: MessageHandler<T>) => {
  // Once, when the function loads: every variable its grants set, or a cold start that names the missing one.
  if (queue.consumer) loadFunctionEnvironment(queue.consumer);
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    logger.addContext(context);
    const lastReceive = queue.deadLetterQueue.maxReceiveCount;
    const handleRecord = async (record: SQSRecord): Promise<void> => {
      const message = readRecord(queue, record);
      const receiveCount = Number(record.attributes.ApproximateReceiveCount);
      await handle(message, { messageId: record.messageId, receiveCount, lastReceive: receiveCount >= lastReceive, context });
    };
    // A processor per invocation: it holds the batch's records and failures, so a module-level one would mix the
    // reports of invocations that overlap in one process (the local event source mapping runs several at once).
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, handleRecord, processor, { context, throwOnFullBatchFailure: false });
  };
};
