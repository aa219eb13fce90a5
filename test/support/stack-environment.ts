// Test support: what a test reads of a running local stack, as environment variables. global-setup.ts puts the
// shared stack's in process.env (workers inherit it); a chaos test file puts its own stack's in its own environment.
import { localDevSecret } from '#shared/auth/tokens';
import { queueDefinitions } from '#shared/events/queues';
import type { LocalStackReady } from './local-stack-process';

/**
 * What a test reads of a stack, as environment variables: its endpoints, table and queues, fake credentials, the
 * token secret and its log file. The chaos tier puts a stack of its own in its test files' environment the same way.
 */
export const stackEnvironment = (ready: LocalStackReady, logFile: string): Record<string, string> => ({
  E2E_BASE_URL: ready.baseUrl,
  AWS_ENDPOINT_URL_DYNAMODB: ready.dynamodbEndpoint,
  AWS_ENDPOINT_URL_SQS: ready.sqsEndpoint,
  AWS_ENDPOINT_URL_SCHEDULER: ready.schedulerEndpoint,
  AWS_ENDPOINT_URL_KMS: ready.kmsEndpoint,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: ready.secretsManagerEndpoint,
  TABLE_NAME: ready.tableName,
  // Every queue's URL under its sender variable (DOCUMENT_EVENTS_QUEUE_URL, TASK_WORK_QUEUE_URL, ...), its DLQ's
  // under the same name with DLQ (DOCUMENT_EVENTS_DLQ_URL, ...).
  ...Object.fromEntries(
    queueDefinitions.flatMap((definition) => [
      [definition.urlVariable, ready.queueUrls[definition.logicalName] as string],
      [definition.urlVariable.replace(/_QUEUE_URL$/, '_DLQ_URL'), ready.queueUrls[definition.deadLetterQueue.logicalName] as string],
    ]),
  ),
  AWS_REGION: 'us-east-1',
  AWS_DEFAULT_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AUTH_HS256_SECRET: process.env.AUTH_HS256_SECRET ?? localDevSecret,
  LOCAL_STACK_LOG_FILE: logFile,
  // The stack's pid: the local tools (npm run local, npm run redrive -- --port 0) pick it with --pid.
  LOCAL_STACK_PID: String(ready.pid),
});
