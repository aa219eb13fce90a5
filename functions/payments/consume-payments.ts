// Entry: the payments queue's consumer. Completes each queued refund (Refunded) on its own; a record that fails is
// reported in the partial batch response and retried. On its last receive before the DLQ, a refund that still fails
// for a reason of its own is marked Failed (ErrorMessage and a PaymentLogs entry) and its reserved amount released;
// the message then goes to the DLQ, where a redrive finds the refund settled and leaves it alone. A failure that only
// says "not now" (DynamoDB down or throttling, contention, an outcome unknown: isTransientFailure) never fails a
// customer's refund: it stays Queued, its amount reserved, and goes to the DLQ for a redrive. Settling follows a refund's rules: the release
// is an ADD with no Version condition on the payment, and contention is retried inside the service (a record whose
// retries run out fails, and SQS delivers it again).
import { isTransientFailure } from '#shared/errors';
import { paymentsQueue } from '#shared/events/queues';
import { consumer } from '#shared/messaging/consumer';
import { describeError, logger } from '#shared/observability/logger';
import { paymentService } from '#shared/payments/wiring';
import type { PaymentService } from '#shared/payments/service';

export type RefundSettler = Pick<PaymentService, 'completeQueuedRefund' | 'failQueuedRefund'>;

/** The consumer over any settler (the real service; tests wrap it to make completion fail). */
export const createRefundConsumer = (settler: RefundSettler) =>
  consumer(paymentsQueue, async (message, { messageId, receiveCount, lastReceive }) => {
    try {
      const outcome = await settler.completeQueuedRefund(message);
      logger.info('queued refund', { messageId, refundId: message.refundId, outcome, receiveCount });
    } catch (error) {
      if (!lastReceive) {
        logger.warn('queued refund not completed; it will be retried', { refundId: message.refundId, receiveCount, ...describeError(error) });
        throw error;
      }
      if (isTransientFailure(error)) {
        logger.error('queued refund not completed by its last receive, a dependency unavailable: it stays Queued in the DLQ for a redrive', {
          refundId: message.refundId,
          receiveCount,
          ...describeError(error),
        });
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
  });

export const handler = createRefundConsumer(paymentService());
