// Unit tests of the payment rules (shared/payments/rules.ts): what a recorded payment stores, what a refund may
// take, the run-mode flags and the answer's derived fields. Pure functions: no fakes needed.
import { describe, expect, it } from '@jest/globals';
import { Conflict, ItemTooLarge, ValidationFailed, type FieldError } from '#shared/errors';
import { itemBytes } from '#shared/data/item-size';
import { assertPaymentFits, toItem } from '#shared/payments/repository';
import {
  buildRefund,
  paymentDateOf,
  paymentDateStrings,
  paymentView,
  prepareNewPayment,
  readRefundRequest,
  refundAmountMinor,
  RefundExceedsBalance,
  refundLink,
  runModeOf,
  settleRefund,
  type PaymentRecord,
} from '#shared/payments/rules';
import type { PaymentT } from '#shared/schemas/payment';
import { everyProblemAtOnce, refusedPaymentObjects } from '#test/support/refused-bodies';

const now = '2026-03-02T00:00:00.000Z';
const context = { id: 7, guid: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f', now, userId: 42 };

const fieldErrors = (run: () => unknown): FieldError[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationFailed) return [...(error.errors ?? [])];
    throw error;
  }
  throw new Error('expected ValidationFailed');
};
const pointers = (run: () => unknown) => fieldErrors(run).map((error) => ('pointer' in error ? error.pointer : error.parameter));

const paid = (input: PaymentT = { Amount: 10 }): PaymentRecord => prepareNewPayment(input, context);
const withRefunded = (record: PaymentRecord, refundedMinor: number): PaymentRecord => ({ ...record, refundedMinor });

