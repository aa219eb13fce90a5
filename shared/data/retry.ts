// Data layer: the one optimistic-retry policy. An optimistic write reads, decides and writes under a condition;
// when another writer got there first, the attempt is repeated from the read. Every area uses this policy, so
// contention behaves the same everywhere.
import { ConcurrentModification } from '#shared/errors';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** Upper bound of the first delay; each later bound doubles, up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * The rule: an attempt that fails with ConcurrentModification (a version condition lost a race, or another
 * transaction held an item) is tried again after a "full jitter" delay, uniformly random in
 * [0, min(maxDelayMs, baseDelayMs * 2^(retry - 1))): 25, 50, 100, ... ms, capped at 1 s, at most 10 attempts in
 * all. Any other error, and the tenth ConcurrentModification, goes to the caller at once. Full jitter spreads
 * writers that collided apart instead of letting them collide again in step; a write that loses nine times waits
 * about 2.3 s in expectation and 4.6 s at most, inside an API function's 10 s timeout. Sized for the worst case
 * tested: 40 concurrent deliveries of 20 events to one document, where each round commits one writer.
 */
export const optimisticRetryPolicy: RetryPolicy = { maxAttempts: 10, baseDelayMs: 25, maxDelayMs: 1000 };

/**
 * The same rule where no caller waits: a queue consumer's write (its records run in parallel within a 30 s timeout,
 * and a record given up goes back to the queue for a visibility timeout and a warning). Sixteen attempts: fifteen
 * lost races wait about 5.3 s in expectation and 10.6 s at most. Ten were too few for 40 concurrent deliveries of 20
 * events to one document on a loaded machine, where each round trip is slower and each round still commits one
 * writer (a CI run lost one delivery's tenth race).
 */
export const queuedWriteRetryPolicy: RetryPolicy = { ...optimisticRetryPolicy, maxAttempts: 16 };

/** The full-jitter delay before retry number `retry` (1 for the first retry). */
export const backoffDelayMs = (retry: number, policy: RetryPolicy = optimisticRetryPolicy, random: () => number = Math.random): number =>
  random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));

export interface RetryOptions {
  readonly policy?: RetryPolicy;
  /** Which errors are a lost race; ConcurrentModification by default. */
  readonly isRetryable?: (error: unknown) => boolean;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/** A pause of `ms` milliseconds. */
export const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `attempt` (given its number, from 1) under the optimistic-retry policy. */
export const withOptimisticRetry = async <T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions = {}): Promise<T> => {
  const {
    policy = optimisticRetryPolicy,
    isRetryable = (error: unknown) => error instanceof ConcurrentModification,
    sleep = sleepFor,
    random = Math.random,
  } = options;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!isRetryable(error) || attemptNumber >= policy.maxAttempts) throw error;
      await sleep(backoffDelayMs(attemptNumber, policy, random));
    }
  }
};
