// Local stack: runs each function isolated, like Lambda: a process of its own per function, started on its first
// invocation (the cold start) with exactly its environment (what its grants give it, its own settings and the
// Lambda runtime's standard variables, nothing of the stack's), its own module graph and module singletons, and
// its own fake access key, by which the IAM edge (iam-edge.ts) knows it. Events, results, errors and the
// deadline cross the process boundary; console output goes to the stack's stdout and stderr.
//
// One process per function serves that function's concurrent invocations (Lambda would start one environment per
// concurrent invocation; one process keeps the memory of a whole stack within a laptop's). A timed-out invocation
// fails at once but its handler keeps running, as in-process; a process that exits fails what it was running and
// the next invocation starts a new one.
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { InvokeMessage, ResultMessage } from './function-process';
import { repoRoot, withinTimeout, type FunctionInvoker, type LocalFunctionRef } from './lambda-runtime';
import { localRegion } from './local-aws';

export interface IsolatedFunction extends LocalFunctionRef {
  /** What its grants and its own settings give it (TABLE_NAME, endpoints, LOG_LEVEL, ...). */
  readonly environment: Readonly<Record<string, string>>;
  /** Its identity: the IAM edge maps this key to the function's grants. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly memoryLimitInMB?: number;
  /**
   * The built asset the template names (cdk.out/asset.<hash>/): run under plain Node.js, no TypeScript loader, from
   * its directory (Lambda's task root). Without it, `handler` is a TypeScript module run under tsx.
   */
  readonly asset?: { readonly taskRoot: string; readonly modulePath: string; readonly exportName: string; readonly handler: string };
  /** The function's own timeout (the template's Timeout): an invocation ends at the earlier of it and the caller's. */
  readonly timeoutMs?: number;
}

export interface IsolatedFunctions {
  readonly invoke: FunctionInvoker;
  /**
   * Kills a function's process (SIGKILL, as a crashed environment dies) and resolves once it is gone: what it was
   * running fails, the next invocation starts a new one (the fault mode's commit-then-crash and crash effects).
   */
  kill(functionName: string): Promise<void>;
  /** Stops every function process and waits for them. */
  close(): Promise<void>;
}

const processEntry = fileURLToPath(new URL('./function-process.ts', import.meta.url));
/** The TypeScript loader `--import tsx` runs, resolved from the repository so any parent (jest, tsx CLI) works. */
const tsxLoader = pathToFileURL(createRequire(join(repoRoot, 'package.json')).resolve('tsx')).href;

/**
 * function-process.ts bundled to plain JavaScript (once per version of its sources, in .local/runtime/), so a
 * function from the assembly runs on Node.js alone, as on Lambda: no TypeScript loader, no esbuild child.
 */
