// Messaging: puts queued refunds on the payments queue (`{"tenantId":1,"refundId":8}`, message.ts), through the one
// publisher (shared/messaging/publisher.ts). A queued refund is sent twice: once with a delay BEFORE its transaction
// (the guarantee: whatever dies after the commit, that message settles the refund), once at once after the commit
// (the fast path). The settle is idempotent, so the second of the two changes nothing.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { QueuedRefund } from '#shared/schemas/messages/payments';
import { paymentsQueue } from '#shared/events/queues';
import { createPublisher } from '#shared/messaging/publisher';

export { paymentsQueueUrlVariable } from '#shared/events/queues';

/**
 * Seconds the guarantee message waits before its first delivery: well past the refund function's timeout (10 s), so
 * the transaction it guards has committed or never will by then (a message that finds no refund is a transaction
 * that never committed, and changes nothing).
 */
export const queuedRefundGuaranteeDelaySeconds = 60;

/** Sends a queued refund's message: at once, or with a delay in seconds (the guarantee sent before the commit). */
export type RefundPublisher = (message: QueuedRefund, delaySeconds?: number) => Promise<void>;

export const createRefundPublisher = (queueUrl: string, client?: SQSClient): RefundPublisher => {
  const options = { queue: paymentsQueue, what: 'refund', queueUrl, encode: ({ tenantId, refundId }: QueuedRefund) => JSON.stringify({ tenantId, refundId }), ...(client ? { client } : {}) };
  const now = createPublisher(options);
  const later = createPublisher({ ...options, delaySeconds: queuedRefundGuaranteeDelaySeconds });
  return (message, delaySeconds) => {
    if (delaySeconds === undefined) return now(message);
    return delaySeconds === queuedRefundGuaranteeDelaySeconds ? later(message) : createPublisher({ ...options, delaySeconds })(message);
  };
};
