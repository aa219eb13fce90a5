// Integration: money under concurrency, against DynamoDB Local. Refunds that fit the balance all succeed however
// many run at once (a burst, and clients sending back to back), with exact totals; the only 409 is a refund that no
// longer fits; a payment takes any number of refunds, and GET pages through all of them; queued refunds and their
// settlement follow the same rules.
import { describe, expect, it } from '@jest/globals';
import type { Principal } from '#shared/auth/principal';
import type { PaymentT } from '#shared/schemas/payment';
import { freshPrincipal, openPayments, tenantItems } from './support';

const { table, service } = openPayments();

const paymentOf = async (amount: number, principal: Principal = freshPrincipal()) => {
  const { payment } = await service.record(principal, { Object: { Amount: amount } });
  return { principal, id: payment.ID as number };
};

const refundOf = (principal: Principal, id: number, amount: number, queued = false) =>
  service.refund(principal, id, { ...(queued ? { IsQueue: true } : {}), Object: { Amount: amount } });

/** Every refund of the payment, read page by page as a client would. */
const allPages = async (principal: Principal, id: number, MaxRefunds: number) => {
  const pages: PaymentT[] = [];
  let RefundsAfterID = 0;
  for (;;) {
    const page = await service.get(principal, id, { RefundsAfterID, MaxRefunds });
    pages.push(page);
    const refunds = page.Refunds ?? [];
    if (!page.MoreRefunds) return pages;
    RefundsAfterID = refunds[refunds.length - 1]?.ID as number;
  }
};

/** What each settled call gave: 'ok', or the error's class name and status. */
const outcomesOf = (settled: readonly PromiseSettledResult<unknown>[]) =>
  settled.map((outcome) => {
    if (outcome.status === 'fulfilled') return 'ok';
    const { name, status } = outcome.reason as { name: string; status?: number };
    return `${name} ${status ?? ''}`.trim();
  });

const countsOf = (outcomes: readonly string[]) => {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
};

describe('refunds that fit the balance', () => {
  it('all succeed in a burst of 50 concurrent refunds of 0.01, with the refunded total exact', async () => {
    const { principal, id } = await paymentOf(1000);
    const settled = await Promise.allSettled(Array.from({ length: 50 }, () => refundOf(principal, id, 0.01)));
    expect(countsOf(outcomesOf(settled))).toEqual({ ok: 50 });
    const payment = await service.get(principal, id);
    expect(payment).toMatchObject({ RefundedAmount: 0.5, Balance: 999.5, RefundCount: 50, MoreRefunds: false, Version: 51 });
    expect(payment.Refunds).toHaveLength(50);
    const items = await tenantItems(table, principal.tenantId);
    expect(items.filter((item) => item.entity === 'Payment' && item.IsRefund === true)).toHaveLength(50);
    expect(items.find((item) => item.entity === 'Payment' && item.ID === id)).toMatchObject({ refundedMinor: 50, refundCount: 50 });
  });

  it('all succeed when 20 clients send 10 refunds each back to back, with the refunded total exact', async () => {
    const { principal, id } = await paymentOf(1000);
    const client = async () => {
      const outcomes: string[] = [];
      for (let sent = 0; sent < 10; sent += 1) outcomes.push(...outcomesOf(await Promise.allSettled([refundOf(principal, id, 0.01)])));
      return outcomes;
    };
    const outcomes = (await Promise.all(Array.from({ length: 20 }, client))).flat();
    expect(countsOf(outcomes)).toEqual({ ok: 200 });
    const payment = await service.get(principal, id, { MaxRefunds: 500 });
    expect(payment).toMatchObject({ RefundedAmount: 2, Balance: 998, RefundCount: 200, MoreRefunds: false });
    const ids = (payment.Refunds ?? []).map((refund) => refund.ID as number);
    expect(new Set(ids).size).toBe(200);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});

describe('the balance under concurrency', () => {
  it('lets exactly 100 of 150 concurrent refunds of 0.01 through against 1.00: the other 50 are 409 RefundExceedsBalance', async () => {
    const { principal, id } = await paymentOf(1);
    const settled = await Promise.allSettled(Array.from({ length: 150 }, () => refundOf(principal, id, 0.01)));
    expect(countsOf(outcomesOf(settled))).toEqual({ ok: 100, 'RefundExceedsBalance 409': 50 });
    for (const outcome of settled) {
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ detail: 'At most 0.00 AUD of this payment can still be refunded.' });
    }
    const payment = await service.get(principal, id, { MaxRefunds: 500 });
    expect(payment).toMatchObject({ RefundedAmount: 1, Balance: 0, IsRefunded: true, RefundCount: 100 });
    const refunded = (payment.Refunds ?? []).reduce((sum, refund) => sum + Math.round((refund.Amount as number) * 100), 0);
    expect(refunded).toBe(100);
  });

  it('refunds the whole remaining balance once when many ask for it at once (no amount), and refuses the rest', async () => {
    const { principal, id } = await paymentOf(10);
    await refundOf(principal, id, 2.5);
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => service.refund(principal, id, {})));
    expect(countsOf(outcomesOf(settled))).toEqual({ ok: 1, 'RefundExceedsBalance 409': 9 });
    const made = settled.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<{ payment: PaymentT }>;
    expect(made.value.payment.Amount).toBe(7.5);
    expect(await service.get(principal, id)).toMatchObject({ RefundedAmount: 10, Balance: 0, RefundCount: 2 });
  });
});

