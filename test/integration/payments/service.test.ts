// Integration: the payment service and repository against DynamoDB Local: what a recorded payment stores, exact
// refunds, the transaction's conditions under concurrency (exactly as many refunds succeed as the amount allows),
// queued refunds and their settlement, and tenancy.
import { describe, expect, it } from '@jest/globals';
import { paymentGuidClaim, paymentKey } from '#shared/payments/keys';
import { failureOf, freshPrincipal, openPayments, storedItem, tenantItems, testCard } from './support';

// One service for the file; its queue is whatever the running test says (by default it takes every message).
let queue: (message: unknown) => Promise<void> = async () => undefined;
const { table, repository, service } = openPayments((message) => queue(message));

const record = async (principal = freshPrincipal(), Object: Record<string, unknown> = { Amount: 10 }) => {
  const saved = await service.record(principal, { Object });
  return { principal, payment: saved.payment };
};

describe('recording a payment', () => {
  it('stores the record with money in minor units, the card masked, no CVV and no token, and claims its GUID', async () => {
    const { principal, payment } = await record(freshPrincipal(), { Amount: 19.99, CreditCard: testCard, Token: 'tok_payment_service_1' });
    expect(payment).toMatchObject({ ID: 1, RefNumber: 'PY-000001', Amount: 19.99, Balance: 19.99, IsRefunded: false, Version: 1 });
    const item = await storedItem(table, paymentKey(principal.tenantId, 1));
    expect(item).toMatchObject({
      entity: 'Payment',
      amountMinor: 1999,
      refundedMinor: 0,
      refundCount: 0,
      CreditCardLastFour: '1111',
      CreditCard: { CardNumber: '411111******1111', CardHolderName: 'PAT Q CARDHOLDER', CardToken: 'ctok_integration_1' },
    });
    expect(item).not.toHaveProperty('Amount');
    const everything = JSON.stringify(await tenantItems(table, principal.tenantId));
    expect(everything).not.toContain('4111111111111111');
    expect(everything).not.toContain('tok_payment_service_1');
    expect(await paymentGuidClaim.owner(table, principal.tenantId, payment.GUID as string)).toBe(1);
  });

  it('refuses a second payment with the same GUID (409) and stores nothing for it', async () => {
    const { principal, payment } = await record();
    const before = await tenantItems(table, principal.tenantId);
    expect(await failureOf(service.record(principal, { Object: { Amount: 5, GUID: (payment.GUID as string).toUpperCase() } }))).toMatchObject({
      name: 'PaymentGuidTaken',
      status: 409,
    });
    const after = await tenantItems(table, principal.tenantId);
    expect(after.filter((item) => item.entity !== undefined)).toEqual(before.filter((item) => item.entity !== undefined));
  });

  it("numbers each tenant's payments from 1 and hides them from other tenants (404)", async () => {
    const a = freshPrincipal();
    const b = freshPrincipal();
    expect((await record(a)).payment.ID).toBe(1);
    expect((await record(a)).payment.ID).toBe(2);
    expect((await record(b)).payment.ID).toBe(1);
    await service.refund(a, 2, { Object: { Amount: 1 } });
    expect((await service.get(b, 1)).Amount).toBe(10);
    expect(await failureOf(service.get(b, 2))).toMatchObject({ status: 404 });
    expect(await failureOf(service.refund(b, 2, {}))).toMatchObject({ status: 404 });
    expect((await service.get(a, 2)).RefundedAmount).toBe(1);
  });
});