describe('prepareNewPayment', () => {
  it('sets the server-owned fields and keeps money in minor units', () => {
    const record = paid({ Amount: 19.99, Description: 'Counter sale', Method: 'Eftpos' });
    expect(record).toEqual({
      fields: {
        Description: 'Counter sale',
        Method: 'Eftpos',
        ID: 7,
        GUID: context.guid,
        GUIDstring: context.guid,
        RefNumber: 'PY-000007',
        Version: 1,
        Currency: 'AUD',
        Status: 'Paid',
        IsActive: true,
        IsRefund: false,
        DateTime: now,
        PaymentDateTime_utc: now,
        PaymentDateTime_offset: 0,
        CreatedDateTime_utc: now,
        CreatedByUserID: 42,
        ModifiedDateTime_utc: now,
        ModifiedByUserID: 42,
      },
      amountMinor: 1999,
      refundedMinor: 0,
      refundCount: 0,
    });
  });

  it("keeps the client's GUID (lower-cased), reference, currency and payment time", () => {
    const record = paid({
      Amount: 500,
      Currency: 'JPY',
      GUID: '3F2504E0-4F89-11D3-9A0C-0305E82C3301',
      RefNumber: 'R-1',
      PaymentDateTime_utc: '2026-03-02T09:30:00+10:00',
    });
    expect(record.fields).toMatchObject({
      GUID: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      GUIDstring: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      RefNumber: 'R-1',
      Currency: 'JPY',
      PaymentDateTime_utc: '2026-03-01T23:30:00.000Z',
    });
    expect(record.amountMinor).toBe(500);
    expect(paid({ Amount: 1, GUIDstring: '0F8FAD5B-D9CB-469F-A165-70867728950E' }).fields.GUID).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  });

  it('reads the all-zero GUID (a typed client\'s unset Guid.Empty) as absent: the payment gets a GUID of its own (hostile client: the second such payment was a 409)', () => {
    const empty = '00000000-0000-0000-0000-000000000000';
    expect(paid({ Amount: 1, GUID: empty, GUIDstring: empty }).fields.GUID).toBe(context.guid);
    expect(paid({ Amount: 1, GUID: empty, GUIDstring: '0F8FAD5B-D9CB-469F-A165-70867728950E' }).fields.GUID).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  });

  it('ignores server-owned and derived fields a client sends back, and drops the payment service token', () => {
    const record = paid({
      Amount: 10,
      ID: 0,
      Version: 9,
      RowNumber: 3,
      AmountString: '$99.00',
      Balance: 99,
      IsRefunded: false,
      RefundedAmount: 0,
      CreatedDateTime_utc: '2020-01-01T00:00:00Z',
      Token: 'tok_secret_123',
    });
    expect(record.fields).not.toHaveProperty('Token');
    expect(record.fields).not.toHaveProperty('AmountString');
    expect(record.fields).not.toHaveProperty('Balance');
    expect(record.fields).toMatchObject({ Version: 1, CreatedDateTime_utc: now });
    expect(JSON.stringify(record)).not.toContain('tok_secret_123');
  });

  it('stores the card masked with its last four digits', () => {
    const record = paid({
      Amount: 10,
      CreditCard: { CardNumber: '4111111111111111', CardHolderName: 'A CUSTOMER', ExpiryMMYY: '0829', CardToken: 'ctok_1' },
    });
    expect(record.fields.CreditCard).toEqual({ CardNumber: '411111******1111', CardHolderName: 'A CUSTOMER', ExpiryMMYY: '0829', CardToken: 'ctok_1' });
    expect(record.fields.CreditCardLastFour).toBe('1111');
    expect(JSON.stringify(record)).not.toContain('4111111111111111');
  });

  it('refuses a RefundCount or MoreRefunds that would claim refunds, and accepts their defaults sent back', () => {
    expect(pointers(() => prepareNewPayment({ Amount: 1, RefundCount: 3, MoreRefunds: true }, context))).toEqual([
      '/Object/RefundCount',
      '/Object/MoreRefunds',
    ]);
    const record = prepareNewPayment({ Amount: 1, RefundCount: 0, MoreRefunds: false, Refunds: [] }, context);
    expect(record.fields).not.toHaveProperty('RefundCount');
    expect(record.fields).not.toHaveProperty('MoreRefunds');
    expect(record.refundCount).toBe(0);
  });

  it('answers every problem of the body at once', () => {
    expect(
      pointers(() =>
        prepareNewPayment(
          everyProblemAtOnce as PaymentT,
          context,
        ),
      ),
    ).toEqual([
      '/Object/ID',
      '/Object/IsRefund',
      '/Object/OriginalPaymentID',
      '/Object/IsRefunded',
      '/Object/RefundedAmount',
      '/Object/Refunds',
      '/Object/Amount',
      '/Object/Fee',
      '/Object/ExchangeRate',
      '/Object/CreditCard/CardVerificationNumber',
      '/Object/CreditCard/CardNumber',
      '/Object/Status',
      '/Object/GUIDstring',
      '/Object/PaymentDateTime_utc',
    ]);
  });

  it.each(refusedPaymentObjects.map(([input, pointer, detail]) => [input as PaymentT, pointer, detail] as const))('refuses %j at %s', (input, pointer, detail) => {
    expect(fieldErrors(() => prepareNewPayment({ ...input }, context))).toEqual([{ pointer, detail }]);
  });

  it("accepts allocations that apply at most the payment's Amount, and its Balance is what they leave", () => {
    const whole = paid({ Amount: 10, RefBusTrans: [{ ID: 1, AppliedAmount: 6 }, { ID: 2, AppliedAmount: 4 }] });
    expect(paymentView(whole)).toMatchObject({ Amount: 10, Balance: 0 });
    const part = paid({ Amount: 10, RefBusTrans: [{ ID: 1, AppliedAmount: 2.5 }, { ID: 2 }] });
    expect(paymentView(part)).toMatchObject({ Amount: 10, Balance: 7.5 });
    // Refunds take from what is unallocated first; Balance never goes below 0.
    expect(paymentView(withRefunded(part, 500))).toMatchObject({ RefundedAmount: 5, Balance: 2.5 });
    expect(paymentView(withRefunded(part, 900))).toMatchObject({ RefundedAmount: 9, Balance: 0 });
  });

  it('accepts 3 decimals in KWD and none in JPY', () => {
    expect(paid({ Amount: 1.005, Currency: 'KWD' }).amountMinor).toBe(1005);
    expect(paid({ Amount: 1500, Currency: 'JPY' }).amountMinor).toBe(1500);
  });

  it('records a payment as Pending when the client says it is unpaid', () => {
    expect(paid({ Amount: 1, IsPaid: false }).fields.Status).toBe('Pending');
    expect(paid({ Amount: 1, Status: 'Pending' }).fields.Status).toBe('Pending');
  });

  it('refuses a payment too large to store, through the data kit\'s item-size guard (413 with the size and limit)', () => {
    const big = Array.from({ length: 120 }, () => ({ Summary: 'x'.repeat(4000) }));
    const record = prepareNewPayment({ Amount: 1, RefBusTrans: big }, context);
    expect(() => assertPaymentFits(1, record)).toThrow(ItemTooLarge);
    try {
      assertPaymentFits(1, record);
    } catch (error) {
      expect((error as ItemTooLarge).status).toBe(413);
      expect((error as ItemTooLarge).extensions).toMatchObject({ ItemSizeLimit: 409_600 - 64, LargestField: 'RefBusTrans' });
      expect((error as ItemTooLarge).extensions.ItemSize).toBeGreaterThan(480_000);
    }
    expect(() => assertPaymentFits(1, prepareNewPayment({ Amount: 1, RefBusTrans: big.slice(0, 90) }, context))).not.toThrow();
  });

  it('refuses a payment whose item fits but whose answer, remembered as JSON for an Idempotency-Key, would not', () => {
    const rows = Array.from({ length: 500 }, () => ({ ID: 1, TotalInc: 1.5, TotalEx: 2.5, Summary: 'x'.repeat(712), RefNumber: 'R', TransactionTypeID: 3, IsActive: true }));
    const record = prepareNewPayment({ Amount: 1, RefBusTrans: rows }, context);
    expect(itemBytes(toItem(1, record))).toBeLessThan(409_600 - 64);
    expect(() => assertPaymentFits(1, record)).toThrow(ItemTooLarge);
  });
});

