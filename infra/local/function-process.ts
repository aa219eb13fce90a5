// Local stack: one function's execution environment, as a process of its own (started by function-host.ts with
// exactly the function's environment). Runs under plain Node.js, bundled (function-host.ts), for a function
// from the cloud assembly (its built asset); under tsx for a TypeScript module (tests' fixture handlers).
// Loads the handler module on the first invocation (its cold start), then
// runs each invocation it is sent with a Lambda context whose deadline the host chose. Console output goes
// straight to the stack's stdout and stderr. A module that fails to load fails the invocations waiting for it
// and ends the process, so the next invocation is a fresh cold start, as after a Lambda init error.
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

export const serializeError = (error: unknown): SerializedError =>
  error instanceof Error
    ? { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) }
    : { name: 'Error', message: String(error) };

const send = (message: ResultMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });

const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'function';
const modulePath = process.env._HANDLER_MODULE ?? '';
/** The export the template's Handler names (`index.handler` -> `handler`). */
const exportName = process.env._HANDLER_EXPORT ?? 'handler';
const memoryLimitInMB = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '1024');
let handler: Promise<Handler> | undefined;

const invoke = async ({ id, event, deadline, timeoutMs }: InvokeMessage) => {
  handler ??= loadHandler(importFromRepoRoot, modulePath, exportName);
  let loaded: Handler;
  try {
    loaded = await handler;
  } catch (error) {
    await send({ type: 'result', id, ok: false, error: serializeError(error) });
    process.exit(1);
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
