// Chaos tier, payments: a burst of payments and a burst of refunds against one payment, inline and queued, every one
// with its own Idempotency-Key and a Description that finds it in the table; then the invariant, read from the table:
// every payment and refund answered 2xx exists once (its answered ID is the stored one), none that never got a 2xx
// exists, the refunded sum is exact in integer minor units and within the payment, refund IDs are unique and linked
// once, every queued refund settled, and the payments DLQ holds only refunds that failed for good.
import { randomUUID } from 'node:crypto';
import { eventually } from '#test/support/document-events';
import { tokenFor } from '#test/support/http';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { mergeFindings, type Findings } from './cells';
import { deadLetters, queueSettled } from './queues';
import { breachesOf, burst, countBy, exactlyOnce, isSuccess, type Sent } from './requests';
import type { RetryingClient } from './retrying-client';

interface Saved {
  readonly Object?: { readonly ID?: number; readonly Status?: string };
}

export interface PaymentsRun {
  readonly tenantId: number;
  readonly paymentId: number | undefined;
  readonly payments: readonly Sent<Saved>[];
  readonly refunds: readonly Sent<Saved>[];
  readonly drained: boolean;
}

export interface PaymentsBurst {
  /** Payments recorded at once (the first is the one refunded). */
  readonly payments: number;
  /** Refunds of `refundMinor` sent at once against the first payment; every `queueEvery`-th is queued (0: none). */
  readonly refunds: number;
  readonly queueEvery: number;
  /** The refunded payment's amount and each refund's, in cents (AUD). */
  readonly amountMinor: number;
  readonly refundMinor: number;
}

/** 12 refunds of 1.07 against 20.00: all fit, so a refund applied twice shows as a second record, never as a 409. */
export const smallBurst: PaymentsBurst = { payments: 4, refunds: 12, queueEvery: 3, amountMinor: 2_000, refundMinor: 107 };

const decimal = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

const queuedRefunds = async (tenantId: number): Promise<number> => {
  const table = openTenantTable();
  try {
    return (await table.items(tenantId)).filter((item) => item.entity === 'Payment' && item.IsRefund === true && item.Status === 'Queued').length;
  } finally {
    table.close();
  }
};

export const runPayments = async (client: RetryingClient, cell: string, shape: PaymentsBurst = smallBurst): Promise<PaymentsRun> => {
  const tenantId = freshTenantId();
  const token = await tokenFor({ tenant: tenantId });
  const payments = await burst<Saved>(
    client,
    Array.from({ length: shape.payments }, (_, index) => ({
      label: `${cell} payment ${index + 1}`,
      path: '/Payment',
      request: {
        token,
        idempotencyKey: randomUUID(),
        body: { Object: { Amount: Number(decimal(index === 0 ? shape.amountMinor : 500 + index)), Currency: 'AUD', Description: `${cell} payment ${index + 1}` } },
      },
    })),
  );
  const paymentId = isSuccess(payments[0] as Sent) ? (payments[0] as Sent<Saved>).call.final?.json.Object?.ID : undefined;
  const refunds =
    paymentId === undefined
      ? []
      : await burst<Saved>(
          client,
          Array.from({ length: shape.refunds }, (_, index) => ({
            label: `${cell} refund ${index + 1}`,
            path: `/Payment/${paymentId}/refund`,
            request: {
              token,
              idempotencyKey: randomUUID(),
              body: {
                ...(shape.queueEvery > 0 && index % shape.queueEvery === 0 ? { IsQueue: true } : {}),
                Object: { Amount: Number(decimal(shape.refundMinor)), Description: `${cell} refund ${index + 1}` },
              },
            },
          })),
        );
  const drained = await queueSettled('payments');
  return { tenantId, paymentId, payments, refunds, drained };
};

/**
 * A refund's effect is a record that holds money (not Failed); a queued refund (202) the consumer marked Failed for
 * good on its last receive has settled too, so it counts as its one effect.
 */
const refundEffects = (sent: readonly Sent<Saved>[], refunds: readonly Record<string, unknown>[]): Map<string, number> => {
  const effects = countBy(
    refunds.filter((item) => item.Status !== 'Failed'),
    (item) => item.Description,
  );
  for (const request of sent) {
    const failed = refunds.some((item) => item.Description === request.label && item.Status === 'Failed');
    if (request.call.final?.status === 202 && failed && !effects.has(request.label)) effects.set(request.label, 1);
  }
  return effects;
};

