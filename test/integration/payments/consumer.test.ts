// Integration: queued refunds through the real pieces: the refund service's publisher puts the refund on a queue of
// the local SQS server, the emulated event source mapping hands it to the consumer, and the refund is completed
// once (a duplicate message changes nothing). A refund whose completion keeps failing for a reason of its own is
// marked Failed on its last receive (ErrorMessage, a PaymentLogs entry, its reserved amount released) and then lands
// in the DLQ; one that fails only because a dependency is unavailable stays Queued there, for a redrive. The queue
// pairs are this test's own, with a 1 s visibility timeout (the real 181 s would take a quarter of an hour).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Handler } from 'aws-lambda';
import { createRefundConsumer } from '#functions/payments/consume-payments';
import { WriteOutcomeUnknown } from '#shared/errors';
import { startEventSourceMapping, type RunningEventSourceMapping } from '#infra/local/event-source-mapping';
import { ensureQueues, type QueueDefinition } from '#infra/local/provision';
import { paymentsQueue } from '#shared/events/queues';
import { logger } from '#shared/observability/logger';
import { createRefundPublisher } from '#shared/payments/queue';
import { createPaymentService } from '#shared/payments/service';
import { eventually } from '#test/support/document-events';
import { localSqsClient } from '#test/support/local-endpoints';
import { freshPrincipal, openPayments } from './support';

logger.setLogLevel('SILENT');
const { repository } = openPayments();
let sqs: SQSClient;
const mappings: RunningEventSourceMapping[] = [];

beforeAll(() => {
  sqs = localSqsClient();
});
afterAll(async () => {
  for (const mapping of mappings) await mapping.stop();
  sqs.destroy();
});

/** A queue pair of this test, the service publishing to it, and a mapping that runs `consumer` on it. */
const queueWith = async (consumerOf: (service: ReturnType<typeof createPaymentService>) => Handler) => {
  const name = `pay-${randomUUID().slice(0, 8)}`;
  const definition: QueueDefinition = {
    ...paymentsQueue,
    localQueueName: name,
    visibilityTimeoutSeconds: 1,
    deadLetterQueue: { ...paymentsQueue.deadLetterQueue, localQueueName: `${name}-dlq` },
  };
  const queue = await ensureQueues(sqs, definition);
  const service = createPaymentService({ repository, publish: createRefundPublisher(queue.queueUrl, sqs) });
  const seen: string[] = [];
  const returned: string[] = [];
  const consumer = consumerOf(service);
  const mapping = startEventSourceMapping({
    sqs,
    queueUrl: queue.queueUrl,
    queueArn: queue.queueArn,
    loadHandler: async () => async (event: { Records: { attributes: { ApproximateReceiveCount: string } }[] }, context: unknown) => {
      const counts = event.Records.map((record) => record.attributes.ApproximateReceiveCount);
      seen.push(...counts);
      try {
        return await (consumer as (e: unknown, c: unknown) => Promise<unknown>)(event, context);
      } finally {
        returned.push(...counts);
      }
    },
    functionName: paymentsQueue.consumer.name,
    functionTimeoutMs: 5000,
    ...definition.eventSource,
    pollWaitSeconds: 0,
    log: () => undefined,
  });
  mappings.push(mapping);
  return { queue, service, seen, returned };
};

/** Refund 2 of the principal once it is Refunded (the queue's consumer settles it). */
const refundedOnce = (service: ReturnType<typeof createPaymentService>, principal: ReturnType<typeof freshPrincipal>, what: string) =>
  eventually(
    async () => {
      const refund = await service.get(principal, 2);
      return refund.Status === 'Refunded' ? refund : undefined;
    },
    what,
    { timeoutMs: 15_000, intervalMs: 100 },
  );

/** The first message of a dead-letter queue, once one is there. */
const deadLetterOf = (deadLetterQueueUrl: string) =>
  eventually<Message>(
    async () => {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: deadLetterQueueUrl, WaitTimeSeconds: 1 }));
      return Messages?.[0];
    },
    'the refund in the dead-letter queue',
    { timeoutMs: 20_000, intervalMs: 0 },
  );

it('completes a queued refund once, and a duplicate message changes nothing', async () => {
  const { queue, service } = await queueWith((real) => createRefundConsumer(real));
  const principal = freshPrincipal();
  await service.record(principal, { Object: { Amount: 10 } });
  const { queued } = await service.refund(principal, 1, { IsQueue: true, Object: { Amount: 2.5 } });
  expect(queued).toBe(true);
  const done = await refundedOnce(service, principal, 'the refund completed');
  expect(done).toMatchObject({ Version: 2, IsPaid: true });
  await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: JSON.stringify({ tenantId: principal.tenantId, refundId: 2 }) }));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await service.get(principal, 2)).toMatchObject({ Status: 'Refunded', Version: 2 });
  expect(await service.get(principal, 1)).toMatchObject({ RefundedAmount: 2.5, Balance: 7.5, Refunds: [{ ID: 2, Status: 'Refunded' }] });
});

