// Local stack: the whole service on one machine, without Docker or an AWS account. DynamoDB Local and the SQS
// server stand in for the stateful resources, provisioned from the shared definitions; the gateway and the
// event source mappings run the same handler modules the CDK stack bundles, in this process.
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { localDevSecret } from '../../shared/auth/tokens';
import { tableDefinition } from '../../shared/data/table';
import { localWebhookSecret } from '../../shared/document-events/secrets';
import { documentEventsQueue, paymentsQueue } from '../../shared/events/queues';
import { paymentsQueueUrlVariable } from '../../shared/payments/queue';
import { queueConsumers as defaultConsumers, type QueueConsumer } from './consumers';
import { startDynamoDbLocal } from './dynamodb-local';
import { startEventSourceMapping, type RunningEventSourceMapping } from './event-source-mapping';
import { startGateway, type GatewayOptions } from './gateway';
import { cachedHandlerLoader, importFromRepoRoot, repoRoot } from './lambda-runtime';
import { findFreePort, localAccountId, localCredentials, localRegion } from './local-aws';
import { ensureQueues, ensureTable } from './provision';

export const defaultDataDir = join(repoRoot, '.local');

export interface LocalStackOptions {
  /** Gateway port; 0 picks a free one (and free ports for DynamoDB Local and SQS too). */
  readonly port: number;
  readonly dynamodbPort?: number;
  readonly sqsPort?: number;
  /** Keep DynamoDB in memory instead of `<dataDir>/dynamodb`. */
  readonly inMemory: boolean;
  readonly dataDir?: string;
  readonly consumers?: readonly QueueConsumer[];
  readonly gateway?: Omit<GatewayOptions, 'log'>;
  readonly log?: (line: string) => void;
}

export interface LocalStackEndpoints {
  readonly baseUrl: string;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly tableName: string;
  /** By logical name: `DocumentEvents`, `DocumentEventsDlq`. */
  readonly queueUrls: Readonly<Record<string, string>>;
}

export interface LocalStack extends LocalStackEndpoints {
  stop(): Promise<void>;
}

/** What every function gets in its environment, locally as on AWS (where the stack sets the same names). */
const handlerEnvironment = (endpoints: LocalStackEndpoints): Record<string, string> => ({
  TABLE_NAME: endpoints.tableName,
  DOCUMENT_EVENTS_QUEUE_URL: endpoints.queueUrls[documentEventsQueue.logicalName] ?? '',
  [paymentsQueueUrlVariable]: endpoints.queueUrls[paymentsQueue.logicalName] ?? '',
  AWS_REGION: localRegion,
  AWS_DEFAULT_REGION: localRegion,
  // Fake credentials in-process, so nothing here can reach a real AWS account by accident.
  AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
  AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodbEndpoint,
  AWS_ENDPOINT_URL_SQS: endpoints.sqsEndpoint,
  AUTH_HS256_SECRET: process.env.AUTH_HS256_SECRET ?? localDevSecret,
  WEBHOOK_SECRETS: process.env.WEBHOOK_SECRETS ?? localWebhookSecret,
  POWERTOOLS_SERVICE_NAME: process.env.POWERTOOLS_SERVICE_NAME ?? 'business-platform-api',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'INFO',
});

export const startLocalStack = async (options: LocalStackOptions): Promise<LocalStack> => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const freePorts = options.port === 0;
  const dynamodbPort = options.dynamodbPort ?? (freePorts ? await findFreePort() : 8000);
  const sqsPort = options.sqsPort ?? (freePorts ? 0 : 9324);
  const dataDir = options.dataDir ?? defaultDataDir;
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) {
      await step().catch((error: unknown) => log(`[local-stack] stopping: ${String(error)}`));
    }
  };

  try {
    const sqsServer = await createSqsServer({
      port: sqsPort,
      hostname: '127.0.0.1',
      region: localRegion,
      accountId: localAccountId,
      // Queues are re-created on every start; AWS's 60 s wait after a delete only gets in the way locally.
      emulateQueueCreationLifecycle: false,
    });
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          sqsServer.close(() => resolve());
          sqsServer.closeAllConnections();
        }),
    );
    // createSqsServer resolves once listening.
    const sqsEndpoint = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;

    const dynamodb = await startDynamoDbLocal({
      port: dynamodbPort,
      dataDir: options.inMemory ? undefined : join(dataDir, 'dynamodb'),
      onOutput: (line) => log(`[dynamodb-local] ${line}`),
    });
    stops.push(() => dynamodb.stop());

    const clientConfig = { region: localRegion, credentials: localCredentials };
    const dynamodbClient = new DynamoDBClient({ ...clientConfig, endpoint: dynamodb.endpoint });
    const sqs = new SQSClient({ ...clientConfig, endpoint: sqsEndpoint });
    stops.push(async () => {
      dynamodbClient.destroy();
      sqs.destroy();
    });
    await ensureTable(dynamodbClient, tableDefinition, tableDefinition.localTableName);
    const documentEvents = await ensureQueues(sqs, documentEventsQueue);
    const payments = await ensureQueues(sqs, paymentsQueue);

    const endpoints: Omit<LocalStackEndpoints, 'baseUrl'> = {
      dynamodbEndpoint: dynamodb.endpoint,
      sqsEndpoint,
      tableName: tableDefinition.localTableName,
      queueUrls: {
        [documentEventsQueue.logicalName]: documentEvents.queueUrl,
        [documentEventsQueue.deadLetterQueue.logicalName]: documentEvents.deadLetterQueueUrl,
        [paymentsQueue.logicalName]: payments.queueUrl,
        [paymentsQueue.deadLetterQueue.logicalName]: payments.deadLetterQueueUrl,
      },
    };
    Object.assign(process.env, handlerEnvironment({ ...endpoints, baseUrl: '' }));

    const resolveModule = options.gateway?.resolveModule ?? importFromRepoRoot;
    const gateway = await startGateway({ ...options.gateway, resolveModule, port: options.port, log });
    stops.push(() => gateway.close());

    const loadHandler = cachedHandlerLoader(resolveModule);
    for (const consumer of options.consumers ?? defaultConsumers) {
      const provisioned = await ensureQueues(sqs, consumer.queue);
      const mapping: RunningEventSourceMapping = startEventSourceMapping({
        sqs,
        queueUrl: provisioned.queueUrl,
        queueArn: provisioned.queueArn,
        loadHandler: () => loadHandler(consumer.handler),
        functionName: consumer.functionName,
        functionTimeoutMs: consumer.timeoutSeconds * 1000,
        ...consumer.queue.eventSource,
        log,
      });
      stops.push(() => mapping.stop());
    }

    return { ...endpoints, baseUrl: gateway.baseUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
};
