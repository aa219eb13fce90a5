// Integration: the document-events consumer (functions/document-events/consume-document-events.ts) invoked in-process with SQS
// batches whose records the real webhook service put on a queue of the local SQS server. A poison record is reported
// alone in the partial batch response; its batch-mates are applied to DynamoDB Local.
import { beforeAll, describe, expect, it } from '@jest/globals';
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
