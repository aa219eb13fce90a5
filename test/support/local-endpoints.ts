// Test support: the endpoints of the local stack, for integration tests. Refuses anything but a loopback URL, so
// a test can never write to a real AWS account because an environment variable was missing.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface LocalEndpoints {
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly tableName: string;
  readonly documentEventsQueueUrl: string;
  readonly documentEventsDlqUrl: string;
}

const loopbackHosts = new Set(['localhost', '[::1]', '::1']);

export const isLoopbackUrl = (value: string | undefined): boolean => {
  if (!value) return false;
  try {
    const { hostname, protocol } = new URL(value);
    return (protocol === 'http:' || protocol === 'https:') && (loopbackHosts.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname));
  } catch {
    return false;
  }
};

const loopback = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = env[name];
  if (!isLoopbackUrl(value)) {
    throw new Error(
      `${name} is ${value ? `"${value}", not a loopback URL` : 'not set'}: integration tests run only against the local ` +
        'stack (jest globalSetup test/support/global-setup.ts starts it). Run them with `npm run test:integration`.',
    );
  }
  return value as string;
};

const required = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: run integration tests through jest so global-setup.ts sets it.`);
  return value;
};

/** Throws unless DynamoDB and SQS point at loopback endpoints (the local stack). */
export const requireLocalEndpoints = (env: NodeJS.ProcessEnv = process.env): LocalEndpoints => ({
  dynamodbEndpoint: loopback(env, 'AWS_ENDPOINT_URL_DYNAMODB'),
  sqsEndpoint: loopback(env, 'AWS_ENDPOINT_URL_SQS'),
  documentEventsQueueUrl: loopback(env, 'DOCUMENT_EVENTS_QUEUE_URL'),
  documentEventsDlqUrl: loopback(env, 'DOCUMENT_EVENTS_DLQ_URL'),
  tableName: required(env, 'TABLE_NAME'),
});

const clientConfig = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } as const;

/** A DynamoDB client bound to the local stack (after the loopback check). Call `destroy()` in afterAll. */
export const localDynamoDbClient = (): DynamoDBClient =>
  new DynamoDBClient({ ...clientConfig, endpoint: requireLocalEndpoints().dynamodbEndpoint });

/** An SQS client bound to the local stack (after the loopback check). Call `destroy()` in afterAll. */
export const localSqsClient = (): SQSClient => new SQSClient({ ...clientConfig, endpoint: requireLocalEndpoints().sqsEndpoint });
