// The operation invocation a piece of code runs in, as the HTTP stack opens it (shared/http/operation.ts): the abort
// signal middy aborts with its early answer, and the time of that answer. Kept in an AsyncLocalStorage scope, so it
// follows the invocation's own calls and nothing else; code that runs outside one (a queue consumer, a test, a tool)
// sees none.
//
// - `signal`: every AWS call of the invocation carries it (shared/aws-requests.ts, "Work left behind by an early
//   answer"), so nothing is sent after the answer.
// - `answerBy`: when the invocation answers at the latest (Lambda's deadline less middy's `timeoutEarlyInMillis`).
//   After it, the invocation sends nothing more: what a claim it wrote says then is final (shared/data/idempotency.ts).
// - `writes`: whether a write of the invocation may have landed without its answer (shared/data/write-outcome.ts),
//   which turns a failure's 503 into a 504 (shared/http/middlewares/problem-responses.ts).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Invocation {
  readonly signal: AbortSignal;
  /** Epoch ms: the invocation has answered by then, and sends nothing after (unknown without a Lambda context's deadline). */
  readonly answerBy?: number;
  /** Set when a write of the invocation failed after an attempt that may have landed (`noteUncertainWrite`). */
  readonly writes?: { uncertain: boolean };
}

const scope = new AsyncLocalStorage<Invocation>();

/** Runs `work` inside `invocation`: every call it makes, awaited or not, sees it. */
export const withinInvocation = <T>(invocation: Invocation, work: () => T): T => scope.run(invocation, work);

/** The invocation of the calling code, if it runs inside one. */
export const currentInvocation = (): Invocation | undefined => scope.getStore();

/** Notes, in the calling code's invocation (if any), a write that failed after an attempt that may have landed. */
export const noteUncertainWrite = (): void => {
  const writes = scope.getStore()?.writes;
  if (writes) writes.uncertain = true;
};

/**
 * Runs `work` in the calling invocation without its write ledger: for writes no answer reports and no retry repeats
 * to any effect (a sequence's value taken or given back: a value lost that way is a gap), whose unknown outcome leaves
 * what the request did known.
 */
export const apartFromWriteLedger = <T>(work: () => T): T => {
  const invocation = scope.getStore();
  if (invocation?.writes === undefined) return work();
  const { writes: _ledger, ...apart } = invocation;
  return scope.run(apart, work);
};
