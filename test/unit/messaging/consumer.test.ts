// Unit: the one consumer mechanism (shared/messaging/consumer.ts) as a black box: a handler built from a queue's
// definition (which carries its contract) and a per-message handler, invoked with SQS events. Each record is read by the contract and
// handled on its own; failures (unreadable or thrown) come back as a partial batch response naming only them; the
// handler learns the receive count and whether this is the last receive; an unreadable body never reaches a log.
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { SQSRecord } from 'aws-lambda';
import { jsonMessage } from '#shared/events/message-contract';
import { defineQueue, paymentsQueue, scheduleSyncQueue } from '#shared/events/queues';
import { consumer, type Delivery } from '#shared/messaging/consumer';
import { logger } from '#shared/observability/logger';
import { lambdaContext, sqsRecord } from '#test/support/lambda-events';

const record = (body: string, receiveCount = 1): SQSRecord => sqsRecord(body, { receiveCount });

/** A small queue whose messages are the payments queue's queued refunds. */
const queue = defineQueue({ name: 'test', message: paymentsQueue.message, maximumMessageBytes: 200, maxReceiveCount: 3 });
const refund = (refundId: number) => JSON.stringify({ tenantId: 1, refundId });

let logged: unknown[][];
beforeEach(() => {
  logged = [];
  for (const level of ['error', 'warn', 'info'] as const) {
    jest.spyOn(logger, level).mockImplementation((...args: unknown[]) => void logged.push(args));
  }
});
afterEach(() => {
  jest.restoreAllMocks();
});

describe('consumer', () => {
  it('hands each readable message to the handler, once, with its delivery; an all-good batch reports no failure', async () => {
    const seen: [unknown, Delivery][] = [];
    const handler = consumer(queue, async (message, delivery) => void seen.push([message, delivery]));
    const records = [record(refund(1)), record(refund(2), 2), record(refund(3), 3)];
    const context = lambdaContext('consumer');

    await expect(handler({ Records: records }, context)).resolves.toEqual({ batchItemFailures: [] });

    expect(seen.map(([message]) => message)).toEqual([1, 2, 3].map((refundId) => ({ tenantId: 1, refundId })));
    expect(seen.map(([, delivery]) => [delivery.messageId, delivery.receiveCount, delivery.lastReceive, delivery.context])).toEqual([
      [records[0]?.messageId, 1, false, context],
      [records[1]?.messageId, 2, false, context],
      [records[2]?.messageId, 3, true, context],
    ]);
  });

  it('reports only the records that failed: unreadable ones (never handled) and those whose handler threw', async () => {
    const handled: number[] = [];
    const handler = consumer(queue, async ({ refundId }) => {
      if (refundId === 2) throw new Error('dependency down');
      handled.push(refundId);
    });
    const good = record(refund(1));
    const failing = record(refund(2));
    const unreadable = [
      record('not json'),
      record(JSON.stringify({ tenantId: 1, refundId: 0 })),
      record(JSON.stringify({ tenantId: 1, refundId: 4, extra: true })),
      record(JSON.stringify({ tenantId: 1, refundId: 5, pad: 'x'.repeat(300) })),
    ];

    const response = await handler({ Records: [good, failing, ...unreadable, record(refund(3))] }, lambdaContext('consumer'));

    // In the order the records settled: the unreadable ones fail before the handler's failure.
    const failed = response.batchItemFailures.map(({ itemIdentifier }) => itemIdentifier).sort();
    expect(failed).toEqual([failing, ...unreadable].map(({ messageId }) => messageId).sort());
    expect(handled.sort()).toEqual([1, 3]);
  });

  it('answers a batch whose every record fails with the whole list, without throwing (SQS retries each one)', async () => {
    const handler = consumer(queue, async () => {
      throw new Error('down');
    });
    const records = [record(refund(1)), record(refund(2))];
    await expect(handler({ Records: records }, lambdaContext('consumer'))).resolves.toEqual({
      batchItemFailures: records.map(({ messageId }) => ({ itemIdentifier: messageId })),
    });
  });

  it('logs an unreadable message by its id and error class, never its body', async () => {
    const handler = consumer({ ...queue, message: jsonMessage('secret message', { parse: () => { throw new Error('bad: 4111111111111111'); } }) }, async () => undefined);
    const unreadable = record(JSON.stringify({ card: '4111111111111111' }));

    await handler({ Records: [unreadable] }, lambdaContext('consumer'));

    expect(logged).toEqual([['unreadable secret message', expect.objectContaining({ messageId: unreadable.messageId, errorName: 'Error' })]]);
    expect(JSON.stringify(logged)).not.toContain('4111111111111111');
  });

  it('reads a queue that carries two messages by its one contract (the schedule-sync queue)', async () => {
    const seen: unknown[] = [];
    const handler = consumer({ ...queue, message: scheduleSyncQueue.message }, async (message) => void seen.push(message));
    const response = await handler(
      { Records: [record('{"reconcile":"2026-03-01T09:05:00Z"}'), record('{"tenantId":1,"taskId":2,"version":3}'), record('{"reconcile":"2026-02-30T09:05:00Z"}')] },
      lambdaContext('consumer'),
    );
    expect(response.batchItemFailures).toHaveLength(1);
    expect(seen).toEqual([{ reconcile: '2026-03-01T09:05:00Z' }, { tenantId: 1, taskId: 2, version: 3 }]);
  });
});
