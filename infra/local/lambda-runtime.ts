// Local stack: a minimal Lambda runtime. Loads a handler module the way the CDK bundles it (repo-root path,
// export `handler`) and invokes it with a Lambda-like context, a deadline and the callback-or-promise contract.
import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context, Handler } from 'aws-lambda';
import { localAccountId, localRegion } from './local-aws';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

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
 * keeps running in the background: there is no sandbox to freeze).
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
