// Chaos tier: a client that behaves as the README tells clients to. It sends a request and, on every 5xx, 429,
// 409 `idempotency-key-in-use`, dropped connection or timeout, sends it again with the SAME Idempotency-Key and the
// SAME body, after the Retry-After the answer names (capped), or else a full-jitter backoff, up to a bounded number
// of attempts. Every attempt is kept, so the tier can hold each answer to the service's rules (no 500, no stack
// trace, a dependency failure is 503 with Retry-After or the gateway's 502/504).
import { seededRandom } from '#infra/local/seeded-random';
import { api, type ApiRequest, type ApiResponse } from '#test/support/http';
import { problemType } from '#test/support/responses';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** Backoff when the answer names no Retry-After: full jitter in [0, min(capMs, baseMs * 2^attempt)). */
  readonly baseMs: number;
  readonly capMs: number;
  /** A Retry-After is honoured up to this (the tier's budget; a real client may wait longer). */
  readonly retryAfterCapMs: number;
  /** The client's own timeout for one attempt: past it the attempt counts as dropped. */
  readonly attemptTimeoutMs: number;
  /** The client stops retrying once this long has passed since the first attempt (its attempts may run out first). */
  readonly totalMs: number;
}

/**
 * An attempt may take up to 35 s, above the gateway's 29 s integration timeout, so the gateway's 504 is seen rather
 * than cut short. The client keeps at it for 40 s: longer than a function's invocation (10 s), so a retry answered
 * `idempotency-key-in-use` while the first attempt's invocation is gone keeps asking until the key is free again.
 */
export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 30, baseMs: 100, capMs: 1_000, retryAfterCapMs: 2_000, attemptTimeoutMs: 35_000, totalMs: 40_000 };

export interface Attempt {
  /** The HTTP status, or `dropped` when no answer came (connection reset, refused, or the attempt's timeout). */
  readonly status: number | 'dropped';
  readonly retryAfter?: string | null;
  readonly problemType?: string;
  /** The body as text (empty when dropped), to look for what must never be in an answer. */
  readonly text: string;
  readonly error?: string;
}

export interface RetriedCall<TBody> {
  /** What was sent, on every attempt: the path and the request (its Idempotency-Key included), for a replay. */
  readonly sent: { readonly path: string; readonly request: ApiRequest & { readonly idempotencyKey?: string } };
  /** The last answer (undefined when every attempt was dropped). */
  readonly final: ApiResponse<TBody> | undefined;
  readonly attempts: readonly Attempt[];
  /** True when the client stopped on a retryable outcome because its attempts ran out. */
  readonly gaveUp: boolean;
}

const inUse = problemType('idempotency-key-in-use');

/** What the README asks a client to retry: every 5xx, 429, a key still in use, and no answer at all. */
export const isRetryable = (attempt: Attempt): boolean =>
  attempt.status === 'dropped' || attempt.status >= 500 || attempt.status === 429 || (attempt.status === 409 && attempt.problemType === inUse);

/** Retry-After in seconds or as an HTTP date, in ms (undefined when absent or unreadable). */
export const retryAfterMs = (value: string | null | undefined, now = Date.now()): number | undefined => {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RetryingClient {
  /**
   * Sends `request` to `path` until an answer that is not retryable, or `maxAttempts`. `idempotencyKey`, when
   * given, is sent on every attempt as the `Idempotency-Key` header.
   */
  send<TBody = unknown>(path: string, request: ApiRequest & { readonly idempotencyKey?: string }): Promise<RetriedCall<TBody>>;
}

export const retryingClient = (seed: number, policy: RetryPolicy = defaultRetryPolicy): RetryingClient => {
  const random = seededRandom(seed);
  return {
    async send<TBody>(path: string, sentRequest: ApiRequest & { readonly idempotencyKey?: string }) {
      const { idempotencyKey, ...request } = sentRequest;
      const sent = { path, request: sentRequest };
      const headers = { ...(request.headers ?? {}), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) };
      const attempts: Attempt[] = [];
      const started = Date.now();
      let final: ApiResponse<TBody> | undefined;
      for (let number = 1; ; number += 1) {
        let attempt: Attempt;
        try {
          final = await api<TBody>(path, { ...request, headers, signal: AbortSignal.timeout(policy.attemptTimeoutMs) });
          const type = (final.json as { type?: unknown } | undefined)?.type;
          attempt = {
            status: final.status,
            retryAfter: final.headers.get('retry-after'),
            ...(typeof type === 'string' ? { problemType: type } : {}),
            text: final.text,
          };
        } catch (error) {
          final = undefined;
          attempt = { status: 'dropped', text: '', error: (error as Error).message };
        }
        attempts.push(attempt);
        if (!isRetryable(attempt)) return { sent, final, attempts, gaveUp: false };
        if (number >= policy.maxAttempts || Date.now() - started >= policy.totalMs) return { sent, final, attempts, gaveUp: true };
        const asked = retryAfterMs(attempt.retryAfter);
        await sleep(asked !== undefined ? Math.min(asked, policy.retryAfterCapMs) : random() * Math.min(policy.capMs, policy.baseMs * 2 ** number));
      }
    },
  };
};

/** A stack trace in a body: `    at fn (file.js:12:34)` frames, or a V8 error header followed by one. */
const stackTrace = /(^|\n|\\n)\s*at\s+\S.*(:\d+:\d+\)?|<anonymous>)|\b(Error|TypeError|ReferenceError):[^\n]*(\n|\\n)\s*at\s/;

/**
 * What every answer owes whatever failed (issue 22, "Everywhere"): no stack trace in any body; no 500 (a bug);
 * a 5xx is a 503 with Retry-After (a dependency failed) or the gateway's 502/504. Returns one line per breach.
 */
export const answerBreaches = (attempts: readonly Attempt[]): string[] =>
  attempts.flatMap((attempt) => {
    if (attempt.status === 'dropped') return [];
    const breaches: string[] = [];
    if (stackTrace.test(attempt.text)) breaches.push(`a ${attempt.status} whose body carries a stack trace`);
    if (attempt.status === 503 && !attempt.retryAfter) breaches.push('a 503 without Retry-After');
    if (attempt.status >= 500 && ![502, 503, 504].includes(attempt.status)) breaches.push(`a ${attempt.status} (${attempt.text.slice(0, 160)})`);
    return breaches;
  });
