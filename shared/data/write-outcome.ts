// Data layer: which writes of an invocation may have landed without their caller knowing. DynamoDB documents that a
// write whose request timed out, whose connection broke, or that was answered with a 5xx (an internal error) may or
// may not have been applied, and a resend of a transaction still committing is answered
// TransactionInProgressException. The SDK retries such an attempt, and when its last attempt fails too (with a
// throttle, a reset, another 500) the error the caller sees says nothing of the earlier one. A request that fails
// after such a write must not answer "retry shortly" (503 + Retry-After): a client without an Idempotency-Key that
// obeys would pay twice. The HTTP stack answers it as a write whose outcome is unknown (504, no Retry-After:
// shared/http/middlewares/problem-responses.ts); a failure after writes that were each answered, or refused whole
// (a 4xx: a condition, a cancelled transaction, a throttle), stays a 503. A refusal of the service's own after such an
// attempt (a 4xx the request answers) is answered as it is: a resent transaction carries its first attempt's
// ClientRequestToken and a resent edit its mark (transaction.ts), so a resend that finds its own first attempt landed
// is answered as written, never refused by it.
import { noteUncertainWrite } from '#shared/invocation';

/** The DynamoDB operations that write (the JSON protocol's `X-Amz-Target` names them). */
const writeOperations = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem', 'ExecuteStatement', 'BatchExecuteStatement', 'ExecuteTransaction']);

/** The operation an attempt's HTTP request names (`DynamoDB_20120810.PutItem` -> `PutItem`), if any. */
const operationOf = (request: unknown): string | undefined => {
  const headers = (request as { headers?: Record<string, string> } | undefined)?.headers;
  const target = headers?.['x-amz-target'] ?? headers?.['X-Amz-Target'];
  return typeof target === 'string' ? target.slice(target.indexOf('.') + 1) : undefined;
};

/** Connections never made: the request was not sent (a refused connection, a name that does not resolve). */
const notConnected = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * True when an attempt's error says DynamoDB refused the request whole, or never got it: a 4xx answer (a failed
 * condition, a cancelled transaction, a throttle, a validation error), but TransactionInProgressException (an earlier
 * attempt of the same transaction is still committing); a connection that was never made. A timeout, a broken
 * connection, an abort once sent and a 5xx may have landed.
 */
export const refusedWhole = (error: unknown): boolean => {
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | undefined)?.$metadata?.httpStatusCode;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && notConnected.has(code)) return true;
  return typeof status === 'number' && status >= 400 && status < 500 && (error as Error).name !== 'TransactionInProgressException';
};

const uncertain = Symbol('a write attempt of this command may have landed');

/** The errors of write commands that failed after an attempt that may have landed (`mayHaveLanded`). */
const afterUncertainAttempt = new WeakSet<object>();

/**
 * True when `error` ended a write command of a tracked client one of whose attempts may have landed (its last error,
 * a throttle or a conflict, says nothing of it). `transact` resends such a write under the same ClientRequestToken
 * and mark, so that a first attempt that landed is answered as written, never written twice.
 */
export const mayHaveLanded = (error: unknown): boolean => typeof error === 'object' && error !== null && afterUncertainAttempt.has(error);

interface Stack {
  add(middleware: unknown, options: Record<string, unknown>): void;
}
type Next = (args: { request?: unknown }) => Promise<unknown>;

const tracking = new WeakSet<object>();

/**
 * Tracks the client's writes: an attempt (inside the SDK's retries) that may have landed marks its command; a command
 * that fails after such an attempt, or with such an error, notes an uncertain write in the calling invocation
 * (shared/invocation.ts). A command that succeeds in the end is known (its transaction's ClientRequestToken, its
 * marked edit, or its unconditional item, applied). Once per client.
 */
export const trackingWriteOutcomes = <Client extends { middlewareStack: unknown }>(client: Client): Client => {
  if (tracking.has(client)) return client;
  tracking.add(client);
  const stack = client.middlewareStack as Stack;
  stack.add(
    (next: Next, context: Record<symbol, boolean>) => async (args: { request?: unknown }) => {
      try {
        return await next(args);
      } catch (error) {
        const operation = operationOf(args.request);
        if (operation !== undefined && writeOperations.has(operation) && !refusedWhole(error)) context[uncertain] = true;
        throw error;
      }
    },
    // Inside the retry middleware (finalizeRequest, high): once per attempt, with the attempt's own request.
    { step: 'finalizeRequest', priority: 'low', name: 'writeOutcomeAttempts' },
  );
  stack.add(
    (next: Next, context: Record<symbol, boolean>) => async (args: { request?: unknown }) => {
      try {
        return await next(args);
      } catch (error) {
        if (context[uncertain] === true) {
          noteUncertainWrite();
          if (typeof error === 'object' && error !== null) afterUncertainAttempt.add(error);
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'writeOutcomes' },
  );
  return client;
};
