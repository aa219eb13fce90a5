// The operation invocation a piece of code runs in, as the HTTP stack opens it (shared/http/operation.ts): the abort
// signal middy aborts with its early answer, and the time of that answer. Kept in an AsyncLocalStorage scope, so it
// follows the invocation's own calls and nothing else; code that runs outside one (a queue consumer, a test, a tool)
// sees none.
//
// - `signal`: every AWS call of the invocation carries it (shared/aws-requests.ts, "Work left behind by an early
//   answer"), so nothing is sent after the answer.
// - `answerBy`: when the invocation answers at the latest (Lambda's deadline less middy's `timeoutEarlyInMillis`).
//   After it, the invocation sends nothing more: what a claim it wrote says then is final (shared/data/idempotency.ts).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Invocation {
  readonly signal: AbortSignal;
  /** Epoch ms: the invocation has answered by then, and sends nothing after (unknown without a Lambda context's deadline). */
  readonly answerBy?: number;
}

const scope = new AsyncLocalStorage<Invocation>();

/** Runs `work` inside `invocation`: every call it makes, awaited or not, sees it. */
export const withinInvocation = <T>(invocation: Invocation, work: () => T): T => scope.run(invocation, work);

/** The invocation of the calling code, if it runs inside one. */
export const currentInvocation = (): Invocation | undefined => scope.getStore();
