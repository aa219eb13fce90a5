// The contract of the payment store port (shared/payments/store.ts `PaymentStore`): what the payment service relies
// on, run in the unit tier against the in-memory store (test/unit/payments/payment-store-contract.test.ts) and in the
// integration tier against the DynamoDB repository on DynamoDB Local (test/integration/payments/
// payment-store-contract.test.ts). Its conditions are the contract's core: IDs per tenant given back only when no later
// one was taken, a payment's GUID unique per tenant case-insensitively, a refund only while the refunded amount stays
// within the payment's Amount (no Version condition), a settlement only at the refund's Version, an Idempotency-Key's
// claim taken with the write, and a refused write changing nothing.
import { describe, expect, it } from '@jest/globals';
import { buildRefund, prepareNewPayment, readRefundRequest, settleRefund, type PaymentRecord } from '#shared/payments/rules';
import type { PaymentStore } from '#shared/payments/store';
import { keyClaim } from '#test/stores/key-claims';
import { freshTenantId } from '#test/support/tenant-items';

const outcomeOf = (pending: Promise<unknown>) =>
  pending.then(
    () => 'done',
    (error: Error) => error.name,
  );

const now = '2026-03-02T00:00:00.000Z';
const later = '2026-03-02T01:00:00.000Z';
const guidOf = (id: number) => `6b1c8a57-1e8c-4d2f-9f0a-${String(id).padStart(12, '0')}`;

/** A payment of `amount` AUD as POST /Payment records it. */
const paymentOf = (id: number, amount = 10, guid = guidOf(id)): PaymentRecord => prepareNewPayment({ Amount: amount, RefNumber: `PY-${id}` }, { id, guid, now, userId: 42 });

/** A refund of `amountMinor` cents of `original`, inline (Refunded) or queued (Queued). */
const refundOf = (original: PaymentRecord, id: number, amountMinor: number, mode: 'inline' | 'queued' = 'inline'): PaymentRecord =>
  buildRefund(original, readRefundRequest(undefined), amountMinor, mode, { id, guid: guidOf(id), now: later, userId: 7 });

