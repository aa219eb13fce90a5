// Messaging: puts queued refunds on the payments queue (`{"tenantId":1,"refundId":8}`, message.ts), through the one
// guaranteed publisher (shared/messaging/publisher.ts): a queued refund is sent once with a delay BEFORE its
// transaction (the guarantee: whatever dies after the commit, that message settles the refund) and once at once after
// the commit (the fast path). The settle is idempotent, so the second of the two changes nothing.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { QueuedRefund } from '#shared/schemas/messages/payments';
import { paymentsQueue } from '#shared/events/queues';
import { createGuaranteedPublisher, type GuaranteedPublisher } from '#shared/messaging/publisher';

export { paymentsQueueUrlVariable } from '#shared/events/queues';

export type RefundPublisher = GuaranteedPublisher<QueuedRefund>;

/** Without a URL, the payments queue's (its `sendPayments` grant's variable, through the function's environment). */
export const createRefundPublisher = (queueUrl?: string, client?: SQSClient): RefundPublisher =>
  createGuaranteedPublisher({
    queue: paymentsQueue,
    what: 'refund',
    ...(queueUrl ? { queueUrl } : {}),
    encode: ({ tenantId, refundId }: QueuedRefund) => JSON.stringify({ tenantId, refundId }),
    ...(client ? { client } : {}),
  });
