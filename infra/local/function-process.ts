// Local stack: one function's execution environment, as a process of its own (started by function-host.ts with
// exactly the function's environment). Runs under plain Node.js, bundled (function-host.ts), for a function
// from the cloud assembly (its built asset); under tsx for a TypeScript module (tests' fixture handlers).
// Loads the handler module as soon as it starts (Lambda's Init phase: the host starts an environment for an
// invocation that found none idle) and tells the host when it is loaded, so the host starts the invocation's clock
// there, as Lambda does. Then runs each invocation it is sent with a Lambda context whose deadline the host chose.
// Console output goes straight to the stack's stdout and stderr. A module that fails to load tells the host and
// ends the process, so the next invocation is a fresh cold start, as after a Lambda init error.
import type { Handler } from 'aws-lambda';
import { createLambdaContext, importFromRepoRoot, loadHandler, runHandler } from './lambda-runtime';

/** host -> function */
export interface InvokeMessage {
  readonly type: 'invoke';
  readonly id: number;
  readonly event: unknown;
  readonly deadline: number;
  readonly timeoutMs: number;
}

export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

/** function -> host */
export type ResultMessage =
  | { readonly type: 'result'; readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly type: 'result'; readonly id: number; readonly ok: false; readonly error: SerializedError };

/** function -> host: the end of the Init phase (the handler's module loaded, or failed to). */
export type InitMessage =
  | { readonly type: 'initialized' }
  | { readonly type: 'init-failed'; readonly error: SerializedError };

export type FunctionMessage = ResultMessage | InitMessage;

export const serializeError = (error: unknown): SerializedError =>
  error instanceof Error
    ? { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) }
    : { name: 'Error', message: String(error) };

const send = (message: FunctionMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });

const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'function';
const modulePath = process.env._HANDLER_MODULE ?? '';
/** The export the template's Handler names (`index.handler` -> `handler`). */
const exportName = process.env._HANDLER_EXPORT ?? 'handler';
const memoryLimitInMB = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '1024');
/** The Init phase, begun at once; an invocation that arrives before it ends waits for it. */
const handler: Promise<Handler> = loadHandler(importFromRepoRoot, modulePath, exportName);
handler.then(
  () => send({ type: 'initialized' }),
  async (error: unknown) => {
    await send({ type: 'init-failed', error: serializeError(error) });
    process.exit(1);
  },
);

const invoke = async ({ id, event, deadline, timeoutMs }: InvokeMessage) => {
  let loaded: Handler;
  try {
    loaded = await handler;
  } catch {
    return; // Reported as init-failed; the process is ending.
  }
  const context = createLambdaContext({ functionName, timeoutMs, memoryLimitInMB }, deadline);
  try {
    const result = await runHandler(loaded, event, context);
    await send({ type: 'result', id, ok: true, result });
  } catch (error) {
    await send({ type: 'result', id, ok: false, error: serializeError(error) });
  }
};

process.on('message', (message: InvokeMessage) => {
  if (message?.type === 'invoke') {
    invoke(message).catch((error: unknown) => process.stderr.write(`[${functionName}] cannot answer: ${String(error)}\n`));
  }
});
// The host is gone (stopped, or killed however it died): so is this environment.
process.on('disconnect', () => process.exit(0));