describe('runModeOf', () => {
  it.each([
    [{}, 'refund', 'inline'],
    [{ IsRunNow: true }, 'refund', 'inline'],
    [{ IsQueue: true }, 'refund', 'queued'],
    [{ IsSaveAutoQueue: true }, 'refund', 'queued'],
    [{ IsQueue: false, IsSaveAutoQueue: false, IsRunNow: false }, 'refund', 'inline'],
    [{}, 'record', 'inline'],
    [{ IsRunNow: true }, 'record', 'inline'],
  ] as const)('%j for a %s runs %s', (flags, operation, mode) => {
    expect(runModeOf(flags, operation)).toBe(mode);
  });

  it('refuses contradicting flags and queueing a payment', () => {
    expect(pointers(() => runModeOf({ IsQueue: true, IsRunNow: true }, 'refund'))).toEqual(['/IsRunNow']);
    expect(pointers(() => runModeOf({ IsSaveAutoQueue: true, IsRunNow: true }, 'refund'))).toEqual(['/IsRunNow']);
    expect(pointers(() => runModeOf({ IsQueue: true }, 'record'))).toEqual(['/IsQueue']);
    expect(pointers(() => runModeOf({ IsSaveAutoQueue: true }, 'record'))).toEqual(['/IsSaveAutoQueue']);
  });
});

describe('readRefundRequest', () => {
  it('reads the refund details, all optional', () => {
    expect(readRefundRequest(undefined)).toEqual({ amount: undefined, currency: undefined, description: undefined, method: undefined, refNumber: undefined });
    expect(readRefundRequest({ Amount: 2.5, Currency: 'AUD', Description: 'Damaged', Method: 'Cash', RefNumber: 'RF-1' })).toEqual({
      amount: 2.5,
      currency: 'AUD',
      description: 'Damaged',
      method: 'Cash',
      refNumber: 'RF-1',
    });
  });

  it('refuses anything but the details, a CVV above all', () => {
    expect(
      pointers(() => readRefundRequest({ Amount: 0, ID: 3, Status: 'Refunded', Currency: 'EURO', CreditCard: { CardVerificationNumber: '999' } })),
    ).toEqual(['/Object/CreditCard/CardVerificationNumber', '/Object/ID', '/Object/Status', '/Object/Amount', '/Object/Currency']);
    expect(pointers(() => readRefundRequest({ Amount: -1 }))).toEqual(['/Object/Amount']);
    expect(pointers(() => readRefundRequest({ CreditCard: { CardType: 'Visa' } }))).toEqual(['/Object/CreditCard']);
  });
});