describe('a payment with many refunds', () => {
  it('takes more than 100 refunds, and GET pages through every one of them, oldest first', async () => {
    const { principal, id } = await paymentOf(1000);
    // 130 refunds of 0.01, in bursts of 26.
    for (let burst = 0; burst < 5; burst += 1) {
      const settled = await Promise.allSettled(Array.from({ length: 26 }, () => refundOf(principal, id, 0.01)));
      expect(countsOf(outcomesOf(settled))).toEqual({ ok: 26 });
    }
    expect(countsOf(outcomesOf(await Promise.allSettled([refundOf(principal, id, 0.01)])))).toEqual({ ok: 1 });

    const first = await service.get(principal, id);
    expect(first).toMatchObject({ RefundedAmount: 1.31, RefundCount: 131, MoreRefunds: true });
    expect(first.Refunds).toHaveLength(100);

    const pages = await allPages(principal, id, 40);
    expect(pages.map((page) => page.Refunds?.length)).toEqual([40, 40, 40, 11]);
    expect(pages.map((page) => page.MoreRefunds)).toEqual([true, true, true, false]);
    for (const page of pages) expect(page).toMatchObject({ RefundedAmount: 1.31, RefundCount: 131 });
    const listed = pages.flatMap((page) => page.Refunds ?? []);
    const ids = listed.map((refund) => refund.ID as number);
    expect(new Set(ids).size).toBe(131);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(listed.reduce((sum, refund) => sum + Math.round((refund.Amount as number) * 100), 0)).toBe(131);
    // The default page is the first 100 of the same list.
    expect(first.Refunds).toEqual(listed.slice(0, 100));

    // After the last refund, and after the largest ID there is: no refunds, nothing more.
    expect(await service.get(principal, id, { RefundsAfterID: ids[ids.length - 1] as number })).toMatchObject({ Refunds: [], MoreRefunds: false, RefundCount: 131 });
    expect(await service.get(principal, id, { RefundsAfterID: 2 ** 31 - 1 })).toMatchObject({ Refunds: [], MoreRefunds: false });
    // Exactly a page's worth left: the page is full and says nothing more follows.
    expect(await service.get(principal, id, { RefundsAfterID: ids[89] as number, MaxRefunds: 41 })).toMatchObject({ MoreRefunds: false });
  });
});

describe('queued refunds under concurrency', () => {
  it('reserve, complete and release exactly while inline refunds run against the same payment', async () => {
    const { principal, id } = await paymentOf(1);
    const queued = await Promise.all(Array.from({ length: 40 }, () => refundOf(principal, id, 0.01, true)));
    expect(queued.every((made) => made.queued)).toBe(true);
    const refundIds = queued.map((made) => made.payment.ID as number);
    const message = (refundId: number) => ({ tenantId: principal.tenantId, refundId });
    // Half of them fail (their 0.20 is released) and half complete, while 40 inline refunds of 0.01 run against the
    // same payment: 0.60 is left even before any release, so all 40 fit.
    const settled = await Promise.allSettled([
      ...refundIds.slice(0, 20).map((refundId) => service.failQueuedRefund(message(refundId))),
      ...refundIds.slice(20).map((refundId) => service.completeQueuedRefund(message(refundId))),
      ...Array.from({ length: 40 }, () => refundOf(principal, id, 0.01)),
    ]);
    expect(countsOf(outcomesOf(settled))).toEqual({ ok: 80 });
    expect(countsOf(settled.slice(0, 40).map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value as string))).toEqual({
      failed: 20,
      completed: 20,
    });
    const payment = await service.get(principal, id, { MaxRefunds: 500 });
    // 20 completed queued refunds and 40 inline ones: 0.60; the 20 failed ones hold nothing.
    expect(payment).toMatchObject({ RefundedAmount: 0.6, Balance: 0.4, RefundCount: 80 });
    expect(countsOf((payment.Refunds ?? []).map((refund) => refund.Status as string))).toEqual({ Failed: 20, Refunded: 60 });
  });
});
