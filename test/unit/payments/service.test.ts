// Unit tests of the refund's contention handling (shared/payments/service.ts) over a fake repository: a lost race
// with another transaction on the payment is retried inside the service and never answers 409; retries that run out
// answer 503 with Retry-After; a balance that moved is decided again from a fresh read, and only a refund that no
// longer fits is 409. The real repository's behaviour under concurrency is in test/integration/payments.
import { describe, expect, it } from '@jest/globals';
import { ConcurrentModification } from '#shared/errors';
import type { PaymentStore } from '#shared/payments/store';
import { BalanceMoved, prepareNewPayment, type PaymentRecord } from '#shared/payments/rules';
import { contentionRetryAfterSeconds, createPaymentService } from '#shared/payments/service';
import { optimisticRetryPolicy } from '#shared/data/retry';

const principal = { tenantId: 5, websiteId: 1, userId: 42 };
const now = '2026-03-02T00:00:00.000Z';
const payment = prepareNewPayment({ Amount: 10 }, { id: 1, guid: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f', now, userId: 42 });

/** A repository whose payment reads come from `reads` in turn (the last one repeats) and whose refund writes fail as `outcomes` say. */
const fakeRepository = (reads: readonly PaymentRecord[], outcomes: readonly (Error | undefined)[]) => {
  const calls = { reads: 0, writes: 0, ids: 0 };
  const repository = {
    nextId: async () => {
      calls.ids += 1;
      return 100 + calls.ids;
    },
    get: async () => reads[Math.min(calls.reads++, reads.length - 1)],
    refund: async () => {
      const outcome = outcomes[Math.min(calls.writes++, outcomes.length - 1)];
      if (outcome) throw outcome;
    },
  } as unknown as PaymentStore;
  return { repository, calls };
};

const serviceOver = (repository: PaymentStore) =>
  createPaymentService({ repository, publish: async () => undefined, clock: () => new Date(now), retry: { sleep: async () => undefined } });

const failureOf = async (pending: Promise<unknown>) => {
  try {
    await pending;
  } catch (error) {
    return error as { name: string; status: number; headers: Record<string, string>; detail: string };
  }
  throw new Error('expected a failure');
};

describe('a refund under contention', () => {
  it('retries a transaction conflict inside the service and succeeds, with one ID for the refund', async () => {
    const { repository, calls } = fakeRepository([payment], [new ConcurrentModification(), new ConcurrentModification(), undefined]);
    const saved = await serviceOver(repository).refund(principal, 1, { Object: { Amount: 0.01 } });
    expect(saved.payment).toMatchObject({ ID: 101, Amount: 0.01, Status: 'Refunded' });
    expect(calls).toMatchObject({ writes: 3, ids: 1 });
  });

  it('answers 503 with Retry-After, never 409, when every attempt meets another transaction', async () => {
    const { repository, calls } = fakeRepository([payment], [new ConcurrentModification()]);
    const failure = await failureOf(serviceOver(repository).refund(principal, 1, { Object: { Amount: 0.01 } }));
    expect(failure).toMatchObject({ name: 'ServiceUnavailable', status: 503, headers: { 'Retry-After': String(contentionRetryAfterSeconds) } });
    expect(calls.writes).toBe(optimisticRetryPolicy.maxAttempts);
  });

  it('decides again when the balance moved: still fits -> written', async () => {
    const { repository, calls } = fakeRepository([payment, { ...payment, refundedMinor: 500 }], [new BalanceMoved(), undefined]);
    const saved = await serviceOver(repository).refund(principal, 1, { Object: { Amount: 5 } });
    expect(saved.payment).toMatchObject({ Amount: 5 });
    expect(calls).toMatchObject({ writes: 2, ids: 1 });
  });

  it('decides again when the balance moved: no longer fits -> 409 with what is left, and nothing more is written', async () => {
    const { repository, calls } = fakeRepository([payment, { ...payment, refundedMinor: 999 }], [new BalanceMoved()]);
    const failure = await failureOf(serviceOver(repository).refund(principal, 1, { Object: { Amount: 0.02 } }));
    expect(failure).toMatchObject({ name: 'RefundExceedsBalance', status: 409, detail: 'At most 0.01 AUD of this payment can still be refunded.' });
    expect(calls.writes).toBe(1);
  });

  it('refunds what is left when the whole balance was asked for and other refunds took part of it meanwhile', async () => {
    const { repository } = fakeRepository([payment, { ...payment, refundedMinor: 250 }], [new BalanceMoved(), undefined]);
    const saved = await serviceOver(repository).refund(principal, 1, {});
    expect(saved.payment).toMatchObject({ Amount: 7.5 });
  });
});
