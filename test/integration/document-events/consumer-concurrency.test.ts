// Integration (regression): invocations of the document-events consumer that overlap in ONE process, as the local
// event source mapping runs them (up to maximumConcurrency = 10 at once in the stack's process). The handler module
// is imported once and invoked ten times concurrently with batches of ten records; their record handlers await
// DynamoDB Local, so the invocations interleave. Each must report its own poison record and no record of another
// batch (a module-level BatchProcessor shared the records and failures of every invocation in flight), and every
// valid event is applied exactly once: at once, or, when a starved machine made a call outlast the client's request
// timeout, on the delivery SQS would make next.
import { setTimeout as delay } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { succeededRecords, toSqsRecord } from '#infra/local/event-source-mapping';
import type { ProvisionedQueue } from '#infra/local/provision';
import { documentEventsQueue } from '#shared/events/queues';
import { freshDocumentId, freshOrganisationId, providerEvent, type ProviderEvent } from '#test/support/document-events';
import { documentConsumerBench, documentEventsQueueOf, enqueue as enqueueOnto, receiveMessages } from '#test/support/document-events-bench';
import { lambdaContext } from '#test/support/lambda-events';
import { requireLocalEndpoints } from '#test/support/local-endpoints';

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
  // One batch's messages at a time: a hundred sends at once queued behind each other in the stack's SQS server, and
  // on a starved machine (a CI run, every tier at once) the last waited past the publisher's 3 s request timeout and
  // its resends (the setup failed with 503, 'could not be queued'). What runs at once here is the consumer, below.
  const plans: { position: number | undefined; valid: { event: ProviderEvent; eventId: string }[]; poisonBody: string | undefined }[] = [];
  for (const [batch, position] of poisonAt.entries()) {
    const slots = Array.from({ length: batchSize }, (_, slot) => slot).filter((slot) => slot !== position);
    const valid = await Promise.all(
      slots.map(async (slot) => {
        const event = providerEvent('document.uploaded', { organisationId, documentId: freshDocumentId(`b${batch}-r${slot}`), userId: `uploader-${batch}` });
        return { event, eventId: await enqueue(event) };
      }),
    );
    const poisonBody = position === undefined ? undefined : `{"eventId": "batch ${batch} never closed"`;
    if (poisonBody !== undefined) await bench.sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: poisonBody }));
    plans.push({ position, valid, poisonBody });
  }
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

/**
 * SQS delivers a failed record again only once the queue's visibility timeout has passed (minutes here), so the
 * receives of a message are spread over far more time than a dependency's stall. This bench compresses that wait to
 * the moment DynamoDB answers again, never beyond the timeout: on a starved machine DynamoDB Local stalls for
 * seconds, and five receives sent back to back would all fall inside one stall (the consumer's calls time out; the
 * records would go to the dead-letter queue here where SQS would have applied them). The probe's client has no
 * request timeout of its own: it waits for the answer.
 */
const visibilityTimeoutPassed = async (): Promise<void> => {
  const abortSignal = AbortSignal.timeout(documentEventsQueue.visibilityTimeoutSeconds * 1000);
  await bench.dynamodb.send(new DescribeTableCommand({ TableName: requireLocalEndpoints().tableName }), { abortSignal }).catch(() => undefined);
};

/**
 * Delivers `records` again as SQS does after the visibility timeout (their receive count one higher), until the
 * consumer names none of them or the queue's maxReceiveCount is spent; returns the ids still failing then (records
 * that would go to the dead-letter queue).
 */
const deliverAgain = async (records: readonly SQSRecord[]): Promise<string[]> => {
  const { maxReceiveCount } = documentEventsQueue.deadLetterQueue;
  let pending = [...records];
  for (let receive = 2; pending.length > 0 && receive <= maxReceiveCount; receive += 1) {
    await visibilityTimeoutPassed();
    const again = pending.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(receive) } }));
    const { batchItemFailures } = await bench.consume({ Records: again }, lambdaContext(documentEventsQueue.consumer.name));
    const failed = new Set(batchItemFailures.map(({ itemIdentifier }) => itemIdentifier));
    // A delivery names only records it was given.
    expect([...failed].filter((id) => !pending.some((record) => record.messageId === id))).toEqual([]);
    pending = pending.filter((record) => failed.has(record.messageId));
  }
  return pending.map((record) => record.messageId);
};

describe(`${maximumConcurrency} invocations of one handler module in flight at once`, () => {
  it.each([
    ['all started together', 0],
    ['started 1 ms apart, each while the earlier ones are still applying', 1],
  ])('(%s) each reports its own poison record and no record of another batch; every valid event is applied once', async (_start, staggerMs) => {
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
    const label = (messageId: string) => labels.get(messageId) ?? `unknown ${messageId}`;
    const reported = runs.map(({ response }) => response.batchItemFailures.map(({ itemIdentifier }) => label(itemIdentifier)));
    // Each invocation names its own poison record and only records of its own batch, each once. A valid record may
    // be named too: on a starved machine DynamoDB Local's answer can come after the client's request timeout, and the
    // record fails as it would on AWS, to be delivered again (below). That is a retry, never another batch's report.
    reported.forEach((names, batch) => {
      const position = poisonAt[batch];
      if (position !== undefined) expect(names).toContain(`batch ${batch} record ${position}`);
      expect(names.filter((name) => !name.startsWith(`batch ${batch} record `))).toEqual([]);
      expect(new Set(names).size).toBe(names.length);
    });
    const redelivered = await Promise.all(
      batches.map(async ({ event, poison }, index) => {
        const response = runs[index]?.response ?? { batchItemFailures: [] };
        // What the event source mapping deletes: every record of the batch but the ones the response names.
        const failed = new Set(response.batchItemFailures.map(({ itemIdentifier }) => itemIdentifier));
        expect(succeededRecords(event.Records, response, true)).toEqual(event.Records.filter((record) => !failed.has(record.messageId)));
        return (await deliverAgain(event.Records.filter((record) => record !== poison && failed.has(record.messageId)))).map(label);
      }),
    );
    // Delivered again, every valid record that failed is applied; the poison records were never delivered again.
    expect(redelivered.flat()).toEqual([]);

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
