// Entry: the payments queue's consumer. Completes each queued refund (Refunded) on its own; a record that fails is
// reported in the partial batch response and retried. On its last receive before the DLQ, a refund that still fails
// is marked Failed (ErrorMessage and a PaymentLogs entry) and its reserved amount released; the message then goes to
// the DLQ, where a redrive finds the refund settled and leaves it alone. Settling follows a refund's rules: the release
// is an ADD with no Version condition on the payment, and contention is retried inside the service (a record whose
// retries run out fails, and SQS delivers it again).
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { paymentsQueue } from '../../shared/events/queues';
import { describeError, logger } from '../../shared/observability/logger';
import { paymentService } from '../../shared/payments/wiring';
import { QueuedRefund as queuedRefund } from '../../shared/compiled/payments/message';
import type { QueuedRefund } from '../../shared/payments/message';
import type { PaymentService } from '../../shared/payments/service';

export type RefundSettler = Pick<PaymentService, 'completeQueuedRefund' | 'failQueuedRefund'>;

const lastReceive = paymentsQueue.deadLetterQueue.maxReceiveCount;

const readMessage = (record: SQSRecord): QueuedRefund => {
  try {
    return queuedRefund.parse(JSON.parse(record.body));
  } catch (error) {
    // Not a message the refund function wrote: it can never succeed, so it goes to the DLQ after its receives.
    logger.error('unreadable queued refund', { messageId: record.messageId, ...describeError(error) });
    throw new Error('unreadable queued refund');
  }
};

/** The consumer over any settler (the real service; tests wrap it to make completion fail). */
export const createRefundConsumer = (settler: RefundSettler) => {
  const applyRecord = async (record: SQSRecord): Promise<void> => {
    const message = readMessage(record);
    const receiveCount = Number(record.attributes.ApproximateReceiveCount);
    try {
      const outcome = await settler.completeQueuedRefund(message);
      logger.info('queued refund', { messageId: record.messageId, refundId: message.refundId, outcome, receiveCount });
    } catch (error) {
      if (receiveCount < lastReceive) {
        logger.warn('queued refund not completed; it will be retried', { refundId: message.refundId, receiveCount, ...describeError(error) });
        throw error;
      }
      try {
        const outcome = await settler.failQueuedRefund(message);
        logger.error('queued refund failed for good: marked Failed, reservation released', { refundId: message.refundId, outcome, receiveCount });
      } catch (failure) {
        logger.error('queued refund could not be marked Failed; it stays Queued in the DLQ', { refundId: message.refundId, ...describeError(failure) });
      }
      throw error;
    }
  };

  return async (event: SQSEvent, context: Context) => {
    logger.addContext(context);
    // A processor per invocation, so overlapping invocations in one process never mix their failure reports.
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, applyRecord, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = createRefundConsumer(paymentService());
