// Unit: `defineQueue` (shared/events/queues.ts): a queue's names and send grant derive from its name, it carries its
// message contract, its settings have the
// service's defaults, and a consumed queue always reports partial batch failures.
import { existsSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { jsonMessage } from '#shared/events/message-contract';
import { consumerTimeoutSeconds, defineQueue, queueDefinitions } from '#shared/events/queues';
import { resourceGrants } from '#shared/operations/grants';

const message = jsonMessage('note', { parse: (value: unknown) => value as { readonly note: string } });

describe('defineQueue', () => {
  it('derives the dead-letter queue, the names, the URL variable and the send grant from the name, with the defaults', () => {
    expect(defineQueue({ name: 'orderNotes', message, maximumMessageBytes: 1024 })).toEqual({
      name: 'orderNotes',
      message,
      sendGrant: 'sendOrderNotes',
      logicalName: 'OrderNotes',
      localQueueName: 'order-notes',
      urlVariable: 'ORDER_NOTES_QUEUE_URL',
      visibilityTimeoutSeconds: consumerTimeoutSeconds * 6 + 1,
      retentionPeriodSeconds: 4 * 24 * 60 * 60,
      maximumMessageBytes: 1024,
      deadLetterQueue: { logicalName: 'OrderNotesDlq', localQueueName: 'order-notes-dlq', maxReceiveCount: 5, retentionPeriodSeconds: 14 * 24 * 60 * 60 },
    });
  });

  it('gives a consumed queue its event source (batching window, ReportBatchItemFailures) and its consumer timeout', () => {
    const queue = defineQueue({
      name: 'notes',
      message,
      maximumMessageBytes: 1024,
      maxReceiveCount: 10,
      eventSource: { batchSize: 2, maximumConcurrency: 3 },
      consumer: { name: 'notesConsumer', description: 'notes', area: 'order-notes', tableAccess: ['dynamodb:GetItem'] },
    });
    expect(queue.deadLetterQueue.maxReceiveCount).toBe(10);
    expect(queue.eventSource).toEqual({ batchSize: 2, maximumConcurrency: 3, maxBatchingWindowSeconds: 1, reportBatchItemFailures: true });
    expect(queue.consumer.timeoutSeconds).toBe(consumerTimeoutSeconds);
    expect(queue.consumer.handler).toBe('functions/order-notes/consume-notes.ts');
  });

  it('names every consumer of the service after its queue, in its area: functions/<area>/consume-<queue>.ts, a module that exists', () => {
    for (const queue of queueDefinitions) {
      if (!('consumer' in queue)) continue;
      expect(queue.consumer.handler).toMatch(new RegExp(`^functions/[a-z-]+/consume-${queue.localQueueName}\\.ts$`));
      expect(existsSync(queue.consumer.handler)).toBe(true);
    }
    expect(() => defineQueue({ name: 'notes', message, maximumMessageBytes: 1, eventSource: { batchSize: 1, maximumConcurrency: 2 }, consumer: { name: 'n', description: 'n', area: '../up', tableAccess: [] } })).toThrow('kebab-case');
  });

  it('refuses a name that is not camelCase, and a consumer without its event source', () => {
    expect(() => defineQueue({ name: 'Order-notes', message, maximumMessageBytes: 1 })).toThrow('camelCase');
    expect(() =>
      defineQueue({ name: 'notes', message, maximumMessageBytes: 1, consumer: { name: 'n', description: 'n', area: 'notes', tableAccess: [] } }),
    ).toThrow('both its event source and its consumer');
  });

  it('gives every queue of the service a named message contract and a send grant that grants.ts defines', () => {
    for (const queue of queueDefinitions) {
      expect(queue.message.name).toEqual(expect.any(String));
      expect(Object.keys(resourceGrants)).toContain(queue.sendGrant);
    }
  });

  it('keeps every queue of the service within SQS\'s limits, with a visibility timeout AWS accepts for its consumer', () => {
    for (const queue of queueDefinitions) {
      expect(queue.maximumMessageBytes).toBeLessThanOrEqual(256 * 1024);
      if ('consumer' in queue) expect(queue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(queue.consumer.timeoutSeconds * 6);
    }
  });
});
