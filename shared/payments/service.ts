// Domain: the payment use cases (record, get, refund inline or queued, settle a queued refund). Called by the functions
// with a validated request and the caller's principal, and by the payments queue's consumer; applies the rules of
// rules.ts and talks to storage only through the store it declares (store.ts). Throws named errors; never builds a
// response. Each use case makes the fewest round trips its consistency needs (README.md, "Round trips").
import { randomUUID } from 'node:crypto';
import type { Principal } from '#shared/auth/principal';
import { KeyAlreadyClaimed, type WriteClaim } from '#shared/data/idempotency';
import { withOptimisticRetry, type RetryOptions } from '#shared/data/retry';
import { maxSequenceValue, withTakenValue } from '#shared/data/sequence';
import { ConcurrentModification, NotFound, ServiceUnavailable } from '#shared/errors';
import { describeError, logger } from '#shared/observability/logger';
import { countMetric } from '#shared/observability/metrics';
import { refundsPage } from '#shared/schemas/limits';
import type { PaymentGetQuery, PaymentT, SaveRequestPaymentT } from '#shared/schemas/payment';
import type { QueuedRefund } from '#shared/schemas/messages/payments';
import type { RefundPublisher } from './queue';
import { assertPaymentFits } from './repository';
import type { PaymentStore } from './store';
import {
  buildRefund,
  paymentView,
  prepareNewPayment,
  readRefundRequest,
  refundAmountMinor,
  runModeOf,
  settleRefund,
  type PaymentRecord,
} from './rules';

export interface PaymentServiceDependencies {
  readonly repository: PaymentStore;
  readonly publish: RefundPublisher;
  readonly clock?: () => Date;
  readonly newGuid?: () => string;
  /** The data kit's retry policy unless a test injects its own sleep. */
  readonly retry?: RetryOptions;
}

export interface SavedPayment {
  /** The payment or refund as answers show it. */
  readonly payment: PaymentT;
  /** True when the refund waits in the payments queue (202), false when it is done (201). */
  readonly queued: boolean;
}

/**
 * What the consumer did with a queued refund. `absent`: no queued refund has the message's ID: the guarantee message
 * of a refund whose transaction never committed (queue.ts); nothing to do.
 */
export type SettlementOutcome = 'completed' | 'failed' | 'already-settled' | 'absent';

/** The message a failed queued refund shows: says what happened and what to do, nothing internal. */
export const queuedRefundFailureMessage =
  'The queued refund could not be completed after repeated attempts; its amount is refundable again. Record a new refund to retry.';

/** Seconds a client waits before sending again a queued refund the payments queue could not take (503). */
const queueRetryAfterSeconds = 5;

/** Seconds a client waits before sending again a refund that met too much contention (503). */
export const contentionRetryAfterSeconds = 1;

/**
 * Runs a refund's read-decide-write under the data kit's retry policy. Every lost race left in a refund is contention,
 * not a conflicting intent (no write carries a Version condition; a balance that no longer covers the refund is
 * decided on the next read as RefundExceedsBalance), so retries that run out answer 503 with Retry-After, never 409.
 */
const underContention = async <T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions, outcome: string): Promise<T> => {
  try {
    return await withOptimisticRetry(attempt, options);
  } catch (error) {
    if (!(error instanceof ConcurrentModification)) throw error;
    throw new ServiceUnavailable(`Too many writes to this payment are in flight; ${outcome}; retry shortly.`, contentionRetryAfterSeconds, error);
  }
};