export const checkPayments = async (run: PaymentsRun): Promise<Findings> => {
  // A queued refund whose function died before its own message was sent is settled by its guarantee, a message
  // delayed 60 s (shared/payments/README.md): wait for that, not for a fixed time.
  await eventually(async () => ((await queuedRefunds(run.tenantId)) === 0 ? true : undefined), 'every queued refund settled', { timeoutMs: 90_000, intervalMs: 500 }).catch(
    () => undefined,
  );
  const table = openTenantTable();
  try {
    const items = (await table.items(run.tenantId)).filter((item) => item.entity === 'Payment');
    const records = items.filter((item) => item.IsRefund !== true);
    const refunds = items.filter((item) => item.IsRefund === true);
    const links = (await table.items(run.tenantId)).filter((item) => typeof item.sk === 'string' && /#REFUND#/.test(item.sk));
    const violated: string[] = [...breachesOf([...run.payments, ...run.refunds])];
    const doubled: string[] = [];
    const lost: string[] = [];

    // Answered IDs are the stored ones, and no two requests were answered the same ID.
    for (const request of [...run.payments, ...run.refunds].filter(isSuccess)) {
      const id = request.call.final?.json.Object?.ID;
      const stored = items.find((item) => item.Description === request.label);
      if (stored && stored.ID !== id) violated.push(`${request.label} was answered ID ${id} but is stored as ID ${String(stored.ID)}`);
    }
    const answeredIds = [...run.payments, ...run.refunds].filter(isSuccess).map((request) => request.call.final?.json.Object?.ID);
    if (new Set(answeredIds).size !== answeredIds.length) doubled.push(`two requests were answered the same ID: ${answeredIds.join(', ')}`);

    const payment = records.find((item) => item.ID === run.paymentId);
    if (run.paymentId !== undefined && payment) {
      const mine = refunds.filter((item) => item.OriginalPaymentID === run.paymentId);
      const held = mine.filter((item) => item.Status !== 'Failed').reduce((sum, item) => sum + Number(item.amountMinor), 0);
      if (Number(payment.refundedMinor) !== held) {
        violated.push(`the payment's refunded amount is ${String(payment.refundedMinor)} cents, its refunds not Failed hold ${held}`);
      }
      if (Number(payment.refundedMinor) > Number(payment.amountMinor)) violated.push(`refunded ${String(payment.refundedMinor)} of ${String(payment.amountMinor)} cents`);
      if (Number(payment.refundCount) !== mine.length) violated.push(`refundCount ${String(payment.refundCount)} but ${mine.length} refund records`);
      const linked = countBy(links, (item) => String(item.sk).split('#REFUND#')[1]);
      for (const refund of mine) {
        const count = linked.get(String(refund.ID).padStart(10, '0')) ?? 0;
        if (count !== 1) violated.push(`refund ${String(refund.ID)} is linked ${count} times`);
      }
      const unsettled = mine.filter((item) => item.Status === 'Queued');
      if (unsettled.length > 0) violated.push(`${unsettled.length} queued refunds not settled within 90 s (IDs ${unsettled.map((item) => String(item.ID)).join(', ')})`);
    }
    if (!run.drained) violated.push('the payments queue was not drained within a minute');
    const dead = (await deadLetters('payments')) as { tenantId?: number; refundId?: number }[];
    for (const letter of dead.filter((one) => one.tenantId === run.tenantId)) {
      const refund = refunds.find((item) => item.ID === letter.refundId);
      if (refund?.Status !== 'Failed') violated.push(`the payments DLQ holds refund ${String(letter.refundId)}, which is ${String(refund?.Status ?? 'not stored')}`);
    }
    return mergeFindings(
      { doubled, lost, violated },
      exactlyOnce(run.payments, countBy(records, (item) => item.Description), 'payment'),
      exactlyOnce(run.refunds, refundEffects(run.refunds, refunds), 'refund'),
    );
  } finally {
    table.close();
  }
};