describe('refundAmountMinor', () => {
  it('refunds 0.30 exactly with 0.10 then 0.20, and refuses a further 0.01', () => {
    let payment = paid({ Amount: 0.3 });
    for (const amount of [0.1, 0.2]) {
      const minor = refundAmountMinor(payment, readRefundRequest({ Amount: amount }));
      payment = withRefunded(payment, payment.refundedMinor + minor);
    }
    expect(payment.refundedMinor).toBe(payment.amountMinor);
    expect(paymentView(payment)).toMatchObject({ Amount: 0.3, RefundedAmount: 0.3, Balance: 0, IsRefunded: true });
    const refused = (() => {
      try {
        refundAmountMinor(payment, readRefundRequest({ Amount: 0.01 }));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(RefundExceedsBalance);
    expect((refused as RefundExceedsBalance).refundableAmount).toBe(0);
    expect((refused as RefundExceedsBalance).status).toBe(409);
  });

  it('refunds the remaining balance when no amount is given', () => {
    expect(refundAmountMinor(withRefunded(paid({ Amount: 10 }), 250), readRefundRequest(undefined))).toBe(750);
  });

  it('refuses more than the refundable balance, saying how much is left', () => {
    const payment = withRefunded(paid({ Amount: 10 }), 250);
    expect(() => refundAmountMinor(payment, readRefundRequest({ Amount: 7.51 }))).toThrow(RefundExceedsBalance);
    try {
      refundAmountMinor(payment, readRefundRequest({ Amount: 7.51 }));
    } catch (error) {
      expect((error as RefundExceedsBalance).refundableAmount).toBe(7.5);
      expect((error as RefundExceedsBalance).detail).toBe('At most 7.50 AUD of this payment can still be refunded.');
    }
    expect(refundAmountMinor(payment, readRefundRequest({ Amount: 7.5 }))).toBe(750);
  });

  it('refuses too many decimals and another currency with 400', () => {
    expect(pointers(() => refundAmountMinor(paid(), readRefundRequest({ Amount: 0.001 })))).toEqual(['/Object/Amount']);
    expect(pointers(() => refundAmountMinor(paid(), readRefundRequest({ Amount: 1, Currency: 'USD' })))).toEqual(['/Object/Currency']);
    expect(refundAmountMinor(paid(), readRefundRequest({ Amount: 1, Currency: 'AUD' }))).toBe(100);
  });

  it('refuses to refund a refund, an inactive payment or an unpaid one (409)', () => {
    const refund = buildRefund(paid(), readRefundRequest(undefined), 100, 'inline', { ...context, id: 8 });
    const cases: PaymentRecord[] = [refund, paid({ Amount: 10, IsActive: false }), paid({ Amount: 10, Status: 'Pending' })];
    for (const record of cases) expect(() => refundAmountMinor(record, readRefundRequest({ Amount: 1 }))).toThrow(Conflict);
  });

  it('sets no limit on how often a payment is refunded: only the balance counts', () => {
    for (const refundCount of [100, 101, 10_000, 2 ** 31 - 1]) {
      expect(refundAmountMinor({ ...withRefunded(paid({ Amount: 10 }), 999), refundCount }, readRefundRequest({ Amount: 0.01 }))).toBe(1);
    }
  });
});

describe('buildRefund and settleRefund', () => {
  const original = paid({
    Amount: 10,
    Currency: 'AUD',
    ExchangeRate: 1.5,
    Method: 'CreditCard',
    CustomerID: 501,
    CustomerName: 'Acme',
    CreditCard: { CardNumber: '4111111111111111', CardToken: 'ctok_1' },
  });

  it('makes a new payment record that refunds the original', () => {
    const refund = buildRefund(original, readRefundRequest({ Description: 'Damaged' }), 250, 'inline', { ...context, id: 8, guid: 'a-guid' });
    expect(refund).toEqual({
      fields: {
        Currency: 'AUD',
        ExchangeRate: 1.5,
        Method: 'CreditCard',
        CreditCardLastFour: '1111',
        CustomerID: 501,
        CustomerName: 'Acme',
        ID: 8,
        GUID: 'a-guid',
        GUIDstring: 'a-guid',
        RefNumber: 'PY-000008',
        Version: 1,
        Status: 'Refunded',
        IsActive: true,
        IsRefund: true,
        OriginalPaymentID: 7,
        Description: 'Damaged',
        TransactionType: 'Refund',
        DateTime: now,
        PaymentDateTime_utc: now,
        PaymentDateTime_offset: 0,
        PaymentUserID: 42,
        PaymentLogs: [
          {
            ID: 1,
            Code: 'REFUNDED',
            Message: 'Refunded $2.50 of payment PY-000007.',
            LogDateTime_utc: now,
            LogDateTime_offset: 0,
            PaymentStatus: 'Refunded',
            UserID: 42,
          },
        ],
        CreatedDateTime_utc: now,
        CreatedByUserID: 42,
        ModifiedDateTime_utc: now,
        ModifiedByUserID: 42,
      },
      amountMinor: 250,
      refundedMinor: 0,
      refundCount: 0,
    });
    expect(refundLink(refund)).toEqual({ ID: 8, Amount: 2.5, Status: 'Refunded', RefNumber: 'PY-000008' });
  });

  it('queues a refund, then completes or fails it with a log entry each time', () => {
    const queued = buildRefund(original, readRefundRequest({ RefNumber: 'RF-9', Method: 'Cash' }), 100, 'queued', { ...context, id: 9 });
    expect(queued.fields).toMatchObject({ Status: 'Queued', RefNumber: 'RF-9', Method: 'Cash' });
    expect(queued.fields.PaymentLogs?.[0]).toMatchObject({ Code: 'REFUND_QUEUED', PaymentStatus: 'Queued' });

    const later = '2026-03-02T00:05:00.000Z';
    const done = settleRefund(queued, { status: 'Refunded' }, later);
    expect(done.fields).toMatchObject({ Status: 'Refunded', Version: 2, ModifiedDateTime_utc: later, ModifiedByUserID: 0 });
    expect(done.fields.PaymentLogs?.map((log) => [log.ID, log.Code, log.UserID])).toEqual([
      [1, 'REFUND_QUEUED', 42],
      [2, 'REFUNDED', 0],
    ]);

    const failed = settleRefund(queued, { status: 'Failed', errorMessage: 'It kept failing.' }, later);
    expect(failed.fields).toMatchObject({ Status: 'Failed', ErrorMessage: 'It kept failing.', Version: 2 });
    expect(failed.fields.PaymentLogs?.[1]).toMatchObject({ ID: 2, Code: 'REFUND_FAILED', PaymentStatus: 'Failed' });
  });
});

describe('paymentView', () => {
  it('derives amounts, balance, flags and display strings, and hides the card token', () => {
    const record = withRefunded(
      paid({
        Amount: 1100,
        Fee: 0.35,
        PaymentDateTime_utc: '2026-03-01T23:30:00Z',
        PaymentDateTime_offset: 600,
        CreditCard: { CardNumber: '4111111111111111', CardToken: 'ctok_1' },
      }),
      25050,
    );
    const view = paymentView({ ...record, refundCount: 3 }, { refunds: [{ ID: 8, Amount: 250.5, Status: 'Refunded', RefNumber: 'PY-000008' }], more: true });
    expect(view).toMatchObject({
      Amount: 1100,
      AmountString: '$1,100.00',
      RefundedAmount: 250.5,
      RefundedAmountString: '$250.50',
      Balance: 849.5,
      BalanceString: '$849.50',
      IsRefunded: false,
      IsPaid: true,
      Fee: 0.35,
      FeeString: '$0.35',
      DateString: '2 Mar 2026',
      Refunds: [{ ID: 8, Amount: 250.5, Status: 'Refunded', RefNumber: 'PY-000008' }],
      RefundCount: 3,
      MoreRefunds: true,
      CreditCard: { CardNumber: '411111******1111' },
    });
    expect(view.DateTimeString).toBe('2 Mar 2026 9:30 AM');
    expect(JSON.stringify(view)).not.toContain('ctok_1');
  });

  it('shows a refund with its original and no balance of its own', () => {
    const refund = buildRefund(paid(), readRefundRequest(undefined), 1000, 'inline', { ...context, id: 8 });
    expect(paymentView(refund)).toMatchObject({ IsRefund: true, OriginalPaymentID: 7, Amount: 10, Balance: 0, IsRefunded: false, IsPaid: true });
    expect(paymentView(refund)).not.toHaveProperty('Refunds');
    expect(paymentView(refund)).not.toHaveProperty('RefundCount');
  });
});

describe("the payment's date (the platform's rule)", () => {
  const dateOf = (input: PaymentT) => {
    const errors: FieldError[] = [];
    const date = paymentDateOf(input, now, errors);
    return { ...date, errors };
  };

  it("reads the platform sample's DateTime without an offset as UTC, shown at offset 0 unless the client sends one", () => {
    expect(dateOf({ DateTime: '2020-04-21T00:00:00.000' })).toEqual({ utc: '2020-04-21T00:00:00.000Z', offset: 0, errors: [] });
    expect(dateOf({ DateTime: '2020-04-21T00:00:00.000', PaymentDateTime_offset: 480 })).toEqual({ utc: '2020-04-21T00:00:00.000Z', offset: 480, errors: [] });
    expect(dateOf({ PaymentDateTime_utc: '2020-04-21T00:00:00' })).toEqual({ utc: '2020-04-21T00:00:00.000Z', offset: 0, errors: [] });
    expect(dateOf({ DateTime: '2020-04-21' })).toEqual({ utc: '2020-04-21T00:00:00.000Z', offset: 0, errors: [] });
  });

  it("takes a written offset as the instant's and, when the client sends none, as the offset shown", () => {
    expect(dateOf({ DateTime: '2020-04-21T08:00:00+08:00' })).toEqual({ utc: '2020-04-21T00:00:00.000Z', offset: 480, errors: [] });
    expect(dateOf({ DateTime: '2026-03-02T09:30:00-05:30' })).toEqual({ utc: '2026-03-02T15:00:00.000Z', offset: -330, errors: [] });
    expect(dateOf({ PaymentDateTime_utc: '2026-03-02T09:30:00Z' })).toEqual({ utc: '2026-03-02T09:30:00.000Z', offset: 0, errors: [] });
    expect(dateOf({ DateTime: '2020-04-21T08:00:00+08:00', PaymentDateTime_offset: 570 })).toMatchObject({ utc: '2020-04-21T00:00:00.000Z', offset: 570 });
  });

  it('is now without a date, and accepts DateTime and PaymentDateTime_utc together when they name the same instant', () => {
    expect(dateOf({})).toEqual({ utc: now, offset: 0, errors: [] });
    expect(dateOf({ DateTime: '', PaymentDateTime_offset: 600 })).toEqual({ utc: now, offset: 600, errors: [] });
    expect(dateOf({ DateTime: '2020-04-21T08:00:00+08:00', PaymentDateTime_utc: '2020-04-21T00:00:00' })).toEqual({ utc: '2020-04-21T00:00:00.000Z', offset: 480, errors: [] });
  });

  it('refuses a date that is not one, does not exist, or contradicts the other field', () => {
    const detail = 'must be an ISO 8601 date or date-time that exists (without an offset: UTC)';
    expect(dateOf({ DateTime: 'yesterday' }).errors).toEqual([{ pointer: '/Object/DateTime', detail }]);
    expect(dateOf({ DateTime: '2026-02-30T09:00:00' }).errors).toEqual([{ pointer: '/Object/DateTime', detail }]);
    expect(dateOf({ PaymentDateTime_utc: '2026-03-01T24:00:00' }).errors).toEqual([{ pointer: '/Object/PaymentDateTime_utc', detail }]);
    expect(dateOf({ DateTime: '2020-04-21T00:00:00', PaymentDateTime_utc: '2020-04-21T00:00:00+08:00' }).errors).toEqual([
      { pointer: '/Object/PaymentDateTime_utc', detail: 'names another instant than DateTime: send one, or both the same' },
    ]);
    expect(pointers(() => paid({ Amount: 1, DateTime: '1 Mar 2026' }))).toEqual(['/Object/DateTime']);
  });

  // Hostile client: two instants a microsecond apart compared equal (each read to the millisecond) and were accepted.
  it('compares the two fields to the last digit written, and keeps the instant to the millisecond', () => {
    expect(dateOf({ DateTime: '2026-03-02T09:30:00.0001Z', PaymentDateTime_utc: '2026-03-02T09:30:00.0002Z' }).errors).toEqual([
      { pointer: '/Object/PaymentDateTime_utc', detail: 'names another instant than DateTime: send one, or both the same' },
    ]);
    expect(dateOf({ DateTime: '2026-03-02T09:30:00.1234567Z', PaymentDateTime_utc: '2026-03-02T09:30:00.12345670Z' })).toEqual({ utc: '2026-03-02T09:30:00.123Z', offset: 0, errors: [] });
    expect(dateOf({ DateTime: '2026-03-02T09:30:00.9999999Z' })).toEqual({ utc: '2026-03-02T09:30:00.999Z', offset: 0, errors: [] });
  });

  it("derives the platform's strings at fixed offsets (no daylight saving), across midnight and the year", () => {
    expect(paymentDateStrings('2020-04-21T00:00:00.000Z', 480)).toEqual({ DateString: '21 Apr 2020', DateTimeString: '21 Apr 2020 8:00 AM' });
    expect(paymentDateStrings('2020-04-21T00:00:00.000Z', 0)).toEqual({ DateString: '21 Apr 2020', DateTimeString: '21 Apr 2020 12:00 AM' });
    expect(paymentDateStrings('2020-04-21T04:05:00.000Z', 480)).toEqual({ DateString: '21 Apr 2020', DateTimeString: '21 Apr 2020 12:05 PM' });
    expect(paymentDateStrings('2026-12-31T14:30:00.000Z', 630)).toEqual({ DateString: '1 Jan 2027', DateTimeString: '1 Jan 2027 1:00 AM' });
    expect(paymentDateStrings('2026-01-01T03:00:00.000Z', -300)).toEqual({ DateString: '31 Dec 2025', DateTimeString: '31 Dec 2025 10:00 PM' });
    expect(paymentDateStrings('2026-07-01T03:00:00.000Z', 600)).toEqual({ DateString: '1 Jul 2026', DateTimeString: '1 Jul 2026 1:00 PM' });
    expect(paymentDateStrings('2026-01-01T03:00:00.000Z', 600)).toEqual({ DateString: '1 Jan 2026', DateTimeString: '1 Jan 2026 1:00 PM' });
  });

  it('stores the date as DateTime and PaymentDateTime_utc with its offset, and answers the strings; a refund is dated now at its payment\'s offset', () => {
    const record = paid({ Amount: 1056.35, DateTime: '2020-04-21T00:00:00.000', PaymentDateTime_offset: 480 });
    expect(record.fields).toMatchObject({ DateTime: '2020-04-21T00:00:00.000Z', PaymentDateTime_utc: '2020-04-21T00:00:00.000Z', PaymentDateTime_offset: 480 });
    expect(paymentView(record)).toMatchObject({ DateString: '21 Apr 2020', DateTimeString: '21 Apr 2020 8:00 AM' });
    const refund = buildRefund(record, readRefundRequest(undefined), 105635, 'inline', { ...context, id: 8 });
    expect(refund.fields).toMatchObject({ DateTime: now, PaymentDateTime_utc: now, PaymentDateTime_offset: 480 });
    expect(paymentView(refund)).toMatchObject({ DateString: '2 Mar 2026', DateTimeString: '2 Mar 2026 8:00 AM' });
  });
});
