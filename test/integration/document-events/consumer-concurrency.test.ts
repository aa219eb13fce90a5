// Integration (regression): invocations of the document-events consumer that overlap in ONE process, as the local
// event source mapping runs them (up to maximumConcurrency = 10 at once in the stack's process). The handler module
// is imported once and invoked ten times concurrently with batches of ten records; their record handlers await
// DynamoDB Local, so the invocations interleave. Each must report exactly its own poison record (a module-level
// BatchProcessor shared the records and failures of every invocation in flight) and every valid event is applied.
import { setTimeout as delay } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { succeededRecords, toSqsRecord } from '#infra/local/event-source-mapping';
import type { ProvisionedQueue } from '#infra/local/provision';
import { documentEventsQueue } from '#shared/events/queues';
import { freshDocumentId, freshOrganisationId, providerEvent, type ProviderEvent } from '#test/support/document-events';
import { documentConsumerBench, documentEventsQueueOf, enqueue as enqueueOnto, receiveMessages } from '#test/support/document-events-bench';
import { lambdaContext } from '#test/support/lambda-events';

// Imported once (the bench's beforeAll), after the loopback check: one process's copy of the module.
const bench = documentConsumerBench();
let queue: ProvisionedQueue;

const { batchSize, maximumConcurrency } = documentEventsQueue.eventSource;
/** Where each batch's poison record (invalid JSON) sits; undefined: a batch of valid events only. */
const poisonAt: readonly (number | undefined)[] = [0, undefined, 9, 4, undefined, 1, 7, undefined, 5, 2];

beforeAll(async () => {
  ({ queue } = await documentEventsQueueOf(bench.sqs, 'de-concurrency'));
});

/** What the webhook does with a verified event: the real service and publisher, onto this test's queue. */
const enqueue = (event: ProviderEvent): Promise<string> => enqueueOnto(bench.sqs, queue.queueUrl, event);

/** Receives `count` messages (they stay in flight for the queue's visibility timeout). */
const receive = (count: number) => receiveMessages(bench.sqs, queue.queueUrl, count);

interface PlannedBatch {
  readonly event: SQSEvent;
  /** The valid events of the batch (one document each) with their event ids. */
  readonly valid: readonly { readonly event: ProviderEvent; readonly eventId: string }[];
  readonly poison?: SQSRecord;
}

/**
 * Ten batches of ten records, all put on the queue by the real webhook service (the poison records sent raw) and
 * received back, then laid out as planned: batch i holds its poison record, if any, at position poisonAt[i].
 */
const planBatches = async (organisationId: string): Promise<PlannedBatch[]> => {
  const plans = await Promise.all(
    poisonAt.map(async (position, batch) => {
      const slots = Array.from({ length: batchSize }, (_, slot) => slot);
      const valid = await Promise.all(
        slots
          .filter((slot) => slot !== position)
          .map(async (slot) => {
            const event = providerEvent('document.uploaded', { organisationId, documentId: freshDocumentId(`b${batch}-r${slot}`), userId: `uploader-${batch}` });
            return { event, eventId: await enqueue(event) };
          }),
      );
      const poisonBody = position === undefined ? undefined : `{"eventId": "batch ${batch} never closed"`;
      if (poisonBody !== undefined) await bench.sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: poisonBody }));
      return { position, valid, poisonBody };
    }),
  );
  const messages = await receive(poisonAt.length * batchSize);
  const byBody = new Map(messages.map((message) => [message.Body ?? '', message]));
  const byEventId = new Map(
    messages.flatMap((message) => {
      try {
        return [[(JSON.parse(message.Body ?? '') as { eventId: string }).eventId, message] as const];
      } catch {
        return [];
      }
    }),
  );
  const recordOf = (message: Message | undefined): SQSRecord => {
    if (!message) throw new Error('a planned message was not received');
    return toSqsRecord(message, queue.queueArn, 'us-east-1');
  };
  return plans.map(({ position, valid, poisonBody }) => {
    const records = valid.map(({ eventId }) => recordOf(byEventId.get(eventId)));
    const poison = poisonBody === undefined ? undefined : recordOf(byBody.get(poisonBody));
    if (position !== undefined && poison) records.splice(position, 0, poison);
    return { event: { Records: records }, valid, ...(poison ? { poison } : {}) };
  });
};

describe(`${maximumConcurrency} invocations of one handler module in flight at once`, () => {
  it.each([
    ['all started together', 0],
    ['started 1 ms apart, each while the earlier ones are still applying', 1],
  ])('(%s) each reports only its own poison record; every valid event is applied', async (_start, staggerMs) => {
    expect(poisonAt).toHaveLength(maximumConcurrency);
    const organisationId = freshOrganisationId();
    const batches = await planBatches(organisationId);
    expect(batches.map(({ event }) => event.Records.length)).toEqual(poisonAt.map(() => batchSize));

    const invoke = async (batch: SQSEvent, index: number) => {
      if (staggerMs > 0) await delay(index * staggerMs);
      const startedAt = performance.now();
      const response = await bench.consume(batch, lambdaContext(documentEventsQueue.consumer.name));
      return { response, startedAt, settledAt: performance.now() };
    };
    const runs = await Promise.all(batches.map(({ event }, index) => invoke(event, index)));

    // The invocations really overlapped: the last one started before the first one finished.
    expect(Math.max(...runs.map(({ startedAt }) => startedAt))).toBeLessThan(Math.min(...runs.map(({ settledAt }) => settledAt)));

    // Failures named by batch and position, so a report naming another batch's record reads as such.
    const labels = new Map(batches.flatMap(({ event }, batch) => event.Records.map((record, slot) => [record.messageId, `batch ${batch} record ${slot}`] as const)));
    const reported = runs.map(({ response }) => response.batchItemFailures.map(({ itemIdentifier }) => labels.get(itemIdentifier) ?? `unknown ${itemIdentifier}`));
    expect(reported).toEqual(poisonAt.map((position, batch) => (position === undefined ? [] : [`batch ${batch} record ${position}`])));
    batches.forEach(({ event, poison }, index) => {
      const run = runs[index];
      expect(run?.response).toEqual({ batchItemFailures: poison ? [{ itemIdentifier: poison.messageId }] : [] });
      // What the event source mapping deletes: every record of the batch but its poison one.
      expect(succeededRecords(event.Records, run?.response, true)).toEqual(event.Records.filter((record) => record !== poison));
    });

    const expected = batches.flatMap(({ valid }) => valid);
    expect(expected).toHaveLength(poisonAt.length * batchSize - poisonAt.filter((position) => position !== undefined).length);
    const states = await Promise.all(expected.map(({ event }) => bench.repository.getState(organisationId, event.data.object.id)));
    expect(states).toEqual(
      expected.map(({ event, eventId }) =>
        expect.objectContaining({
          documentId: event.data.object.id,
          state: 'Uploaded',
          userId: event.userId,
          stateEvent: expect.objectContaining({ eventId, type: 'document.uploaded' }),
          eventCount: 1,
          version: 1,
        }),
      ),
    );
  });
});
