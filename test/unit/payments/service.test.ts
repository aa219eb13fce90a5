// Unit tests of the refund's contention handling (shared/payments/service.ts) over the in-memory payment store
// (test/stores/payments/memory-payment-store.ts, held to the DynamoDB repository by its contract suite): a lost race
// with another transaction on the payment (which DynamoDB Local never reports: the store is told to fail) is retried
// inside the service and never answers 409; retries that run out answer 503 with Retry-After; a balance that moved
// (another refund landing between the read and the write) is decided again from a fresh read, and only a refund that
// no longer fits is 409. The real repository's behaviour under concurrency is in test/integration/payments.
import { describe, expect, it } from '@jest/globals';
import { ConcurrentModification } from '#shared/errors';
import type { PaymentStore } from '#shared/payments/store';
import { buildRefund, prepareNewPayment, readRefundRequest, settleRefund, type PaymentRecord } from '#shared/payments/rules';
import { contentionRetryAfterSeconds, createPaymentService } from '#shared/payments/service';
import { optimisticRetryPolicy } from '#shared/data/retry';
import { KeyAlreadyClaimed, type StoredClaim, type WriteClaim } from '#shared/data/idempotency';
import { createMemoryPaymentStore } from '#test/stores/payments/memory-payment-store';

const principal = { tenantId: 5, websiteId: 1, userId: 42 };
const now = '2026-03-02T00:00:00.000Z';

/**
 * A store holding payment 1 of 10.00 AUD, counting the service's refund writes and IDs taken. `race` runs once, just
 * before the service's first refund write reaches the store (another request's refund landing between its read and
 * its write); `after` once, just after that write was refused.
 */