/** The suite, over the store `open` gives (once per suite) and the table name its key claims carry. */
export const describePaymentStoreContract = (implementation: string, open: () => { readonly store: PaymentStore; readonly tableName: string }) =>
  describe(`PaymentStore contract: ${implementation}`, () => {
    const { store, tableName } = open();
    /** A fresh tenant with payment 1 of 10.00 AUD recorded. */
    const recorded = async () => {
      const tenantId = freshTenantId();
      const payment = paymentOf(1);
      await store.create(tenantId, payment);
      return { tenantId, payment };
    };

    it('numbers payments per tenant from 1, and takes an ID back when it is the last given, or once the sequence comes down to it', async () => {
      const [first, second] = [freshTenantId(), freshTenantId()];
      const given = [await store.nextId(first), await store.nextId(first), await store.nextId(second)];
      const backs = [await store.giveBackId(first, 1), await store.giveBackId(first, 2), await store.giveBackId(second, 1)];

      expect({ given, backs, next: [await store.nextId(first), await store.nextId(second)] }).toEqual({ given: [1, 2, 1], backs: [false, true, true], next: [1, 1] });
    });

    it('records a payment and reads it back as recorded; nothing for an unknown ID or another tenant', async () => {
      const { tenantId, payment } = await recorded();

      expect({
        read: await store.get(tenantId, 1),
        page: await store.getWithRefunds(tenantId, 1, { afterId: 0, limit: 10 }),
        unknown: [await store.get(tenantId, 2), await store.getWithRefunds(tenantId, 2, { afterId: 0, limit: 10 })],
        otherTenant: [await store.get(freshTenantId(), 1), await store.getWithRefunds(freshTenantId(), 1, { afterId: 5, limit: 10 })],
      }).toStrictEqual({ read: payment, page: { record: payment, refunds: [], more: false }, unknown: [undefined, undefined], otherTenant: [undefined, undefined] });
    });

    it('refuses a second payment with a GUID the tenant holds, in any case (PaymentGuidTaken), and an ID already used (ValueInUse), writing nothing', async () => {
      const { tenantId, payment } = await recorded();
      const outcomes = [
        await outcomeOf(store.create(tenantId, paymentOf(2, 5, guidOf(1).toUpperCase()))),
        await outcomeOf(store.create(tenantId, paymentOf(1, 5, guidOf(3)))),
        await outcomeOf(store.create(freshTenantId(), paymentOf(2, 5, guidOf(1)))),
      ];
      await store.create(tenantId, paymentOf(3, 5, guidOf(3)));

      expect({ outcomes, first: await store.get(tenantId, 1), second: await store.get(tenantId, 2) }).toStrictEqual({
        outcomes: ['PaymentGuidTaken', 'ValueInUse', 'done'],
        first: payment,
        second: undefined,
      });
    });

    it('writes a refund with its link, raising the payment’s refunded amount and count; lists refunds a page at a time, oldest first', async () => {
      const { tenantId, payment } = await recorded();
      const refunds = [refundOf(payment, 2, 250), refundOf(payment, 3, 100, 'queued'), refundOf(payment, 5, 50)];
      let original = payment;
      for (const refund of refunds) {
        await store.refund(tenantId, { original, refund });
        original = (await store.get(tenantId, 1)) as PaymentRecord;
      }
      const link = (refund: PaymentRecord) => ({ ID: refund.fields.ID, Amount: refund.amountMinor / 100, Status: refund.fields.Status, RefNumber: refund.fields.RefNumber });

      expect({
        payment: original,
        refund: await store.get(tenantId, 3),
        first: await store.getWithRefunds(tenantId, 1, { afterId: 0, limit: 2 }),
        second: await store.getWithRefunds(tenantId, 1, { afterId: 3, limit: 2 }),
        past: await store.getWithRefunds(tenantId, 1, { afterId: 5, limit: 2 }),
      }).toStrictEqual({
        payment: { ...payment, fields: { ...payment.fields, Version: 4, ModifiedDateTime_utc: later, ModifiedByUserID: 7 }, refundedMinor: 400, refundCount: 3 },
        refund: refunds[1],
        first: { record: original, refunds: [link(refunds[0] as PaymentRecord), link(refunds[1] as PaymentRecord)], more: true },
        second: { record: original, refunds: [link(refunds[2] as PaymentRecord)], more: false },
        past: { record: original, refunds: [], more: false },
      });
    });

    it('refuses a refund that would take the refunded amount past the Amount (BalanceMoved), however stale the payment read, writing nothing', async () => {
      const { tenantId, payment } = await recorded();
      await store.refund(tenantId, { original: payment, refund: refundOf(payment, 2, 600) });
      // Read before the first refund: no Version condition, so a refund that fits still goes in; one that does not is refused.
      const fits = await outcomeOf(store.refund(tenantId, { original: payment, refund: refundOf(payment, 3, 400) }));
      const over = await outcomeOf(store.refund(tenantId, { original: payment, refund: refundOf(payment, 4, 1) }));

      expect({ fits, over, payment: (await store.get(tenantId, 1))?.refundedMinor, refund: await store.get(tenantId, 4), links: (await store.getWithRefunds(tenantId, 1, { afterId: 0, limit: 10 }))?.refunds.map((link) => link.ID) }).toEqual({
        fits: 'done',
        over: 'BalanceMoved',
        payment: 1000,
        refund: undefined,
        links: [2, 3],
      });
    });

    it('settles a queued refund at its Version: Refunded keeps the reservation, Failed releases it; a stale settlement is ConcurrentModification and writes nothing', async () => {
      const { tenantId, payment } = await recorded();
      await store.refund(tenantId, { original: payment, refund: refundOf(payment, 2, 300, 'queued') });
      await store.refund(tenantId, { original: (await store.get(tenantId, 1)) as PaymentRecord, refund: refundOf(payment, 3, 200, 'queued') });
      const [queuedA, queuedB] = [(await store.get(tenantId, 2)) as PaymentRecord, (await store.get(tenantId, 3)) as PaymentRecord];
      const refunded = settleRefund(queuedA, { status: 'Refunded' }, later);
      const failed = settleRefund(queuedB, { status: 'Failed', errorMessage: 'the card was closed' }, later);
      await store.settle(tenantId, { previous: queuedA, next: refunded, releaseMinor: 0 });
      await store.settle(tenantId, { previous: queuedB, next: failed, releaseMinor: 200 });
      const stale = await outcomeOf(store.settle(tenantId, { previous: queuedA, next: settleRefund(queuedA, { status: 'Failed', errorMessage: 'late' }, later), releaseMinor: 300 }));
      const after = (await store.get(tenantId, 1)) as PaymentRecord;

      expect({
        stale,
        refunds: [await store.get(tenantId, 2), await store.get(tenantId, 3)],
        payment: [after.refundedMinor, after.refundCount, after.fields.Version],
        links: (await store.getWithRefunds(tenantId, 1, { afterId: 0, limit: 10 }))?.refunds.map((link) => [link.ID, link.Status]),
      }).toStrictEqual({
        stale: 'ConcurrentModification',
        refunds: [refunded, failed],
        payment: [300, 2, 4],
        links: [
          [2, 'Refunded'],
          [3, 'Failed'],
        ],
      });
    });

    it('takes an Idempotency-Key’s claim with a payment or a refund; a key taken already refuses the write (KeyAlreadyClaimed), writing nothing', async () => {
      const tenantId = freshTenantId();
      const claim = (key: string) => keyClaim(tableName, tenantId, 'paymentPost', key);
      const payment = paymentOf(1);
      await store.create(tenantId, payment, claim('k1'));
      const outcomes = [
        await outcomeOf(store.create(tenantId, paymentOf(2), claim('k1'))),
        await outcomeOf(store.refund(tenantId, { original: payment, refund: refundOf(payment, 3, 100) }, claim('k1'))),
        await outcomeOf(store.refund(tenantId, { original: payment, refund: refundOf(payment, 4, 100) }, claim('k2'))),
      ];

      expect({ outcomes, payment: (await store.get(tenantId, 1))?.refundedMinor, missing: [await store.get(tenantId, 2), await store.get(tenantId, 3)] }).toEqual({
        outcomes: ['KeyAlreadyClaimed', 'KeyAlreadyClaimed', 'done'],
        payment: 100,
        missing: [undefined, undefined],
      });
    });
  });
