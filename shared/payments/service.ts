// Domain: payments and refunds. Called by the functions with a validated request and the caller's principal, and
// by the payments queue's consumer; applies the rules of rules.ts and talks to storage only through the repository.
// Throws named errors; never builds a response.
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { withOptimisticRetry } from '../data/retry';
import { maxSequenceValue } from '../data/sequence';
import { NotFound, ServiceUnavailable } from '../errors';
import { describeError, logger } from '../observability/logger';
import type { PaymentT, SaveRequestPaymentT } from '../schemas/payment';
import type { QueuedRefund } from './message';
import type { RefundPublisher } from './queue';
import { assertPaymentFits, type PaymentRepository } from './repository';
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
  readonly repository: PaymentRepository;
  readonly publish: RefundPublisher;
  readonly clock?: () => Date;
  readonly newGuid?: () => string;
}

export interface SavedPayment {
  /** The payment or refund as answers show it. */
  readonly payment: PaymentT;
  /** True when the refund waits in the payments queue (202), false when it is done (201). */
  readonly queued: boolean;
}

/** What the consumer did with a queued refund. */
export type SettlementOutcome = 'completed' | 'failed' | 'already-settled';

/** The message a failed queued refund shows: says what happened and what to do, nothing internal. */
export const queuedRefundFailureMessage =
  'The queued refund could not be completed after repeated attempts; its amount is refundable again. Record a new refund to retry.';

export const createPaymentService = ({ repository, publish, clock = () => new Date(), newGuid = randomUUID }: PaymentServiceDependencies) => {
  const now = () => clock().toISOString();

  const require = async (tenantId: number, id: number): Promise<PaymentRecord> => {
    const record = await repository.get(tenantId, id);
    if (!record) throw new NotFound(`Payment ${id} does not exist.`);
    return record;
  };

  /** Settles a queued refund under the optimistic-retry policy; a refund no longer Queued is left as it is. */
  const settle = (message: QueuedRefund, outcome: Parameters<typeof settleRefund>[1]): Promise<SettlementOutcome> =>
    withOptimisticRetry(async () => {
      const refund = await repository.get(message.tenantId, message.refundId);
      if (!refund?.fields.IsRefund) throw new Error(`queued refund ${message.refundId} does not exist`);
      if (refund.fields.Status !== 'Queued') return 'already-settled';
      const next = settleRefund(refund, outcome, now());
      await repository.settle(message.tenantId, {
        previous: refund,
        next,
        releaseMinor: outcome.status === 'Failed' ? refund.amountMinor : 0,
      });
      return outcome.status === 'Failed' ? 'failed' : 'completed';
    });

  return {
    /** POST /Payment: records a payment (never queued: it is one write). */
    async record(principal: Principal, request: SaveRequestPaymentT): Promise<SavedPayment> {
      runModeOf(request, 'record');
      const context = { guid: newGuid(), now: now(), userId: principal.userId };
      // Checked before an ID is spent on it, so a refused body leaves no gap in the tenant's IDs: with the largest ID,
      // the stored item can only be smaller than the one checked.
      assertPaymentFits(principal.tenantId, prepareNewPayment(request.Object, { ...context, id: maxSequenceValue }));
      const record = await repository.withNextId(principal.tenantId, async (id) => {
        const prepared = prepareNewPayment(request.Object, { ...context, id });
        await repository.create(principal.tenantId, prepared);
        return prepared;
      });
      return { payment: paymentView(record), queued: false };
    },

    /** GET /Payment/{id}: the tenant's payment (or refund) with its refunds; any other payment is 404. */
    async get(principal: Principal, id: number): Promise<PaymentT> {
      const found = await repository.getWithRefunds(principal.tenantId, id);
      if (!found) throw new NotFound(`Payment ${id} does not exist.`);
      return paymentView(found.record, found.refunds);
    },

    /**
     * POST /Payment/{id}/refund: a new refund record and the payment's refunded amount raised, in one transaction,
     * retried from a fresh read when another refund of the payment got there first. Queued: the amount is reserved
     * the same way, and the refund goes to the payments queue; if the queue cannot take it, the reservation is
     * released and the caller gets 503.
     */
    async refund(principal: Principal, paymentId: number, request: SaveRequestPaymentT): Promise<SavedPayment> {
      const mode = runModeOf(request, 'refund');
      const details = readRefundRequest(request.Object);
      const tenantId = principal.tenantId;
      const first = await require(tenantId, paymentId);
      refundAmountMinor(first, details);
      const context = { id: await repository.nextId(tenantId), guid: newGuid(), now: now(), userId: principal.userId };
      const refund = await withOptimisticRetry(async (attempt) => {
        const original = attempt === 1 ? first : await require(tenantId, paymentId);
        const next = buildRefund(original, details, refundAmountMinor(original, details), mode, context);
        await repository.refund(tenantId, { original, refund: next });
        return next;
      });
      if (mode === 'queued') {
        const message = { tenantId, refundId: refund.fields.ID };
        try {
          await publish(message);
        } catch (error) {
          logger.error('queued refund not sent: releasing its reservation', { refundId: refund.fields.ID, ...describeError(error) });
          await settle(message, { status: 'Failed', errorMessage: 'The payments queue could not take the refund; nothing was refunded.' });
          throw new ServiceUnavailable('The refund could not be queued and was not made; retry shortly.', 5, error);
        }
      }
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
