// Local stack: runs each function isolated, like Lambda: its execution environments are processes of their own,
// each started when an invocation finds none idle (a cold start) with exactly the function's environment (what its
// grants give it, its own settings and the Lambda runtime's standard variables, nothing of the stack's), its own
// module graph and module singletons, and its own fake access key, by which the IAM edge (iam-edge.ts) knows it.
// Events, results, errors and the deadline cross the process boundary; console output goes to the stack's stdout
// and stderr.
//
// As on Lambda, an environment runs one invocation at a time: an invocation takes an idle environment of its
// function, else starts another, up to `maxEnvironments` per function (Lambda's would be the account's concurrency);
// past it, it waits for one to be free. An invocation's own timeout starts when it runs, after its environment's
// Init phase (the module's load: a cold start), which Lambda limits to 10 s apart from the function's timeout; the
// caller's timeout includes the wait and the init. One invocation at a time means a process that dies fails the one
// invocation it ran, as a lost Lambda environment does. An extra environment left idle for a minute is stopped (Lambda reclaims idle ones; the first stays warm). A timed-out invocation's
// environment is killed and replaced (Lambda stops the handler with its environment; it never runs on after its
// answer). A process that exits fails what it was running; the next invocation starts a new one.
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FunctionMessage, InvokeMessage } from './function-process';
import { invocationEffects, type FaultEngine } from './faults';
import { environmentKeyOf } from './iam-edge';
import { InvocationThrottled, InvocationTimeout, repoRoot, withinTimeout, type FunctionInvoker, type LocalFunctionRef } from './lambda-runtime';
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
  /**
   * The template's Runtime (`nodejs24.x`) and the node executable that runs it (lambda-runtime.ts
   * nodeExecutableFor: the pinned Node package's). Without it, the function runs on the stack's own Node.
   */
  readonly runtime?: { readonly name: string; readonly execPath: string };
}

