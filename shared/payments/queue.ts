// Messaging: the payments queue's message (a queued refund, named by its tenant and ID) and its publisher. The
// message carries no money and no card data: the consumer reads the refund record for everything else.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';

export const QueuedRefund = z.strictObject({
  tenantId: z.int32().min(1),
  refundId: z.int32().min(1),
});
export type QueuedRefund = z.infer<typeof QueuedRefund>;

export type RefundPublisher = (message: QueuedRefund) => Promise<void>;

export const createRefundPublisher =
  (queueUrl: string, client: SQSClient = new SQSClient({})): RefundPublisher =>
  async (message) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(QueuedRefund.parse(message)) }));
  };
