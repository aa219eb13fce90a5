// Entry: the receipt completions queue's consumer. Each message drives one chunked completion: the pass runs the
// remaining chunks one transaction after another while the invocation has time for another chunk, then, if any are
// left, puts a fresh message on the queue and acknowledges this one (so the receive count counts failures, not
// progress). A failed record is reported in the partial batch response and redelivered; it resumes at the cursor.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { defaultTable, type TableContext } from '../../shared/data/client';
import { parseCompletionMessage } from '../../shared/delivery-receipts/completion-message';
import { continueCompletion, defaultCompletionDependencies, type CompletionDependencies } from '../../shared/delivery-receipts/completion';
import { describeError, logger } from '../../shared/observability/logger';

/**
 * Time kept free after the last chunk a pass starts: a chunk is one transaction of at most 100 actions (tens of
 * milliseconds, seconds when throttled and retried by the SDK), and re-enqueueing is one SendMessage.
 */
export const chunkReserveMs = 8_000;

export const createCompletionConsumer = (table: () => TableContext, dependencies: () => CompletionDependencies) => {
  const applyRecord = async (record: SQSRecord, context: Context): Promise<void> => {
    let message;
    try {
      message = parseCompletionMessage(record.body);
    } catch (error) {
      // Not a message completion wrote: it can never succeed, so it goes to the DLQ after its receives.
      logger.error('unreadable receipt completion message', { messageId: record.messageId, ...describeError(error) });
      throw new Error('unreadable receipt completion message');
    }
    const progress = await continueCompletion(table(), message, { mayRunChunk: () => context.getRemainingTimeInMillis() > chunkReserveMs }, dependencies());
    logger.info('receipt completion', {
      messageId: record.messageId,
      tenantId: message.tenantId,
      receiptId: message.receiptId,
      receiveCount: Number(record.attributes.ApproximateReceiveCount),
      ...progress,
    });
  };

  return async (event: SQSEvent, context: Context) => {
    logger.addContext(context);
    // A processor per invocation, so overlapping invocations in one process never mix their failure reports.
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, (record: SQSRecord) => applyRecord(record, context), processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = createCompletionConsumer(defaultTable, defaultCompletionDependencies);
