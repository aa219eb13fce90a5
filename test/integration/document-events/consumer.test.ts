// Integration: the document-events consumer (functions/document-events/consume-document-events.ts) invoked in-process with SQS
// batches whose records the real webhook service put on a queue of the local SQS server. A poison record is reported
// alone in the partial batch response; its batch-mates are applied to DynamoDB Local.
import { afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { toSqsRecord } from '#infra/local/event-source-mapping';
import type { ProvisionedQueue } from '#infra/local/provision';
import {
  freshDocumentId,
  freshOrganisationId,
  idOf,
  nowSeconds,
  providerEvent,
  type ProviderEvent,
} from '#test/support/document-events';
import { documentConsumerBench, documentEventsQueueOf, enqueue as enqueueOnto, receiveMessages } from '#test/support/document-events-bench';
import { documentEventsQueue } from '#shared/events/queues';
import { createDocumentEventsService } from '#shared/document-events/service';
import { logger } from '#shared/observability/logger';
import { lambdaContext } from '#test/support/lambda-events';

const bench = documentConsumerBench();
let queue: ProvisionedQueue;

beforeAll(async () => {
  ({ queue } = await documentEventsQueueOf(bench.sqs, 'de-consumer'));
});

const consume: typeof bench.consume = (event, context) => bench.consume(event, context);

/** What the webhook does with a verified event: the real service and publisher, onto this test's queue. */
const enqueue = (event: ProviderEvent): Promise<string> => enqueueOnto(bench.sqs, queue.queueUrl, event);

const enqueueRaw = async (body: string): Promise<void> => {
  await bench.sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: body }));
};

/** Receives `count` messages (they stay in flight for the queue's 181 s visibility timeout) as one SQS event. */
const receiveBatch = async (count: number): Promise<{ event: SQSEvent; messages: Message[] }> => {
  const messages = await receiveMessages(bench.sqs, queue.queueUrl, count);
  return { event: { Records: messages.map((message) => toSqsRecord(message, queue.queueArn, 'us-east-1')) }, messages };
};

const messageIdOf = (event: SQSEvent, body: string): string => {
  const record = event.Records.find((candidate) => candidate.body === body);
  if (!record) throw new Error(`no record with body ${body}`);
  return record.messageId;
};

const stateOf = async (event: ProviderEvent) =>
  (await bench.repository.get(event.organisationId, event.data.object.id))?.state;

describe('a batch with one poison record', () => {
  const organisationId = freshOrganisationId();

  it.each([
    ['invalid JSON', () => '{"eventId": "not closed"'],
    [
      'a message the webhook never writes (no receivedAt)',
      () => JSON.stringify({ eventId: 'a'.repeat(64), t: nowSeconds(), event: providerEvent('document.uploaded', { organisationId, documentId: freshDocumentId() }) }),
    ],
    [
      'an event without its document id',
      () => JSON.stringify({ eventId: 'b'.repeat(64), t: nowSeconds(), receivedAt: new Date().toISOString(), event: { type: 'document.uploaded', userId: 'u', organisationId, data: { object: {} } } }),
    ],
  ])('(%s) reports exactly that record and applies the others', async (_kind, poisonBody) => {
    const documentId = freshDocumentId();
    const uploaded = providerEvent('document.uploaded', { organisationId, documentId, userId: 'uploader' });
    const processing = providerEvent('document.processing', { organisationId, documentId, userId: 'worker', object: { progress: 50 } });
    const other = providerEvent('document.uploaded', { organisationId, documentId: freshDocumentId(), userId: 'uploader' });
    const poison = poisonBody();
    await enqueue(uploaded);
    await enqueueRaw(poison);
    await enqueue(processing);
    await enqueue(other);
    const { event } = await receiveBatch(4);

    const response = await consume(event, lambdaContext('documentEventsConsumer'));

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: messageIdOf(event, poison) }] });
    expect(await stateOf(uploaded)).toMatchObject({ state: 'Processing', userId: 'worker', eventCount: 2, version: 2 });
    expect(await stateOf(other)).toMatchObject({ state: 'Uploaded', eventCount: 1, version: 1 });
  });
});

