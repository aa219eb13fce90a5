// Test support: the document-events integration bench, set up once here for the integration files that run the
// area's functions in-process against the local SQS server and DynamoDB Local.
//   - documentConsumerBench(): the real consumer module (imported after the loopback check: it builds its table
//     client when loaded), an SQS and a DynamoDB client, and the document repository, closed after the file.
//   - documentEventsQueueOf(): a queue pair of the test's own, as the stack declares the document-events queue.
//   - webhookServiceOnto() / enqueue(): what the webhook does with a verified event, onto such a queue.
//   - receiveMessages(): `count` messages of a queue, polled.
//   - webhookHandlerWith(): the webhook's function module loaded with an environment of the test's (its secrets, its
//     queue), restored after the file.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ensureQueues, type ProvisionedQueue, type QueueDefinition } from '#infra/local/provision';
import { createDocumentClient } from '#shared/data/client';
import { createEventPublisher } from '#shared/document-events/publisher';
import { createDocumentRepository } from '#shared/document-events/repository';
import { createDocumentEventsService } from '#shared/document-events/service';
import type { DocumentStore } from '#shared/document-events/store';
import { environmentVariables } from '#shared/environment';
import { documentEventsQueue } from '#shared/events/queues';
import { logger } from '#shared/observability/logger';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { eventually, signed, type ProviderEvent } from './document-events';
import { localDynamoDbClient, localSqsClient, requireLocalEndpoints } from './local-endpoints';

export type ConsumerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
export type WebhookHandler = (event: APIGatewayProxyEvent, context: Context) => unknown;

export interface DocumentConsumerBench {
  readonly consume: ConsumerHandler;
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  readonly repository: DocumentStore;
}

/**
 * Registers the file's beforeAll and afterAll, and returns the bench they fill: read its members in tests and later
 * hooks, not when the file loads. The consumer's log lines (one per record, an error per poison record) are expected
 * in these tests, so the logger is silent (its metrics are off in the whole tier: quiet-metrics.ts).
 */
export const documentConsumerBench = (): DocumentConsumerBench => {
  const { tableName } = requireLocalEndpoints();
  logger.setLogLevel('SILENT');
  const bench = {} as { -readonly [Key in keyof DocumentConsumerBench]: DocumentConsumerBench[Key] };
  beforeAll(async () => {
    // Imported after the loopback check: the module builds its table client from the environment when loaded.
    ({ handler: bench.consume } = (await import('#functions/document-events/consume-document-events')) as { handler: ConsumerHandler });
    bench.sqs = localSqsClient();
    bench.dynamodb = localDynamoDbClient();
    bench.repository = createDocumentRepository({ client: createDocumentClient(bench.dynamodb), tableName });
  });
  afterAll(() => {
    bench.sqs?.destroy();
    bench.dynamodb?.destroy();
  });
  return bench;
};

/** A queue pair of the test's own (`<prefix>-<random>` and its `-dlq`), as the stack declares the document-events queue but for `overrides`. */
export const documentEventsQueueOf = async (
  sqs: SQSClient,
  prefix: string,
  overrides: Partial<Omit<QueueDefinition, 'localQueueName' | 'deadLetterQueue'>> = {},
): Promise<{ readonly queue: ProvisionedQueue; readonly definition: QueueDefinition }> => {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  const definition: QueueDefinition = {
    ...documentEventsQueue,
    ...overrides,
    localQueueName: name,
    deadLetterQueue: { ...documentEventsQueue.deadLetterQueue, localQueueName: `${name}-dlq` },
  };
  return { queue: await ensureQueues(sqs, definition), definition };
};

/** What the webhook does with a verified event: the real service and publisher (the local secret), onto `queueUrl`. */
export const webhookServiceOnto = (queueUrl: string, sqs: SQSClient) =>
  createDocumentEventsService({ publisher: createEventPublisher(queueUrl, sqs), secrets: async () => [localWebhookSecret] });

/** Signs `event` and has the webhook's service put it on `queueUrl`; answers its event id. */
export const enqueue = async (sqs: SQSClient, queueUrl: string, event: ProviderEvent): Promise<string> =>
  (await webhookServiceOnto(queueUrl, sqs).accept(signed(event))).eventId;

/** Receives `count` messages of `queueUrl`, all attributes (they stay in flight for the queue's visibility timeout). */
export const receiveMessages = async (sqs: SQSClient, queueUrl: string, count: number): Promise<Message[]> => {
  const messages: Message[] = [];
  await eventually(
    async () => {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, AttributeNames: ['All'] }));
      messages.push(...Messages);
      return messages.length >= count ? true : undefined;
    },
    `${count} messages on ${queueUrl}`,
  );
  expect(messages).toHaveLength(count);
  return messages;
};

/**
 * Registers the file's beforeAll and afterAll: `prepare` (the test's queue, its SQS server) answers the environment
 * the webhook's function is loaded with, as on a cold start (the webhook secrets from WEBHOOK_SECRETS, never from the
 * secret's ARN, which is unset); after the file every variable is as it was. Returns the bench the hook fills.
 */
export const webhookHandlerWith = (prepare: () => Promise<Readonly<Record<string, string>>>): { readonly webhook: WebhookHandler } => {
  requireLocalEndpoints();
  // The access log and the error lines are expected here; the responses are what is asserted.
  logger.setLogLevel('SILENT');
  const bench = {} as { webhook: WebhookHandler };
  const saved = new Map<string, string | undefined>();
  beforeAll(async () => {
    const environment = await prepare();
    for (const name of [...Object.keys(environment), environmentVariables.webhookSecretArn]) saved.set(name, process.env[name]);
    Object.assign(process.env, environment);
    delete process.env[environmentVariables.webhookSecretArn];
    ({ handler: bench.webhook } = (await import('#functions/document-events/webhook')) as { handler: WebhookHandler });
  });
  afterAll(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  return bench;
};