it('marks a refund that keeps failing for a reason of its own Failed on its last receive, releases its amount, and sends it to the DLQ', async () => {
  const { queue, service, seen, returned } = await queueWith((real) =>
    createRefundConsumer({
      completeQueuedRefund: async () => {
        throw new TypeError('the stored refund cannot be read');
      },
      failQueuedRefund: real.failQueuedRefund,
    }),
  );
  const principal = freshPrincipal();
  await service.record(principal, { Object: { Amount: 10 } });
  await service.refund(principal, 1, { IsQueue: true, Object: { Amount: 10 } });
  expect((await service.get(principal, 1)).IsRefunded).toBe(true);

  const deadLetter = await deadLetterOf(queue.deadLetterQueueUrl);
  expect(JSON.parse(deadLetter.Body ?? '')).toEqual({ tenantId: principal.tenantId, refundId: 2 });
  expect(seen).toEqual(['1', '2', '3', '4', '5']);
  // The queue pair's visibility timeout is 1 s, shorter than an invocation may take on a loaded machine (the real pair's
  // is longer than the function's timeout, so SQS cannot move a message while its consumer runs): the message can reach
  // the DLQ while the fifth invocation is still settling the refund. Its settling is read once that invocation returned.
  await eventually(async () => (returned.length === 5 ? true : undefined), 'the fifth invocation returned', { timeoutMs: 10_000, intervalMs: 50 });
  const failed = await service.get(principal, 2);
  expect(failed).toMatchObject({ Status: 'Failed', IsPaid: false, ErrorMessage: expect.stringContaining('could not be completed') });
  expect(failed.PaymentLogs?.map((log) => [log.Code, log.PaymentStatus])).toEqual([
    ['REFUND_QUEUED', 'Queued'],
    ['REFUND_FAILED', 'Failed'],
  ]);
  expect(await service.get(principal, 1)).toMatchObject({ RefundedAmount: 0, Balance: 10, IsRefunded: false, Refunds: [{ ID: 2, Status: 'Failed' }] });
  // The amount is refundable again.
  expect((await service.refund(principal, 1, { Object: { Amount: 10 } })).payment.Status).toBe('Refunded');
});

it.each([
  ['DynamoDB throttling', () => Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' })],
  ['a write whose outcome is unknown', () => new WriteOutcomeUnknown()],
])('never fails a refund for %s on its last receive, though DynamoDB would take the Failed marking: it stays Queued in the DLQ', async (_, failure) => {
  const { queue, service, returned } = await queueWith((real) =>
    createRefundConsumer({ completeQueuedRefund: async () => Promise.reject(failure()), failQueuedRefund: real.failQueuedRefund }),
  );
  const principal = freshPrincipal();
  await service.record(principal, { Object: { Amount: 10 } });
  await service.refund(principal, 1, { IsQueue: true, Object: { Amount: 3 } });

  await deadLetterOf(queue.deadLetterQueueUrl);
  await eventually(async () => (returned.length === 5 ? true : undefined), 'the fifth invocation returned', { timeoutMs: 10_000, intervalMs: 50 });
  expect(await service.get(principal, 2)).toMatchObject({ Status: 'Queued', Version: 1 });
  expect(await service.get(principal, 1)).toMatchObject({ RefundedAmount: 3, Balance: 7 });
});

it('leaves a refund Queued and reserved in the DLQ when even its Failed marking fails (a brownout), and a redrive completes it once', async () => {
  let brownout = true;
  const throttled = () => Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ThrottlingException' });
  // The completion fails for a reason of its own (so the last receive tries the Failed marking), which DynamoDB refuses.
  const unreadable = () => new TypeError('the stored refund cannot be read');
  const { queue, service, returned } = await queueWith((real) =>
    createRefundConsumer({
      completeQueuedRefund: async (message) => (brownout ? Promise.reject(unreadable()) : real.completeQueuedRefund(message)),
      failQueuedRefund: async (message) => (brownout ? Promise.reject(throttled()) : real.failQueuedRefund(message)),
    }),
  );
  const principal = freshPrincipal();
  await service.record(principal, { Object: { Amount: 10 } });
  await service.refund(principal, 1, { IsQueue: true, Object: { Amount: 4 } });

  const deadLetter = await deadLetterOf(queue.deadLetterQueueUrl);
  await eventually(async () => (returned.length === 5 ? true : undefined), 'the fifth invocation returned', { timeoutMs: 10_000, intervalMs: 50 });
  // Nothing lost: still Queued, its amount still reserved (no second refund may take it).
  expect(await service.get(principal, 2)).toMatchObject({ Status: 'Queued', Version: 1 });
  expect(await service.get(principal, 1)).toMatchObject({ RefundedAmount: 4, Balance: 6 });
  await expect(service.refund(principal, 1, { Object: { Amount: 6.01 } })).rejects.toMatchObject({ status: 409 });

  // The outage ends; the operator redrives the DLQ (npm run redrive: sent back, then deleted from the DLQ).
  brownout = false;
  await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: deadLetter.Body ?? '' }));
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queue.deadLetterQueueUrl, ReceiptHandle: deadLetter.ReceiptHandle }));
  const done = await refundedOnce(service, principal, 'the redriven refund completed');
  expect(done).toMatchObject({ Version: 2, IsPaid: true });
  expect(await service.get(principal, 1)).toMatchObject({ RefundedAmount: 4, Balance: 6, Refunds: [{ ID: 2, Status: 'Refunded' }] });
});
