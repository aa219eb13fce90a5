// Messaging: puts queued refunds on the payments queue (`{"tenantId":1,"refundId":8}`, message.ts).
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { QueuedRefund } from './message';
import { traced } from '../observability/tracing';

export { paymentsQueueUrlVariable } from '../events/queues';

export type RefundPublisher = (message: QueuedRefund) => Promise<void>;

export const createRefundPublisher =
  (queueUrl: string, client: SQSClient = traced(new SQSClient({}))): RefundPublisher =>
  async ({ tenantId, refundId }) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ tenantId, refundId }) }));
  };