let bundledRuntime: string | undefined;
export const bundledFunctionProcess = (): string => {
  if (bundledRuntime) return bundledRuntime;
  const result = buildSync({
    entryPoints: [processEntry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const directory = join(repoRoot, '.local', 'runtime');
  const file = join(directory, `function-process-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(directory, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  }
  bundledRuntime = file;
  return file;
};

/** The variables the Lambda Node.js runtime sets in every execution environment, locally. */
export const lambdaRuntimeEnvironment = (fn: IsolatedFunction): Record<string, string> => ({
  AWS_REGION: localRegion,
  AWS_DEFAULT_REGION: localRegion,
  AWS_ACCESS_KEY_ID: fn.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: fn.credentials.secretAccessKey,
  AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
  AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryLimitInMB ?? 512),
  AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  LAMBDA_TASK_ROOT: fn.asset?.taskRoot ?? repoRoot,
  _HANDLER: fn.asset?.handler ?? `${fn.handler}.handler`,
  TZ: ':UTC',
  LANG: 'en_US.UTF-8',
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  // Local only: the SDK's warning about Node 20 would otherwise print once per function.
  ...(process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED
    ? { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED }
    : {}),
});

/** The whole environment of a function's process. */
export const functionProcessEnvironment = (fn: IsolatedFunction): Record<string, string> => ({
  ...fn.environment,
  ...lambdaRuntimeEnvironment(fn),
  // Which module function-process.ts loads: the asset's, or the repo-root path the CDK bundles.
  _HANDLER_MODULE: fn.asset?.modulePath ?? fn.handler,
  _HANDLER_EXPORT: fn.asset?.exportName ?? 'handler',
});

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

interface FunctionProcess {
  readonly child: ChildProcess;
  readonly pending: Map<number, Pending>;
  readonly exited: Promise<void>;
}

const toError = (serialized: { name: string; message: string; stack?: string }): Error =>
  Object.assign(new Error(serialized.message), { name: serialized.name, ...(serialized.stack ? { stack: serialized.stack } : {}) });

/**
 * The heap flags the Lambda Node.js runtime's bootstrap derives from the function's memory setting: a tenth of it
 * for the young generation (half of that the semi-space), the rest for the old generation. 512 MB:
 * `--max-semi-space-size=25 --max-old-space-size=461`.
 */
export const lambdaHeapFlags = (memoryInMB: number): string[] => {
  const newSpace = Math.floor(memoryInMB / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryInMB - newSpace}`];
};

export const startIsolatedFunctions = (
  functions: Iterable<IsolatedFunction>,
  log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): IsolatedFunctions => {
  const definitions = new Map([...functions].map((fn) => [fn.functionName, fn]));
  const running = new Map<string, FunctionProcess>();
  let nextId = 0;
  let closed = false;

  const start = (fn: IsolatedFunction): FunctionProcess => {
    const child = fork(fn.asset ? bundledFunctionProcess() : processEntry, [], {
      cwd: fn.asset?.taskRoot ?? repoRoot,
      env: functionProcessEnvironment(fn),
      // Lambda sizes the V8 heap from the function's memory (lambdaHeapFlags); a function that needs more fails
      // here as there.
      execArgv: fn.asset ? (fn.memoryLimitInMB ? lambdaHeapFlags(fn.memoryLimitInMB) : []) : ['--import', tsxLoader],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const pending = new Map<number, Pending>();
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        if (running.get(fn.functionName)?.child === child) running.delete(fn.functionName);
        const error = new Error(`Runtime exited with error: ${signal ? `signal ${signal}` : `exit status ${code}`}`);
        for (const waiting of pending.values()) waiting.reject(error);
        pending.clear();
        resolve();
      });
    });
    child.on('message', (message: ResultMessage) => {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(toError(message.error));
    });
    child.once('error', (error) => log(`[functions] ${fn.functionName}: ${error.message}`));
    return { child, pending, exited };
  };

  const invoke: FunctionInvoker = async <TResult>(ref: LocalFunctionRef, event: unknown, callerTimeoutMs: number) => {
    if (closed) throw new Error('The local functions are stopped');
    const fn = definitions.get(ref.functionName);
    if (!fn) throw new Error(`No local function named ${ref.functionName}`);
    const timeoutMs = Math.min(callerTimeoutMs, fn.timeoutMs ?? callerTimeoutMs);
    let instance = running.get(fn.functionName);
    if (!instance) {
      instance = start(fn);
      running.set(fn.functionName, instance);
    }
    const id = (nextId += 1);
    const { pending, child } = instance;
    const completed = new Promise<TResult>((resolve, reject) => {
      pending.set(id, { resolve: (result) => resolve(result as TResult), reject });
    });
    const message: InvokeMessage = { type: 'invoke', id, event, deadline: Date.now() + timeoutMs, timeoutMs };
    child.send(message, (error) => {
      if (!error) return;
      pending.get(id)?.reject(error);
      pending.delete(id);
    });
    try {
      return await withinTimeout(completed, { functionName: fn.functionName, timeoutMs });
    } finally {
      pending.delete(id);
    }
  };

  const kill = async (functionName: string) => {
    const instance = running.get(functionName);
    if (!instance) return;
    instance.child.kill('SIGKILL');
    await instance.exited;
  };

  return {
    invoke,
    kill,
    close: async () => {
      closed = true;
      const instances = [...running.values()];
      for (const { child } of instances) child.kill('SIGTERM');
      await Promise.all(instances.map((instance) => instance.exited));
    },
  };
};
