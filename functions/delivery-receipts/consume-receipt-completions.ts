// Entry: the receipt completions queue's consumer. Each message drives one chunked completion: the pass runs the
// remaining chunks one transaction after another while the invocation has time for another chunk, then, if any are
// left, puts a fresh message on the queue and acknowledges this one (so the receive count counts failures, not
// progress); a chunk that stalls is aborted in time for that hand-on. A failed record is reported in the partial batch
// response and redelivered; it resumes at the cursor.
import { defaultTable, type TableContext } from '#shared/data/client';
import { continueCompletion, defaultCompletionDependencies, type CompletionDependencies } from '#shared/delivery-receipts/completion';
import { createCompletionRepository } from '#shared/delivery-receipts/repository';
import { receiptCompletionsQueue } from '#shared/events/queues';
import { consumer } from '#shared/messaging/consumer';
import { logger } from '#shared/observability/logger';

/**
 * Time kept free after the last chunk a pass starts: a chunk is one transaction of at most 100 actions (tens of
 * milliseconds, seconds when throttled and retried by the SDK), and re-enqueueing is one SendMessage.
 */
export const chunkReserveMs = 8_000;

/**
 * Time kept for the hand-on (one SendMessage) when a chunk stalls: its calls are aborted this long before the
 * function's timeout. A stalled chunk's SDK attempts (3 of up to 4 s each) outlast `chunkReserveMs`: without the
 * abort, the pass died at the timeout and its receive counted against the message with the progress made (a review).
 */
export const handOnReserveMs = 4_000;

export const createCompletionConsumer = (table: () => TableContext, dependencies: () => CompletionDependencies) =>
  consumer(receiptCompletionsQueue, async (message, { messageId, receiveCount, context }) => {
    const progress = await continueCompletion(
      createCompletionRepository(table()),
      message,
      {
        mayRunChunk: () => context.getRemainingTimeInMillis() > chunkReserveMs,
        chunkSignal: () => AbortSignal.timeout(Math.max(0, context.getRemainingTimeInMillis() - handOnReserveMs)),
      },
      dependencies(),
    );
    logger.info('receipt completion', { messageId, tenantId: message.tenantId, receiptId: message.receiptId, receiveCount, ...progress });
  });

export const handler = createCompletionConsumer(defaultTable, defaultCompletionDependencies);