export interface IsolatedFunctions {
  readonly invoke: FunctionInvoker;
  /**
   * Kills the environment whose access key this is (every environment of the function without one): SIGKILL, as a
   * crashed environment dies; resolves once it is gone. What it was running fails; the next invocation starts a
   * new one (the fault mode's commit-then-crash).
   */
  kill(functionName: string, accessKeyId?: string): Promise<void>;
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
  AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime?.name ?? 'nodejs24.x'}`,
  // As AWS sets it for on-demand functions (Powertools' cold-start detection reads it).
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  LAMBDA_TASK_ROOT: fn.asset?.taskRoot ?? repoRoot,
  _HANDLER: fn.asset?.handler ?? `${fn.handler}.handler`,
  TZ: ':UTC',
  LANG: 'en_US.UTF-8',
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  // Local only: the SDK's warning about Node 20 would otherwise print once per function run on the stack's Node.
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

/** One execution environment: a process that runs one invocation at a time. */
interface Environment {
  readonly child: ChildProcess;
  /** Its own access key (environmentKeyOf): the IAM edge knows the function by it, and which environment called. */
  readonly accessKeyId: string;
  readonly slot: number;
  readonly pending: Map<number, Pending>;
  readonly exited: Promise<void>;
  /** Taken by an invocation (from the moment it is chosen, before its message is sent). */
  busy: boolean;
  /** Being killed: never taken again. */
  retired: boolean;
  /** Ends an extra environment that stays idle (set while idle). */
  reaper?: NodeJS.Timeout;
  /** When its process was started: its Init phase's start. */
  readonly startedAt: number;
  /** The end of its Init phase: undefined once the handler's module is loaded, else why it failed or exited first. */
  readonly initialized: Promise<Error | undefined>;
}

/**
 * Lambda's limit on the Init phase of an on-demand environment: an init that takes longer is retried within the
 * first invocation, under the function's own timeout. So the invocation's clock starts when its environment's init
 * ends, or this long after it began, whichever is first.
 */
export const lambdaInitLimitMs = 10_000;

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

export interface IsolatedFunctionsOptions {
  /** Environments per function at most (default 10): past it, invocations wait for one to be free. */
  readonly maxEnvironments?: number;
  /** The fault mode (faults.ts): crash and timeout effects on invocations. */
  readonly faults?: FaultEngine;
  /** How long an extra environment may stay idle before it is stopped (default 60 s). */
  readonly idleEnvironmentMs?: number;
  /** Lambda's limit on an environment's Init phase (default `lambdaInitLimitMs`; tests shorten it). */
  readonly initLimitMs?: number;
}

export const defaultMaxEnvironments = 10;
export const defaultIdleEnvironmentMs = 60_000;

export const startIsolatedFunctions = (
  functions: Iterable<IsolatedFunction>,
  log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
  options: IsolatedFunctionsOptions = {},
): IsolatedFunctions => {
  const maxEnvironments = Math.max(1, options.maxEnvironments ?? defaultMaxEnvironments);
  const idleEnvironmentMs = options.idleEnvironmentMs ?? defaultIdleEnvironmentMs;
  const initLimitMs = options.initLimitMs ?? lambdaInitLimitMs;
  const definitions = new Map([...functions].map((fn) => [fn.functionName, fn]));
  /** Each function's environments, and the invocations waiting for one. */
  const environments = new Map<string, Set<Environment>>();
  const waiting = new Map<string, (() => void)[]>();
  let nextId = 0;
  let closed = false;

  const environmentsOf = (functionName: string): Set<Environment> => {
    let set = environments.get(functionName);
    if (!set) environments.set(functionName, (set = new Set()));
    return set;
  };

  /** An environment is free again (or gone): the first invocation waiting for one goes on. */
  const released = (functionName: string) => waiting.get(functionName)?.shift()?.();

  const start = (fn: IsolatedFunction): Environment => {
    // The lowest slot no live environment of the function holds: a function with one environment keeps its own key.
    const used = new Set([...environmentsOf(fn.functionName)].map((environment) => environment.slot));
    let slot = 1;
    while (used.has(slot)) slot += 1;
    const accessKeyId = environmentKeyOf(fn.credentials.accessKeyId, slot);
    const child = fork(fn.asset ? bundledFunctionProcess() : processEntry, [], {
      cwd: fn.asset?.taskRoot ?? repoRoot,
      // The Node.js the template's Runtime names; the stack's own processes stay on the machine's.
      ...(fn.runtime ? { execPath: fn.runtime.execPath } : {}),
      env: functionProcessEnvironment({ ...fn, credentials: { ...fn.credentials, accessKeyId } }),
      // Lambda sizes the V8 heap from the function's memory (lambdaHeapFlags); a function that needs more fails
      // here as there.
      execArgv: fn.asset ? (fn.memoryLimitInMB ? lambdaHeapFlags(fn.memoryLimitInMB) : []) : ['--import', tsxLoader],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const pending = new Map<number, Pending>();
    let endInit: (outcome: Error | undefined) => void = () => undefined;
    const initialized = new Promise<Error | undefined>((resolve) => {
      endInit = resolve;
    });
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        environmentsOf(fn.functionName).delete(environment);
        const error = new Error(`Runtime exited with error: ${signal ? `signal ${signal}` : `exit status ${code}`}`);
        for (const invocation of pending.values()) invocation.reject(error);
        pending.clear();
        released(fn.functionName);
        resolve();
      });
    });
    // After 'exit' may come messages still in the channel (an init-failed sent just before the process ended): the
    // init is settled by the process's end only once the channel is closed too.
    child.once('close', (code, signal) => endInit(new Error(`Runtime exited with error: ${signal ? `signal ${signal}` : `exit status ${code}`}`)));
    child.on('message', (message: FunctionMessage) => {
      if (message.type === 'initialized') return endInit(undefined);
      if (message.type === 'init-failed') return endInit(toError(message.error));
      const invocation = pending.get(message.id);
      if (!invocation) return;
      pending.delete(message.id);
      if (message.ok) invocation.resolve(message.result);
      else invocation.reject(toError(message.error));
    });
    child.once('error', (error) => log(`[functions] ${fn.functionName}: ${error.message}`));
    const environment: Environment = { child, accessKeyId, pending, exited, slot, busy: false, retired: false, startedAt: Date.now(), initialized };
    environmentsOf(fn.functionName).add(environment);
    return environment;
  };

  /**
   * Takes an idle environment of the function, a new one while below the limit, else the first to come free; an
   * InvocationTimeout (the caller's) when none is free by `deadline`.
   */
  const acquire = async (fn: IsolatedFunction, deadline: number): Promise<Environment> => {
    for (;;) {
      if (closed) throw new Error('The local functions are stopped');
      const set = environmentsOf(fn.functionName);
      const idle = [...set].find((environment) => !environment.busy && !environment.retired && environment.child.exitCode === null);
      const taken = idle ?? (set.size < maxEnvironments ? start(fn) : undefined);
      if (taken) {
        taken.busy = true;
        clearTimeout(taken.reaper);
        return taken;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new InvocationTimeout(`${fn.functionName}: no environment came free within the caller's timeout`);
      await new Promise<void>((resolve) => {
        const queue = waiting.get(fn.functionName) ?? [];
        const timer = setTimeout(() => {
          const at = queue.indexOf(resume);
          if (at >= 0) queue.splice(at, 1);
          resolve();
        }, remaining);
        const resume = () => {
          clearTimeout(timer);
          resolve();
        };
        queue.push(resume);
        waiting.set(fn.functionName, queue);
      });
    }
  };

  /**
   * An extra environment (not the first slot's) left idle for `idleEnvironmentMs` is stopped, as Lambda reclaims
   * idle environments: a burst does not keep its processes (and their memory) for the rest of the run. The first
   * stays warm, as the function's single process did before.
   */
  const reapWhenIdle = (environment: Environment) => {
    if (environment.slot === 1 || environment.retired) return;
    clearTimeout(environment.reaper);
    environment.reaper = setTimeout(() => {
      if (environment.busy || environment.retired) return;
      environment.retired = true;
      environment.child.kill('SIGTERM');
    }, idleEnvironmentMs);
    environment.reaper.unref();
  };

  /** Kills an environment (SIGKILL, as a crashed one dies) and waits for it to be gone. */
  const killEnvironment = async (environment: Environment) => {
    environment.retired = true;
    environment.child.kill('SIGKILL');
    await environment.exited;
  };

  /**
   * Waits out the environment's Init phase, which is not on the invocation's clock (Lambda's rule): until its module
   * is loaded, or Lambda's init limit has passed since it began (the clock starts then, the handler still waiting for
   * its module). The caller's clock runs on: past its deadline, the invocation times out (the caller's limit). The
   * init's error, if it failed.
   */
  const initPhase = async (environment: Environment, callerDeadline: number, functionName: string): Promise<Error | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const waitMs = Math.max(0, Math.min(environment.startedAt + initLimitMs, callerDeadline) - Date.now());
    const limitReached = new Promise<'limit'>((resolve) => {
      timer = setTimeout(() => resolve('limit'), waitMs);
    });
    const outcome = await Promise.race([environment.initialized, limitReached]);
    clearTimeout(timer);
    if (outcome !== 'limit') return outcome;
    if (Date.now() >= callerDeadline) return new InvocationTimeout(`${functionName}: its environment's init did not end within the caller's timeout`);
    return undefined;
  };

  const invoke: FunctionInvoker = async <TResult>(ref: LocalFunctionRef, event: unknown, callerTimeoutMs: number) => {
    if (closed) throw new Error('The local functions are stopped');
    const fn = definitions.get(ref.functionName);
    if (!fn) throw new Error(`No local function named ${ref.functionName}`);
    const callerDeadline = Date.now() + callerTimeoutMs;
    const fault = options.faults?.decide({ service: 'lambda', operation: 'invoke', caller: fn.functionName }, invocationEffects)?.effect;
    // Throttled before any environment is taken or started: nothing of the invocation runs.
    if (fault?.type === 'throttle') throw new InvocationThrottled(`${fn.functionName}: Rate Exceeded (a throttle fault)`);
    const environment = await acquire(fn, callerDeadline);
    const id = (nextId += 1);
    const { pending, child } = environment;
    const completed = new Promise<TResult>((resolve, reject) => {
      pending.set(id, { resolve: (result) => resolve(result as TResult), reject });
    });
    // Not awaited when the environment dies in its init: that failure is the init's, answered from initPhase.
    completed.catch(() => undefined);
    // The environment is busy from here: an invocation that arrives meanwhile takes another.
    if (fault?.type === 'crash' && fault.when === 'before-first-call') {
      await killEnvironment(environment);
      return completed;
    }
    try {
      const initError = await initPhase(environment, callerDeadline, fn.functionName);
      if (initError) {
        // Its process is ending (or its init timed out for the caller): never taken again; the next is a cold start.
        environment.retired = true;
        throw initError;
      }
      // The invocation's clock starts here: the function's timeout, within what is left of the caller's.
      const callerRemainingMs = Math.max(0, callerDeadline - Date.now());
      const timeoutMs = Math.min(callerRemainingMs, fn.timeoutMs ?? callerRemainingMs);
      const message: InvokeMessage = { type: 'invoke', id, event, deadline: Date.now() + timeoutMs, timeoutMs };
      child.send(message, (error) => {
        if (!error) return;
        pending.get(id)?.reject(error);
        pending.delete(id);
      });
      // A timeout fault: the invocation ends as timed out at `ms` (default its timeout), whatever its handler did.
      const running = fault?.type === 'timeout' ? completed.catch(() => undefined).then(() => new Promise<TResult>(() => undefined)) : completed;
      const limitMs = fault?.type === 'timeout' ? Math.min(timeoutMs, fault.ms ?? timeoutMs) : timeoutMs;
      const limit = limitMs < callerRemainingMs ? 'function' : 'caller';
      const result = await withinTimeout(running, { functionName: fn.functionName, timeoutMs: limitMs, limit });
      if (fault?.type === 'crash' && fault.when === 'after-last-write') {
        // Its work is done; the process dies before its answer leaves it.
        await killEnvironment(environment);
        throw new Error('Runtime exited with error: signal SIGKILL');
      }
      if (fault?.type === 'crash' && fault.when === 'between-calls') void killEnvironment(environment);
      return result;
    } catch (error) {
      // Lambda does not let a timed-out handler run on: its environment is reset.
      if (error instanceof InvocationTimeout) void killEnvironment(environment);
      throw error;
    } finally {
      pending.delete(id);
      environment.busy = false;
      reapWhenIdle(environment);
      released(fn.functionName);
    }
  };

  const kill = async (functionName: string, accessKeyId?: string) => {
    const targets = [...environmentsOf(functionName)].filter((environment) => accessKeyId === undefined || environment.accessKeyId === accessKeyId);
    await Promise.all(targets.map(killEnvironment));
  };

  return {
    invoke,
    kill,
    close: async () => {
      closed = true;
      for (const set of environments.values()) for (const environment of set) clearTimeout(environment.reaper);
      for (const queue of waiting.values()) for (const resume of queue.splice(0)) resume();
      const all = [...environments.values()].flatMap((set) => [...set]);
      for (const { child } of all) child.kill('SIGTERM');
      await Promise.all(all.map((environment) => environment.exited));
    },
  };
};
