// Test support: jest globalSetup of the integration and e2e projects. Starts the local stack once per run as a
// child process and hands its endpoints to every test through process.env (workers inherit it).
import { readdir, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runLogFile, spawnLocalStack, type LocalStackProcess } from './local-stack-process';
import { stackEnvironment } from './stack-environment';
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
  Object.assign(process.env, stackEnvironment(ready, logFile));
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
