// Chaos tier: a burst of logical requests, each sent by the retrying client until it has a final answer, and what
// every flow's checker asks of them: which ended 2xx, which gave up, and the answers that broke the service's rules.
import { answerBreaches, type RetriedCall, type RetryingClient } from './retrying-client';
import type { ApiRequest } from '#test/support/http';

/** One logical request: a label that finds its effect in the table (a Name, a Description, an event id). */
export interface Sent<TBody = unknown> {
  readonly label: string;
  readonly call: RetriedCall<TBody>;
}

export const isSuccess = (sent: Sent): boolean => sent.call.final !== undefined && sent.call.final.status >= 200 && sent.call.final.status < 300;

/** Sends every request at once (a burst), each retried on its own. */
export const burst = <TBody>(
  client: RetryingClient,
  requests: readonly { readonly label: string; readonly path: string; readonly request: ApiRequest & { readonly idempotencyKey?: string } }[],
): Promise<Sent<TBody>[]> => Promise.all(requests.map(async ({ label, path, request }) => ({ label, call: await client.send<TBody>(path, request) })));

/**
 * Sends again every request that ended 2xx with an Idempotency-Key (the same key and body, by a client that retries
 * as the README says), once the cell's faults are cleared, and says where the answer is not the first one: the same
 * status, `Location` and body, byte for byte. A retry never has a second effect, and a client that lost the first
 * answer must get it again whatever failed while it was made.
 */
export const replayBreaches = async (sent: readonly Sent[], client: RetryingClient): Promise<{ readonly replayed: number; readonly breaches: string[] }> => {
  const replayed = await Promise.all(
    sent.filter((one) => isSuccess(one) && one.call.sent.request.idempotencyKey !== undefined).map(async ({ label, call }) => ({ label, first: call.final, again: await client.send(call.sent.path, call.sent.request) })),
  );
  const breaches = replayed.flatMap(({ label, first, again }) => {
    const answer = again.final;
    if (!first || !answer) return [`${label}: its replay got no answer`];
    const shown = (response: typeof answer) => ({ status: response.status, location: response.headers.get('location'), body: response.text });
    const [before, after] = [shown(first), shown(answer)];
    if (before.status === after.status && before.location === after.location && before.body === after.body) return [];
    return [`${label}: replayed with its key, answered ${after.status} ${after.body.slice(0, 160)} where the first answer was ${before.status} ${before.body.slice(0, 160)}`];
  });
  return { replayed: replayed.length, breaches };
};

/** The answers of a burst that broke a rule every answer owes, each named by its request. */
export const breachesOf = (sent: readonly Sent[]): string[] =>
  sent.flatMap(({ label, call }) => answerBreaches(call.attempts).map((breach) => `${label}: ${breach}`));

/** A short account of a request's answers, for a finding: `502, 409 idempotency-key-in-use, 201`. */
export const statusesOf = (sent: Sent): string =>
  sent.call.attempts.map((attempt) => `${attempt.status}${attempt.problemType ? ` ${attempt.problemType.split('/').pop()}` : ''}`).join(', ');

/** Every attempt's status over a burst, counted (`dropped` for no answer). */
export const answerCounts = (sent: readonly Sent[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const attempt of sent.flatMap(({ call }) => call.attempts)) counts[String(attempt.status)] = (counts[String(attempt.status)] ?? 0) + 1;
  return counts;
};

/** How many items carry each label (a Name, a Description...), to find a doubled or missing effect. */
export const countBy = <T>(items: readonly T[], labelOf: (item: T) => unknown): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) {
    const label = labelOf(item);
    if (typeof label === 'string') counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return counts;
};

/**
 * The rule every flow shares: a request answered 2xx has its effect exactly once; a request that never got a 2xx
 * has none (its retries included: every write of the tier carries an Idempotency-Key). `effects` counts the table's
 * effects by label.
 */
export const exactlyOnce = (sent: readonly Sent[], effects: ReadonlyMap<string, number>, what: string) => {
  const doubled: string[] = [];
  const lost: string[] = [];
  const violated: string[] = [];
  for (const request of sent) {
    const count = effects.get(request.label) ?? 0;
    if (count > 1) doubled.push(`${what} ${request.label} applied ${count} times (answers: ${statusesOf(request)})`);
    else if (isSuccess(request) && count === 0) lost.push(`${what} ${request.label} answered ${request.call.final?.status} but not in the table (answers: ${statusesOf(request)})`);
    else if (!isSuccess(request) && count === 1) {
      violated.push(`${what} ${request.label} applied though no answer was 2xx (answers: ${statusesOf(request)}${request.call.gaveUp ? ', the client gave up' : ''})`);
    }
  }
  return { doubled, lost, violated };
};
