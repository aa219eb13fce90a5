// Messaging: puts queued refunds on the payments queue (`{"tenantId":1,"refundId":8}`, message.ts), through the one
// publisher (shared/messaging/publisher.ts).
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { QueuedRefund } from '#shared/schemas/messages/payments';
import { paymentsQueue } from '#shared/events/queues';
import { createPublisher } from '#shared/messaging/publisher';

export { paymentsQueueUrlVariable } from '#shared/events/queues';

export type RefundPublisher = (message: QueuedRefund) => Promise<void>;

export const createRefundPublisher = (queueUrl: string, client?: SQSClient): RefundPublisher =>
  createPublisher({ queue: paymentsQueue, what: 'refund', queueUrl, encode: ({ tenantId, refundId }) => JSON.stringify({ tenantId, refundId }), ...(client ? { client } : {}) });
