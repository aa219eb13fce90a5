// Messaging: puts queued refunds on the payments queue (`{"tenantId":1,"refundId":8}`, message.ts).
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { QueuedRefund } from './message';

/** The environment variable of the payments queue's URL (set with the `sendPayments` grant). */
export const paymentsQueueUrlVariable = 'PAYMENTS_QUEUE_URL';

export type RefundPublisher = (message: QueuedRefund) => Promise<void>;

export const createRefundPublisher =
  (queueUrl: string, client: SQSClient = new SQSClient({})): RefundPublisher =>
  async ({ tenantId, refundId }) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ tenantId, refundId }) }));
  };