export const createPaymentService = ({
  repository,
  publish,
  clock = () => new Date(),
  newGuid = randomUUID,
  retry = {},
}: PaymentServiceDependencies) => {
  const now = () => clock().toISOString();

  const existing = (record: PaymentRecord | undefined, id: number): PaymentRecord => {
    if (!record) throw new NotFound(`Payment ${id} does not exist.`);
    return record;
  };
  const require = async (tenantId: number, id: number): Promise<PaymentRecord> => existing(await repository.get(tenantId, id), id);

  /**
   * Gives back an ID taken for a write that was refused with nothing written (best effort: a failure, or a later ID
   * taken meanwhile, leaves a gap, never a duplicate), so a refused request leaves the tenant's sequence as it was.
   */
  const giveBackId = (tenantId: number, id: number): Promise<unknown> =>
    Promise.resolve()
      .then(() => repository.giveBackId(tenantId, id))
      .catch(() => false);

  /**
   * Takes the tenant's next ID, the write's own first read and its Idempotency-Key's claim in one round trip. A claim
   * found means an earlier request with the key did the work: the ID is given back and KeyAlreadyClaimed carries the
   * claim to its replay. Then runs `write` with the ID, giving it back when the write wrote nothing.
   */
  const withId = async <T, R>(
    tenantId: number,
    claim: Pick<WriteClaim<unknown>, 'read'> | undefined,
    read: () => Promise<T>,
    write: (id: number, read: T) => Promise<R>,
  ): Promise<R> => {
    const [value, first, prior] = await Promise.all([read(), repository.nextId(tenantId), claim?.read()]);
    // An ID found in use (the sequence behind its items) is stepped past, never given back.
    return withTakenValue(first, { take: () => repository.nextId(tenantId), giveBack: (id) => repository.giveBackId(tenantId, id) }, (id) => {
      if (prior) throw new KeyAlreadyClaimed(prior);
      return write(id, value);
    });
  };

  /** Settles a queued refund under the optimistic-retry policy; a refund no longer Queued is left as it is. */
  const settle = (message: QueuedRefund, outcome: Parameters<typeof settleRefund>[1]): Promise<SettlementOutcome> =>
    underContention(async () => {
      const refund = await repository.get(message.tenantId, message.refundId);
      // No refund with the ID: its transaction never committed (the ID, given back, may even name a later payment).
      if (!refund?.fields.IsRefund) return 'absent';
      if (refund.fields.Status !== 'Queued') return 'already-settled';
      const next = settleRefund(refund, outcome, now());
      await repository.settle(message.tenantId, {
        previous: refund,
        next,
        releaseMinor: outcome.status === 'Failed' ? refund.amountMinor : 0,
      });
      if (outcome.status === 'Failed') {
        countMetric('refundFailures', 'Queued');
        return 'failed';
      }
      countMetric('refundedAmount', refund.fields.Currency, refund.amountMinor);
      return 'completed';
    }, retry, `refund ${message.refundId} is still Queued`);

  return {
    /**
     * POST /Payment: records a payment (never queued: it is one write). With an Idempotency-Key, the key's claim is
     * read with the ID and written in the payment's own transaction (shared/data/idempotency.ts).
     */
    async record(principal: Principal, request: SaveRequestPaymentT, claim?: WriteClaim<SavedPayment>): Promise<SavedPayment> {
      runModeOf(request, 'record');
      const context = { guid: newGuid(), now: now(), userId: principal.userId };
      // Checked before an ID is spent on it, so a refused body leaves no gap in the tenant's IDs: with the largest ID,
      // the stored item can only be smaller than the one checked.
      assertPaymentFits(principal.tenantId, prepareNewPayment(request.Object, { ...context, id: maxSequenceValue }));
      const saved = await withId(principal.tenantId, claim, async () => undefined, (id) =>
        // The only contention a new payment meets is a twin with its Idempotency-Key committing at once (its claim,
        // the same item): sent again from the claim's read, it replays the twin's answer rather than answer 409.
        underContention(async (attempt) => {
          const prior = attempt === 1 ? undefined : await claim?.read();
          if (prior) throw new KeyAlreadyClaimed(prior);
          const prepared = prepareNewPayment(request.Object, { ...context, id });
          const answer = { payment: paymentView(prepared), queued: false };
          await repository.create(principal.tenantId, prepared, claim?.item(answer));
          return answer;
        }, retry, 'nothing was recorded'),
      );
      countMetric('paymentsRecorded');
      return saved;
    },

    /**
     * GET /Payment/{id}: the tenant's payment (or refund) with a page of its refunds (after `RefundsAfterID`, at most
     * `MaxRefunds`), their count and whether more follow; any other payment is 404.
     */
    async get(principal: Principal, id: number, query: PaymentGetQuery = {}): Promise<PaymentT> {
      const page = { afterId: query.RefundsAfterID ?? 0, limit: query.MaxRefunds ?? refundsPage.default };
      const found = await repository.getWithRefunds(principal.tenantId, id, page);
      if (!found) throw new NotFound(`Payment ${id} does not exist.`);
      return paymentView(found.record, found);
    },

    /**
     * POST /Payment/{id}/refund: a new refund record and the payment's refunded amount raised, in one transaction
     * whose only condition is that the refund fits the balance. When it no longer fits by the time it is written, the
     * payment is read again: still fits (a failed refund gave some back) -> written; does not -> 409 with what is left.
     * Any number of refunds that fit run at once. The refund's ID comes from the tenant's sequence (an atomic ADD: no
     * two refunds ever get the same one), taken while the payment is read, and given back when the refund is refused,
     * so the refund is two round trips (the read with the ID, then the transaction). Queued: the amount is reserved the same way, and the refund goes to the
     * payments queue; if the queue cannot take it, the reservation is released and the caller gets 503.
     */
    async refund(principal: Principal, paymentId: number, request: SaveRequestPaymentT, claim?: WriteClaim<SavedPayment>): Promise<SavedPayment> {
      const mode = runModeOf(request, 'refund');
      const details = readRefundRequest(request.Object);
      const tenantId = principal.tenantId;
      const metricMode = mode === 'queued' ? 'Queued' : 'Inline';
      // The refund's ID (and the key's claim) is taken while the payment is read: one round trip before the
      // transaction, not two.
      const refund = await withId(tenantId, claim, () => repository.get(tenantId, paymentId), async (id, first) => {
        const context = { id, guid: newGuid(), now: now(), userId: principal.userId };
        const plan = (original: PaymentRecord) => ({ original, refund: buildRefund(original, details, refundAmountMinor(original, details), mode, context) });
        // Refused (404, 409, 400) before anything is sent.
        const planned = plan(existing(first, paymentId));
        // A queued refund's guarantee goes first: if the function dies after the commit, it still settles the refund.
        // A queue that cannot take it: 503, nothing written, the ID given back.
        if (mode === 'queued') {
          await publish({ tenantId, refundId: id }, { guarantee: true }).catch(async (error: unknown) => {
            logger.error('queued refund not sent: nothing was written', { refundId: id, ...describeError(error) });
            await giveBackId(tenantId, id);
            throw new ServiceUnavailable('The refund could not be queued and was not made; retry shortly.', queueRetryAfterSeconds, error);
          });
        }
        return underContention(async (attempt) => {
          const write = attempt === 1 ? planned : plan(await require(tenantId, paymentId));
          await repository.refund(tenantId, write, claim?.item({ payment: paymentView(write.refund), queued: mode === 'queued' }));
          return write.refund;
        }, retry, 'nothing was refunded');
      }).catch((error: unknown) => {
        if (error instanceof ServiceUnavailable) countMetric('refundFailures', metricMode);
        throw error;
      });
      if (mode === 'queued') {
        const message = { tenantId, refundId: refund.fields.ID };
        // The fast path: a queue that cannot take it now leaves the refund to its guarantee message, a minute later.
        await publish(message).catch((error: unknown) => {
          logger.warn('queued refund not sent at once: its guarantee message settles it', { refundId: refund.fields.ID, ...describeError(error) });
        });
      }
      countMetric('refunds', metricMode);
      if (mode !== 'queued') countMetric('refundedAmount', refund.fields.Currency, refund.amountMinor);
      return { payment: paymentView(refund), queued: mode === 'queued' };
    },

    /** The consumer's work: completes a queued refund (Refunded). Idempotent: a settled refund is left alone. */
    completeQueuedRefund: (message: QueuedRefund): Promise<SettlementOutcome> => settle(message, { status: 'Refunded' }),

    /** The consumer's last resort: marks a queued refund Failed and releases its reserved amount. Idempotent. */
    failQueuedRefund: (message: QueuedRefund, errorMessage = queuedRefundFailureMessage): Promise<SettlementOutcome> =>
      settle(message, { status: 'Failed', errorMessage }),
  };
};

export type PaymentService = ReturnType<typeof createPaymentService>;