describe('a batch redelivered after it was applied', () => {
  it('succeeds whole and changes nothing: duplicates count as success', async () => {
    const organisationId = freshOrganisationId();
    const documentId = freshDocumentId();
    const events = [
      providerEvent('document.uploaded', { organisationId, documentId }),
      providerEvent('document.processing', { organisationId, documentId }),
      providerEvent('document.processed', { organisationId, documentId, object: { pages: 2 } }),
    ];
    for (const event of events) await enqueue(event);
    const { event: batch } = await receiveBatch(3);
    expect(await consume(batch, lambdaContext('documentEventsConsumer'))).toEqual({ batchItemFailures: [] });
    const applied = await bench.repository.get(organisationId, documentId);

    const redelivered = { Records: batch.Records.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: '2' } })) };
    const response = await consume(redelivered, lambdaContext('documentEventsConsumer'));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await bench.repository.get(organisationId, documentId)).toEqual(applied);
    expect(applied?.state).toMatchObject({ state: 'Processed', stateEvent: { eventId: idOf(events[2] as ProviderEvent) }, eventCount: 3, version: 3 });
  });
});

describe('a record whose store call fails', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it.each([
    ['an earlier receive', 1, 'warn', 'document event not applied; it will be retried'],
    ['its last receive', documentEventsQueue.deadLetterQueue.maxReceiveCount, 'error', 'document event not applied, for good: it goes to the dead-letter queue'],
  ] as const)('on %s: fails alone, is logged by its ids and error class (never the message), and applies when delivered again', async (_receive, receiveCount, level, words) => {
    const { createDocumentEventsConsumer } = await import('#functions/document-events/consume-document-events');
    const real = createDocumentEventsService({ store: bench.repository });
    const organisationId = freshOrganisationId();
    const failing = providerEvent('document.uploaded', { organisationId, documentId: freshDocumentId(), userId: 'uploader' });
    const other = providerEvent('document.uploaded', { organisationId, documentId: freshDocumentId(), userId: 'uploader' });
    // The store's answer came too late once (the SDK's TimeoutError, whose message names the request).
    let fail = true;
    const flaky = createDocumentEventsConsumer({
      apply: async (message) => {
        if (fail && message.eventId === idOf(failing)) {
          fail = false;
          throw Object.assign(new Error(`request to the table about ${organisationId} exceeded 3000 ms`), { name: 'TimeoutError', code: 'ETIMEDOUT' });
        }
        return real.apply(message);
      },
    });
    await enqueue(failing);
    await enqueue(other);
    const { event } = await receiveBatch(2);
    const delivered = { Records: event.Records.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(receiveCount) } })) };
    const lines: unknown[][] = [];
    jest.spyOn(logger, level).mockImplementation((...args: unknown[]) => void lines.push(args));

    const response = await flaky(delivered, lambdaContext('documentEventsConsumer'));

    const failedId = event.Records.find((record) => record.body.includes(idOf(failing)))?.messageId;
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: failedId }] });
    expect(lines).toEqual([
      [words, expect.objectContaining({ messageId: failedId, eventId: idOf(failing), type: 'document.uploaded', receiveCount, errorName: 'TimeoutError', errorCode: 'ETIMEDOUT' })],
    ]);
    expect(JSON.stringify(lines)).not.toContain('exceeded 3000 ms');
    expect(JSON.stringify(lines)).not.toContain(organisationId);
    expect(await stateOf(other)).toMatchObject({ state: 'Uploaded', eventCount: 1 });
    expect(await stateOf(failing)).toBeUndefined();

    // Delivered again (SQS, after the visibility timeout): applied once.
    expect(await flaky({ Records: delivered.Records.filter((record) => record.messageId === failedId) }, lambdaContext('documentEventsConsumer'))).toEqual({ batchItemFailures: [] });
    expect(await stateOf(failing)).toMatchObject({ state: 'Uploaded', eventCount: 1, version: 1 });
  });
});
