// Test support: jest globalSetup of the integration and e2e projects. Starts the local stack once per run as a
// child process and hands its endpoints to every test through process.env (workers inherit it).
import { localDevSecret } from '../../shared/auth/tokens';
import { defaultLogFile, spawnLocalStack, type LocalStackProcess } from './local-stack-process';

declare global {
  // Shared with global-teardown.ts: jest runs both in its main process.
  var __localStack: LocalStackProcess | undefined;
}

export default async function globalSetup(): Promise<void> {
  // jest runs a globalSetup module once even when several selected projects name it; this guards a rerun in watch mode.
  if (globalThis.__localStack) return;
  const stack = await spawnLocalStack({ logFile: defaultLogFile });
  globalThis.__localStack = stack;
  const { ready } = stack;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  Object.assign(process.env, {
    E2E_BASE_URL: ready.baseUrl,
    AWS_ENDPOINT_URL_DYNAMODB: ready.dynamodbEndpoint,
    AWS_ENDPOINT_URL_SQS: ready.sqsEndpoint,
    TABLE_NAME: ready.tableName,
    DOCUMENT_EVENTS_QUEUE_URL: ready.queueUrls.DocumentEvents,
    DOCUMENT_EVENTS_DLQ_URL: ready.queueUrls.DocumentEventsDlq,
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AUTH_HS256_SECRET: process.env.AUTH_HS256_SECRET ?? localDevSecret,
  });
}
