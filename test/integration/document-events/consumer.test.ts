// Integration: the document-events consumer (functions/document-events/consume-document-events.ts) invoked in-process with SQS
// batches whose records the real webhook service put on a queue of the local SQS server. A poison record is reported
// alone in the partial batch response; its batch-mates are applied to DynamoDB Local.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ReceiveMessageCommand, SendMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { toSqsRecord } from '#infra/local/event-source-mapping';
import { ensureQueues, type ProvisionedQueue } from '#infra/local/provision';
import { createDocumentClient } from '#shared/data/client';
import { createEventPublisher } from '#shared/document-events/publisher';
import { createDocumentRepository } from '#shared/document-events/repository';
import type { DocumentStore } from '#shared/document-events/store';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { createDocumentEventsService } from '#shared/document-events/service';
import { documentEventsQueue } from '#shared/events/queues';
import { logger } from '#shared/observability/logger';
import {
  eventually,
  freshDocumentId,
  freshOrganisationId,
  idOf,
  nowSeconds,
  providerEvent,
  signed,
  type ProviderEvent,
} from '#test/support/document-events';
import { lambdaContext } from '#test/support/lambda-events';
import { localDynamoDbClient, localSqsClient, requireLocalEndpoints } from '#test/support/local-endpoints';

const { tableName } = requireLocalEndpoints();
// The consumer logs one line per record (and an error per poison record): expected here, noise in the report.
logger.setLogLevel('SILENT');

type ConsumerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
let consume: ConsumerHandler;
let sqs: SQSClient;
let dynamodb: DynamoDBClient;
let repository: DocumentStore;
let queue: ProvisionedQueue;

beforeAll(async () => {
  // Imported after the loopback check: the module builds its table client from the environment when loaded.
  ({ handler: consume } = (await import('#functions/document-events/consume-document-events')) as { handler: ConsumerHandler });
  sqs = localSqsClient();
  dynamodb = localDynamoDbClient();
  repository = createDocumentRepository({ client: createDocumentClient(dynamodb), tableName });
  const name = `de-consumer-${randomUUID().slice(0, 8)}`;
  queue = await ensureQueues(sqs, {
    ...documentEventsQueue,
    localQueueName: name,
    deadLetterQueue: { ...documentEventsQueue.deadLetterQueue, localQueueName: `${name}-dlq` },
  });
});

afterAll(() => {
  sqs.destroy();
  dynamodb.destroy();
});

/** What the webhook does with a verified event: the real service and publisher, onto this test's queue. */
const enqueue = async (event: ProviderEvent): Promise<string> => {
  const webhook = createDocumentEventsService({ publisher: createEventPublisher(queue.queueUrl, sqs), secrets: async () => [localWebhookSecret] });
  return (await webhook.accept(signed(event))).eventId;
};

const enqueueRaw = async (body: string): Promise<void> => {
  await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: body }));
};

/** Receives `count` messages (they stay in flight for the queue's 181 s visibility timeout) as one SQS event. */
const receiveBatch = async (count: number): Promise<{ event: SQSEvent; messages: Message[] }> => {
  const messages: Message[] = [];
  await eventually(
    async () => {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, AttributeNames: ['All'] }),
      );
      messages.push(...Messages);
      return messages.length >= count ? true : undefined;
    },
    `${count} messages on ${queue.queueUrl}`,
  );
  expect(messages).toHaveLength(count);
  return { event: { Records: messages.map((message) => toSqsRecord(message, queue.queueArn, 'us-east-1')) }, messages };
};

const messageIdOf = (event: SQSEvent, body: string): string => {
  const record = event.Records.find((candidate) => candidate.body === body);
  if (!record) throw new Error(`no record with body ${body}`);
  return record.messageId;
};

const stateOf = async (event: ProviderEvent) =>
  (await repository.get(event.organisationId, event.data.object.id))?.state;

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
    const applied = await repository.get(organisationId, documentId);

    const redelivered = { Records: batch.Records.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: '2' } })) };
    const response = await consume(redelivered, lambdaContext('documentEventsConsumer'));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await repository.get(organisationId, documentId)).toEqual(applied);
    expect(applied?.state).toMatchObject({ state: 'Processed', stateEvent: { eventId: idOf(events[2] as ProviderEvent) }, eventCount: 3, version: 3 });
  });
});