const storeWith = async ({ race, after }: { race?: (store: PaymentStore) => Promise<void>; after?: (store: PaymentStore) => Promise<void> } = {}) => {
  const memory = createMemoryPaymentStore();
  const { store } = memory;
  await store.create(principal.tenantId, prepareNewPayment({ Amount: 10 }, { id: await store.nextId(principal.tenantId), guid: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f', now, userId: 42 }));
  const calls = { writes: 0, ids: 0 };
  const repository: PaymentStore = {
    ...store,
    nextId: (tenantId) => {
      calls.ids += 1;
      return store.nextId(tenantId);
    },
    refund: async (tenantId, write, claim) => {
      calls.writes += 1;
      if (calls.writes > 1) return store.refund(tenantId, write, claim);
      await race?.(store);
      try {
        return await store.refund(tenantId, write, claim);
      } finally {
        await after?.(store);
      }
    },
  };
  return { ...memory, repository, calls };
};

/** Another request's refund of `amountMinor` of payment 1, committed now (queued: its amount reserved). */
const landRefund = async (store: PaymentStore, amountMinor: number) => {
  const original = (await store.get(principal.tenantId, 1)) as PaymentRecord;
  const id = await store.nextId(principal.tenantId);
  await store.refund(principal.tenantId, { original, refund: buildRefund(original, readRefundRequest(undefined), amountMinor, 'queued', { id, guid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`, now, userId: 9 }) });
  return id;
};

/** That refund failing for good: its reservation given back. */
const failRefund = async (store: PaymentStore, id: number) => {
  const queued = (await store.get(principal.tenantId, id)) as PaymentRecord;
  await store.settle(principal.tenantId, { previous: queued, next: settleRefund(queued, { status: 'Failed', errorMessage: 'declined' }, now), releaseMinor: queued.amountMinor });
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
    const { repository, calls, failNextWrites } = await storeWith();
    failNextWrites(new ConcurrentModification(), new ConcurrentModification());
    const saved = await serviceOver(repository).refund(principal, 1, { Object: { Amount: 0.01 } });
    expect(saved.payment).toMatchObject({ ID: 2, Amount: 0.01, Status: 'Refunded' });
    expect(calls).toMatchObject({ writes: 3, ids: 1 });
  });

  it('answers 503 with Retry-After, never 409, when every attempt meets another transaction', async () => {
    const { repository, calls, failNextWrites, snapshot } = await storeWith();
    const before = snapshot();
    failNextWrites(...Array.from({ length: optimisticRetryPolicy.maxAttempts }, () => new ConcurrentModification()));
    const failure = await failureOf(serviceOver(repository).refund(principal, 1, { Object: { Amount: 0.01 } }));
    expect(failure).toMatchObject({ name: 'ServiceUnavailable', status: 503, headers: { 'Retry-After': String(contentionRetryAfterSeconds) } });
    expect(calls.writes).toBe(optimisticRetryPolicy.maxAttempts);
    // Nothing refunded, and the refund's ID given back.
    expect(snapshot()).toEqual(before);
  });

  it('decides again when the balance moved: still fits -> written', async () => {
    // Another refund of 6.00 lands between the read and the write (5.00 no longer fits), then fails and gives it back.
    let raced = 0;
    const { repository, calls } = await storeWith({
      race: async (store) => {
        raced = await landRefund(store, 600);
      },
      after: (store) => failRefund(store, raced),
    });
    const saved = await serviceOver(repository).refund(principal, 1, { Object: { Amount: 5 } });
    expect(saved.payment).toMatchObject({ Amount: 5 });
    expect(calls).toMatchObject({ writes: 2, ids: 1 });
  });

  it('decides again when the balance moved: no longer fits -> 409 with what is left, and nothing more is written', async () => {
    const { repository, calls } = await storeWith({ race: async (store) => void (await landRefund(store, 999)) });
    const failure = await failureOf(serviceOver(repository).refund(principal, 1, { Object: { Amount: 0.02 } }));
    expect(failure).toMatchObject({ name: 'RefundExceedsBalance', status: 409, detail: 'At most 0.01 AUD of this payment can still be refunded.' });
    expect(calls.writes).toBe(1);
  });

  it('refunds what is left when the whole balance was asked for and other refunds took part of it meanwhile', async () => {
    const { repository } = await storeWith({ race: async (store) => void (await landRefund(store, 250)) });
    const saved = await serviceOver(repository).refund(principal, 1, {});
    expect(saved.payment).toMatchObject({ Amount: 7.5 });
  });
});

describe('a payment recorded under contention', () => {
  /** A claim of the key (as idempotency.ts gives the work): its reads answer `reads` in turn. */
  const claimReading = (...reads: (StoredClaim | undefined)[]) =>
    ({ read: async () => reads.shift(), item: () => ({ Put: { TableName: 'business', Item: { pk: 'claim', sk: 'claim' } } }) }) as unknown as WriteClaim<never>;

  it('is sent again after a transaction conflict, with one ID', async () => {
    const { repository, calls, failNextWrites } = await storeWith();
    failNextWrites(new ConcurrentModification());
    const saved = await serviceOver(repository).record(principal, { Object: { Amount: 3 } });
    expect(saved.payment).toMatchObject({ ID: 2, Amount: 3 });
    expect(calls.ids).toBe(1);
  });

  it("replays a twin's answer when the twin with its key committed first (the conflict was the claim's), giving the ID back", async () => {
    const { repository, failNextWrites, snapshot } = await storeWith();
    const before = snapshot();
    failNextWrites(new ConcurrentModification());
    const twins: StoredClaim = { requestHash: 'same', answer: '{"status":201}' };
    const failure = await serviceOver(repository).record(principal, { Object: { Amount: 3 } }, claimReading(undefined, twins)).catch((error: unknown) => error);
    // idempotency.ts replays the claim it carries.
    expect(failure).toBeInstanceOf(KeyAlreadyClaimed);
    expect((failure as KeyAlreadyClaimed).found).toEqual(twins);
    expect(snapshot()).toEqual(before);
  });

  it('answers 503 with Retry-After, not 409, when every attempt meets another transaction', async () => {
    const { repository, failNextWrites, snapshot } = await storeWith();
    const before = snapshot();
    failNextWrites(...Array.from({ length: optimisticRetryPolicy.maxAttempts }, () => new ConcurrentModification()));
    const failure = await failureOf(serviceOver(repository).record(principal, { Object: { Amount: 3 } }));
    expect(failure).toMatchObject({ name: 'ServiceUnavailable', status: 503 });
    expect(snapshot()).toEqual(before);
  });
});