describe('refunds', () => {
  it('refunds 0.30 exactly with 0.10 then 0.20, then refuses 0.01 with the refundable amount', async () => {
    const { principal, payment } = await record(freshPrincipal(), { Amount: 0.3 });
    const first = await service.refund(principal, payment.ID as number, { Object: { Amount: 0.1 } });
    const second = await service.refund(principal, payment.ID as number, { Object: { Amount: 0.2 } });
    expect([first.payment.Amount, second.payment.Amount]).toEqual([0.1, 0.2]);
    expect(await service.get(principal, payment.ID as number)).toMatchObject({
      Amount: 0.3,
      RefundedAmount: 0.3,
      Balance: 0,
      IsRefunded: true,
      Version: 3,
      Refunds: [
        { ID: 2, Amount: 0.1, Status: 'Refunded', RefNumber: 'PY-000002' },
        { ID: 3, Amount: 0.2, Status: 'Refunded', RefNumber: 'PY-000003' },
      ],
    });
    const refused = await service.refund(principal, payment.ID as number, { Object: { Amount: 0.01 } }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 409, extensions: { RefundableAmount: 0, Currency: 'AUD' } });
    expect((await storedItem(table, paymentKey(principal.tenantId, 1)))?.refundedMinor).toBe(30);
  });

  it('stores each refund as a payment record of its own that names the original', async () => {
    const { principal } = await record(freshPrincipal(), { Amount: 10, Currency: 'KWD', ExchangeRate: 0.2 });
    const { payment: refund } = await service.refund(principal, 1, { Object: { Amount: 1.005, Description: 'Short shipped' } });
    expect(await service.get(principal, refund.ID as number)).toMatchObject({
      ID: 2,
      IsRefund: true,
      OriginalPaymentID: 1,
      Currency: 'KWD',
      ExchangeRate: 0.2,
      Amount: 1.005,
      Status: 'Refunded',
      Description: 'Short shipped',
      PaymentLogs: [{ ID: 1, Code: 'REFUNDED', PaymentStatus: 'Refunded', UserID: 42 }],
    });
    expect(await failureOf(service.refund(principal, 2, {}))).toMatchObject({ status: 409 });
  });

  it('lets exactly one of two concurrent refunds through when together they exceed the payment', async () => {
    const { principal } = await record(freshPrincipal(), { Amount: 10 });
    const outcomes = await Promise.allSettled([
      service.refund(principal, 1, { Object: { Amount: 6 } }),
      service.refund(principal, 1, { Object: { Amount: 7 } }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.find((outcome) => outcome.status === 'rejected');
    expect((rejected as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
  });

  it('lets exactly 10 of 20 concurrent refunds of 1.00 through against 10.00, leaving it fully refunded', async () => {
    const { principal } = await record(freshPrincipal(), { Amount: 10 });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => service.refund(principal, 1, { Object: { Amount: 1 } })));
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(10);
    expect(refused.map((outcome) => (outcome.reason as { status: number }).status)).toEqual(Array(10).fill(409));
    const payment = await service.get(principal, 1);
    expect(payment).toMatchObject({ RefundedAmount: 10, Balance: 0, IsRefunded: true, Version: 11 });
    expect(payment.Refunds).toHaveLength(10);
    const items = await tenantItems(table, principal.tenantId);
    expect(items.filter((item) => item.entity === 'Payment' && item.IsRefund === true)).toHaveLength(10);
  });
});

describe('queued refunds', () => {
  it('reserves the amount at once, and the consumer completes it once', async () => {
    const sent: unknown[] = [];
    queue = async (message) => {
      sent.push(message);
    };
    const queued = { service };
    const principal = freshPrincipal();
    await queued.service.record(principal, { Object: { Amount: 10 } });
    const { payment: refund, queued: isQueued } = await queued.service.refund(principal, 1, { IsQueue: true, Object: { Amount: 4 } });
    expect(isQueued).toBe(true);
    expect(refund).toMatchObject({ ID: 2, Status: 'Queued', IsPaid: false });
    // The guarantee (delayed, before the commit) and the message at once (after it) name the same refund.
    expect(sent).toEqual([{ tenantId: principal.tenantId, refundId: 2 }, { tenantId: principal.tenantId, refundId: 2 }]);
    expect(await queued.service.get(principal, 1)).toMatchObject({ RefundedAmount: 4, Balance: 6, Refunds: [{ ID: 2, Status: 'Queued' }] });
    // The reservation counts: only 6.00 is left.
    expect(await failureOf(queued.service.refund(principal, 1, { Object: { Amount: 6.01 } }))).toMatchObject({ status: 409 });

    expect(await queued.service.completeQueuedRefund({ tenantId: principal.tenantId, refundId: 2 })).toBe('completed');
    expect(await queued.service.completeQueuedRefund({ tenantId: principal.tenantId, refundId: 2 })).toBe('already-settled');
    expect(await queued.service.failQueuedRefund({ tenantId: principal.tenantId, refundId: 2 })).toBe('already-settled');
    expect(await queued.service.get(principal, 2)).toMatchObject({ Status: 'Refunded', IsPaid: true, Version: 2 });
    expect((await queued.service.get(principal, 2)).PaymentLogs?.map((log) => log.Code)).toEqual(['REFUND_QUEUED', 'REFUNDED']);
    expect(await queued.service.get(principal, 1)).toMatchObject({ RefundedAmount: 4, Refunds: [{ ID: 2, Status: 'Refunded' }] });
  });

  it('releases the reservation of a refund that failed', async () => {
    const principal = freshPrincipal();
    await service.record(principal, { Object: { Amount: 10 } });
    await service.refund(principal, 1, { IsSaveAutoQueue: true, Object: { Amount: 10 } });
    expect((await service.get(principal, 1)).IsRefunded).toBe(true);
    expect(await service.failQueuedRefund({ tenantId: principal.tenantId, refundId: 2 })).toBe('failed');
    expect(await service.get(principal, 1)).toMatchObject({ RefundedAmount: 0, Balance: 10, IsRefunded: false, Refunds: [{ ID: 2, Status: 'Failed' }] });
    const failed = await service.get(principal, 2);
    expect(failed).toMatchObject({ Status: 'Failed', ErrorMessage: expect.stringContaining('could not be completed') });
    expect(failed.PaymentLogs?.map((log) => log.Code)).toEqual(['REFUND_QUEUED', 'REFUND_FAILED']);
    expect(await service.completeQueuedRefund({ tenantId: principal.tenantId, refundId: 2 })).toBe('already-settled');
  });

  it('answers 503 and writes nothing when the queue cannot take the refund (its guarantee goes before the commit)', async () => {
    queue = async () => {
      throw Object.assign(new Error('queue down'), { name: 'ServiceUnavailable' });
    };
    const down = { service };
    const principal = freshPrincipal();
    await down.service.record(principal, { Object: { Amount: 10 } });
    const before = await tenantItems(table, principal.tenantId);
    expect(await failureOf(down.service.refund(principal, 1, { IsQueue: true, Object: { Amount: 3 } }))).toMatchObject({ status: 503 });
    expect(await down.service.get(principal, 1)).toMatchObject({ RefundedAmount: 0, Balance: 10, RefundCount: 0, Refunds: [] });
    expect(await repository.get(principal.tenantId, 2)).toBeUndefined();
    // Nothing at all: not even the ID, which was given back.
    expect(await tenantItems(table, principal.tenantId)).toEqual(before);
  });

  it('answers 202 when only the message after the commit fails: the guarantee settles the refund', async () => {
    const sent: number[] = [];
    queue = async (message) => {
      sent.push((message as { refundId: number }).refundId);
      if (sent.length > 1) throw Object.assign(new Error('queue down'), { name: 'ServiceUnavailable' });
    };
    const principal = freshPrincipal();
    await service.record(principal, { Object: { Amount: 10 } });
    expect(await service.refund(principal, 1, { IsQueue: true, Object: { Amount: 3 } })).toMatchObject({ queued: true, payment: { ID: 2, Status: 'Queued' } });
    expect(sent).toEqual([2, 2]);
    expect(await service.completeQueuedRefund({ tenantId: principal.tenantId, refundId: 2 })).toBe('completed');
  });
});
