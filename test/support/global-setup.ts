// Test support: jest globalSetup of the integration and e2e projects. Starts the local stack once per run as a
// child process and hands its endpoints to every test through process.env (workers inherit it).
import { localDevSecret } from '#shared/auth/tokens';
import { queueDefinitions } from '#shared/events/queues';
import { readdir, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runLogFile, spawnLocalStack, type LocalStackProcess } from './local-stack-process';
import { ensureCloudAssembly } from '#infra/local/cloud-assembly';

declare global {
  // Shared with global-teardown.ts: jest runs both in its main process.
  var __localStack: LocalStackProcess | undefined;
}

export default async function globalSetup(): Promise<void> {
  // jest runs a globalSetup module once even when several selected projects name it; this guards a rerun in watch mode.
  if (globalThis.__localStack) return;
  const logFile = runLogFile();
  await pruneOldLogs(dirname(logFile));
  // The stack runs the cloud assembly (cdk.out/): synthesized here when stale, so the stack's ready timeout is not
  // spent bundling.
  await ensureCloudAssembly({ log: (line) => process.stderr.write(`${line}\n`) });
  const stack = await spawnLocalStack({ logFile });
  globalThis.__localStack = stack;
  const { ready } = stack;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  Object.assign(process.env, {
    E2E_BASE_URL: ready.baseUrl,
    AWS_ENDPOINT_URL_DYNAMODB: ready.dynamodbEndpoint,
    AWS_ENDPOINT_URL_SQS: ready.sqsEndpoint,
    AWS_ENDPOINT_URL_SCHEDULER: ready.schedulerEndpoint,
    AWS_ENDPOINT_URL_KMS: ready.kmsEndpoint,
    TABLE_NAME: ready.tableName,
    // Every queue's URL under its sender variable (DOCUMENT_EVENTS_QUEUE_URL, TASK_WORK_QUEUE_URL, ...), its DLQ's
    // under the same name with DLQ (DOCUMENT_EVENTS_DLQ_URL, ...).
    ...Object.fromEntries(
      queueDefinitions.flatMap((definition) => [
        [definition.urlVariable, ready.queueUrls[definition.logicalName]],
        [definition.urlVariable.replace(/_QUEUE_URL$/, '_DLQ_URL'), ready.queueUrls[definition.deadLetterQueue.logicalName]],
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
}

/** Logs of earlier runs are kept a day for post-mortems, then removed. */
const pruneOldLogs = async (directory: string) => {
  const names = await readdir(directory).catch(() => [] as string[]);
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of names.filter((candidate) => /^test-stack(-\d+)?\.log$/.test(candidate))) {
    const file = join(directory, name);
    const info = await stat(file).catch(() => undefined);
    if (info && info.mtimeMs < dayAgo) await unlink(file).catch(() => undefined);
  }
};
