// Schemas: the payment request (SaveRequestPaymentT) and the PaymentT it carries, with its nested records.
// Card data is validated strictly and flagged `x-sensitive` so it can be redacted wherever it travels; the card
// holder's name is `x-personal-data`. Fields beyond the spec (the refund links, audit fields) say so.
import { z } from 'zod';
import { currencies, defaultCurrency } from '#shared/money/currencies';
import { decimalText, maxMinorUnits } from '#shared/money/amount';
import { paymentStatuses, refundDetailFields } from './payment-lists';
import { personalData, sensitive } from './annotations';
import {
  bool,
  calendarInstant,
  calendarText,
  count,
  dateTime,
  decimal,
  emailAddress,
  guid,
  id,
  listOf,
  longText,
  recordHeader,
  rowNumber,
  shape,
  tenancyFields,
  text,
  utcOffset,
} from './common';
import { limits, refundsPage } from './limits';
import { SyncLog } from './sync-log';

export const BusTrans = shape('BusTrans', {
  GUID: guid().optional(),
  GUIDstring: text().optional(),
  ID: id().optional(),
  BSID: text().optional(),
  Status: text().optional(),
  TransType: text().optional(),
  TransTypeID: id().optional(),
  TransSubType: text().optional(),
  RefNumber: text().optional(),
  Summary: longText().optional(),
  TotalInc: decimal().optional(),
  Amount: decimal().optional(),
  AmountString: text().optional(),
  /** What of the payment is applied to this transaction: never negative (a payment's allocations together at most its Amount). */
  AppliedAmount: decimal().min(0).optional(),
  AppliedAmountString: text().optional(),
  AppliedDate: calendarText().optional(),
  AppliedDateString: text().optional(),
  AppliedTransID: id().optional(),
  AppliedCredit: decimal().optional(),
  Balance: decimal().optional(),
  MerchantSurcharge: decimal().optional(),
  MerchantSurchargeLineID: id().optional(),
  ClaimRequestID: id().optional(),
  ClaimDescription: longText().optional(),
  IsEarlyClaimShortPayment: bool().optional(),
});
export type BusTrans = z.infer<typeof BusTrans>;

const cvvRefused = 'must not be sent: a card verification number may not be kept after authorisation (PCI DSS 3.3.1)';

/** The ISO 4217 codes a payment can be in (shared/money/currencies.ts), in upper case as ISO writes them. */
export const currencyCode = () =>
  z.enum([...currencies.keys()] as [string, ...string[]], { error: 'must be an ISO 4217 currency code such as AUD (the default)' });

/** The spec: "These carry card data and must be treated as sensitive." Formats are checked, never rewritten. */
export const CreditCard = shape('CreditCard', {
  CardType: text().optional(),
  CardNumber: sensitive(
    z
      .string()
      // Answers carry the stored, masked form (first six and last four digits); requests must send the digits.
      .regex(/^([0-9]{12,19}|[0-9]{6}\*{2,9}[0-9]{4})$/, { error: 'must be 12 to 19 digits' })
      .optional(),
    'Primary account number: 12 to 19 digits, no spaces. Answers show it masked (411111******1111); it is never stored whole.',
  ),
  CardHolderName: personalData(text().optional(), 'Name on the card: stored with the payment, never logged.'),
  ExpiryMMYY: sensitive(
    z
      .string()
      .regex(/^(0[1-9]|1[0-2])[0-9]{2}$/, { error: 'must be MMYY' })
      .optional(),
    'Expiry month and year as MMYY.',
  ),
  CardVerificationNumber: sensitive(
    z
      .string()
      .regex(/^[0-9]{3,4}$/, { error: 'must be 3 or 4 digits' })
      .optional(),
    'Card verification number (CVV/CVC): 3 or 4 digits.',
  ),
  FriendlyName: text().optional(),
  CardToken: sensitive(text().optional(), 'Token standing for the card at the payment provider.'),
});
export type CreditCard = z.infer<typeof CreditCard>;

export const PaymentLog = shape('PaymentLog', {
  ID: id().optional(),
  Code: text().optional(),
  Message: longText().optional(),
  Description: longText().optional(),
  LogDateTime_utc: calendarText().optional(),
  LogDateTime_offset: utcOffset().optional(),
  PaymentStatus: text().optional(),
  PaymentStatus3rdParty: text().optional(),
  /** Beyond the spec: the user whose request wrote the entry (0 for the service itself, e.g. the refund queue). */
  UserID: id().optional(),
});
export type PaymentLog = z.infer<typeof PaymentLog>;

export const InvoicePaymentAllocation = shape('InvoicePaymentAllocation', {
  ID: id().optional(),
  GUIDstring: text().optional(),
  BSID: text().optional(),
  Status: text().optional(),
  RefNumber: text().optional(),
  PaymentRefNumber: text().optional(),
  Amount: decimal().optional(),
  ClaimRequestTotalAmount: decimal().optional(),
  Currency: currencyCode().optional().meta({ description: 'ISO 4217 code, upper case; the payment\'s Currency when absent.' }),
  PaymentAllocationDateTime_utc: calendarText().optional(),
  ScheduledDateTime_utc: calendarText().optional(),
  PaymentDateTime_utc: calendarText().optional(),
  IsUpcomingPayment: bool().optional(),
  CustomerID: id().optional(),
  CustomerName: text().optional(),
  CustomerBSID: text().optional(),
  CustomerRefNumber: text().optional(),
  AccountCustomerID: id().optional(),
  AccountCustomerName: text().optional(),
  AccountCustomerBSID: text().optional(),
  AccountCustomerRefNumber: text().optional(),
  Invoices: listOf(BusTrans).optional(),
  CreditNotes: listOf(BusTrans).optional(),
  SyncLogs: listOf(SyncLog).optional(),
});
export type InvoicePaymentAllocation = z.infer<typeof InvoicePaymentAllocation>;

/** Beyond the spec: one refund of a payment, as the payment lists it. */
export const PaymentRefund = shape(
  'PaymentRefund',
  {
    ID: id(),
    Amount: decimal(),
    Status: text(),
    RefNumber: text().optional(),
  },
  'A refund of this payment: its own payment ID, amount, status (Queued, Refunded or Failed) and reference.',
);
export type PaymentRefund = z.infer<typeof PaymentRefund>;

export const PaymentT = shape('PaymentT', {
  // Identity and versioning
  ...recordHeader(),
  DocID: id().optional(),
  DatTypeID: id().optional(),
  RefNumber: text().optional(),
  TransRefNumber: text().optional(),
  PaymentGroupRefNumber: text().optional(),
  ReceiptID: text().optional(),
  CreatedWith: text().optional(),
  Description: longText().optional(),
  PaymentDescription: longText().optional(),

  // Method, status and flags
  MethodID: id().optional(),
  Method: text().optional(),
  PaymentType: text().optional(),
  TransactionType: text().optional(),
  TransactionTypeDatTypeID: id().optional(),
  Status: text().optional(),
  StatusDescription: longText().optional(),
  ErrorMessage: longText().optional(),
  IsGiftCard: bool().optional(),
  IsPaid: bool().optional(),
  IsManualSettlementDate: bool().optional(),
  IsBatched: bool().optional(),
  IsLoyaltyPointsToggleOn: bool().optional(),
  IsManuallyRecorded: bool().optional(),
  IsAccountCustomer: bool().optional(),
  IsActive: bool().optional(),
  IsRefund: bool().optional(),
  IsRefunded: bool().optional(),
  IsManuallyAllocated: bool().optional(),
  /** Beyond the spec (the platform's public client has it): the payment a refund refunds. */
  OriginalPaymentID: id().optional(),

  // Amounts
  Currency: text().optional(),
  ExchangeRate: decimal().optional(),
  Amount: decimal().optional(),
  AmountString: text().optional(),
  Fee: decimal().optional(),
  FeeString: text().optional(),
  AmountTendered: decimal().optional(),
  AmountTenderedString: text().optional(),
  ChangeGiven: decimal().optional(),
  ChangeGivenString: text().optional(),
  CashOut: decimal().optional(),
  AppliedAmount: decimal().optional(),
  AppliedDate: calendarText().optional(),
  Balance: decimal().optional(),
  MerchantFeeAmount: decimal().optional(),
  MerchantFeeDescription: longText().optional(),
  SurchargeAmount: decimal().optional(),
  /** Spelled so in the spec (not "Surcharge"): the name is part of the interface. */
  SurchageDescription: longText().optional(),
  PayerFeeDescription: longText().optional(),
  /** Beyond the spec: the part of Amount refunded or being refunded (queued refunds included). */
  RefundedAmount: decimal().optional(),
  RefundedAmountString: text().optional(),
  BalanceString: text().optional(),

  // Dates (strings in the spec: not necessarily ISO 8601)
  DateTime: calendarText().optional(),
  DateTimeString: text().optional(),
  DateString: text().optional(),
  PaymentDateTime_utc: calendarText().optional(),
  PaymentDateTime_offset: utcOffset().optional(),
  SettlementDate: calendarText().optional(),
  VoidedAtDateTime_utc: calendarText().optional(),
  VoidedByUserFullName: text().optional(),

  // Who took the payment
  PaymentUserID: id().optional(),
  PaymentUserFullName: text().optional(),
  RepFirstName: text().optional(),
  RepLastName: text().optional(),
  RepEmailAddress: emailAddress().optional(),
  RepUserName: text().optional(),

  // Devices, terminals and the payment service
  POSTerminalShiftID: id().optional(),
  POSDeviceID: text().optional(),
  PaymentDeviceID: text().optional(),
  TerminalID: text().optional(),
  TerminalType: text().optional(),
  MerchantID: text().optional(),
  PaymentService: text().optional(),
  PaymentServiceMerchantID: text().optional(),
  PaymentServiceTerminalID: text().optional(),
  PaymentAccountGUIDstring: text().optional(),
  MCPPaymentTriggerID: text().optional(),
  MCTrackTransactionID: text().optional(),
  MCPTransactionID: text().optional(),
  Token: sensitive(text().optional(), 'Payment token issued by the payment service; as sensitive as the card it stands for.'),
  CreditCardLastFour: text(4).optional(),
  ChequeNumber: text().optional(),
  AccountCode: text().optional(),
  BankAccountCode: text().optional(),
  BatchBSID: text().optional(),
  AccountBSID: text().optional(),

  // Counterparties
  CustomerID: id().optional(),
  CustomerGUIDstring: text().optional(),
  CustomerName: text().optional(),
  CustomerBSID: text().optional(),
  CustomerRefNumber: text().optional(),
  AccountCustomerID: id().optional(),
  AccountCustomerName: text().optional(),
  AccountCustomerRefNumber: text().optional(),
  AccountCustomerStatementPeriodID: id().optional(),
  StatementStartDate: calendarText().optional(),
  StatementEndDate: calendarText().optional(),
  SupplierID: id().optional(),
  SupplierGUIDstring: text().optional(),
  SupplierName: text().optional(),
  SupplierBSID: text().optional(),
  SupplierRefNumber: text().optional(),
  InvoicePaymentID: id().optional(),

  // Nested records
  RefBusTrans: listOf(BusTrans).optional(),
  SyncLogs: listOf(SyncLog).optional(),
  CreditCard: CreditCard.optional(),
  PaymentLogs: listOf(PaymentLog).optional(),
  InvoicePaymentAllocations: listOf(InvoicePaymentAllocation).optional(),
  /** Beyond the spec: a page of the refunds of this payment, oldest first (GET's RefundsAfterID and MaxRefunds). */
  Refunds: listOf(PaymentRefund).optional(),
  /** Beyond the spec: how many refunds the payment has in all (failed ones included); a payment has no limit. */
  RefundCount: count().optional(),
  /** Beyond the spec: true when refunds lie after the last one in Refunds (ask for them with RefundsAfterID). */
  MoreRefunds: bool().optional(),

  // Audit (beyond the spec; server-owned, accepted in a body and ignored)
  CreatedDateTime_utc: dateTime().optional(),
  CreatedByUserID: id().optional(),
  ModifiedDateTime_utc: dateTime().optional(),
  ModifiedByUserID: id().optional(),
});
export type PaymentT = z.infer<typeof PaymentT>;

/** A card payment recorded at the counter. */
const recordExample = {
  Object: {
    Amount: 120.5,
    Currency: 'AUD',
    Method: 'CreditCard',
    Description: 'Counter sale',
    CreditCard: { CardType: 'Visa', CardNumber: '4111111111111111', CardHolderName: 'A CUSTOMER', ExpiryMMYY: '0829' },
  },
  IsRunNow: true,
};

/**
 * What shared/payments/rules.ts (readRefundRequest, runModeOf) refuses in a refund's body, in the JSON Schema the
 * document states it with: the spec's SaveRequestPaymentT carries a whole PaymentT, of which a refund reads only its
 * details (Amount greater than 0, an ISO 4217 Currency, Description, Method, RefNumber); IsRunNow contradicts IsQueue
 * and IsSaveAutoQueue. The domain enforces them, reporting every problem of the body at once.
 */
const refundRules = [
  {
    if: { required: ['Object'] },
    then: {
      properties: {
        Object: {
          propertyNames: { enum: [...refundDetailFields] },
          properties: { Amount: { exclusiveMinimum: 0 }, Currency: { enum: [...currencies.keys()] } },
        },
      },
    },
  },
  {
    if: { properties: { IsRunNow: { const: true } }, required: ['IsRunNow'] },
    then: { properties: { IsQueue: { const: false }, IsSaveAutoQueue: { const: false } } },
  },
];

/**
 * Body of paymentPostRefund (Object: the refund's details; the payment is named by the path `id`, so `Object` may be
 * left out): the spec's type. paymentPost records with RecordPaymentRequest, below.
 */
export const SaveRequestPaymentT = shape(
  'SaveRequestPaymentT',
  {
    Object: PaymentT.optional(),
    IsQueue: bool().optional(),
    IsSaveAutoQueue: bool().optional(),
    IsRunNow: bool().optional(),
    ...tenancyFields,
  },
  'A refund request: the refund\'s details in Object (a PaymentT of which a refund reads Amount, Currency, ' +
    'Description, Method and RefNumber only) and how to run it (queued, auto-queued or now).',
  [{ Object: { Amount: 20, Description: 'Damaged box', RefNumber: 'RF-1001' }, IsQueue: true }, {}],
  refundRules,
);
export type SaveRequestPaymentT = z.infer<typeof SaveRequestPaymentT>;

/**
 * A card as a request to record a payment may send it: the digits of the number (never the masked form answers show)
 * and no card verification number at all, even empty (PCI DSS 3.3.1; no string matches the pattern `(?!)`).
 */
export const NewPaymentCard = CreditCard.extend({
  CardNumber: sensitive(
    z.string().regex(/^[0-9]{12,19}$/, { error: 'must be 12 to 19 digits' }).optional(),
    'Primary account number: 12 to 19 digits, no spaces, with a valid Luhn check digit. Stored masked (411111******1111), never whole.',
  ),
  CardVerificationNumber: sensitive(
    z.string().max(4).regex(/(?!)/, { error: cvvRefused }).optional(),
    'Card verification number (CVV/CVC): never accepted, even empty (PCI DSS 3.3.1: it may not be kept after authorisation).',
  ),
}).meta({ id: 'NewPaymentCard', description: 'The card of a payment to record: card data is validated strictly and never returned whole.' });


const positiveAmount = () => decimal().gt(0, { error: 'must be greater than 0' });
const refundsUse = 'record refunds with POST /Payment/{id}/refund';

/**
 * The payment `paymentPost` records: PaymentT with the rules of a new payment that JSON Schema can state, so the
 * server refuses them here and the OpenAPI document says so. The rules between fields (the currency's decimals, the
 * Luhn check digit, Status against IsPaid, GUID against GUIDstring, the stored size) stay in shared/payments/rules.ts,
 * which also re-checks these.
 */
export const NewPaymentT = PaymentT.extend({
  ID: id()
    .max(0, { error: 'must be 0 or absent: payments are never edited, they are corrected by refunds' })
    .optional(),
  Amount: positiveAmount().meta({ description: 'The amount paid, in Currency: greater than 0, with at most the currency\'s decimals.' }),
  Status: z
    .enum(paymentStatuses, { error: `must be one of ${paymentStatuses.join(', ')} (refunds have their own operation)` })
    .optional()
    .meta({ description: 'Paid (the default) or Pending; must agree with IsPaid when both are sent.' }),
  GUIDstring: text()
    .regex(/^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$/, { error: 'must be a GUID' })
    .optional()
    .meta({ description: 'The GUID as text (empty: none); must name the same GUID as GUID when both are sent.' }),
  Currency: currencyCode().optional().meta({ description: 'ISO 4217 code, upper case; AUD when absent.' }),
  // The payment's date, by the platform's rule (shared/payments/rules.ts, paymentDateOf).
  DateTime: calendarInstant()
    .optional()
    .meta({
      description:
        "The payment's date: an ISO 8601 date or date-time that exists; without an offset it is UTC (the platform's rule); absent: now. Answered as the UTC instant, like PaymentDateTime_utc.",
    }),
  PaymentDateTime_utc: calendarInstant()
    .optional()
    .meta({ description: "The payment's date, like DateTime: send either, or both naming the same instant. Without an offset: UTC." }),
  PaymentDateTime_offset: utcOffset()
    .optional()
    .meta({
      description:
        'Minutes east of UTC where the payment was taken (480 Perth, 600 Sydney standard time), for DateString and DateTimeString only; absent: the offset the date was written with, else 0.',
    }),
  ExchangeRate: positiveAmount().optional(),
  CreditCard: NewPaymentCard.optional(),
  CreditCardLastFour: z.string().regex(/^[0-9]{4}$/, { error: 'must be the last 4 digits of the card number' }).optional(),
  IsRefund: z.literal(false, { error: `must be false: ${refundsUse}` }).optional(),
  OriginalPaymentID: id().max(0, { error: `must be 0: ${refundsUse}` }).optional(),
  IsRefunded: z.literal(false, { error: 'must be false: a new payment has no refunds' }).optional(),
  RefundedAmount: decimal().min(0).max(0, { error: 'must be 0: a new payment has no refunds' }).optional(),
  Refunds: z.array(PaymentRefund).max(0, { error: 'must be empty: a new payment has no refunds' }).optional(),
  RefundCount: count().max(0, { error: 'must be 0: a new payment has no refunds' }).optional(),
  MoreRefunds: z.literal(false, { error: 'must be false: a new payment has no refunds' }).optional(),
}).meta({ id: 'NewPaymentT', description: 'A payment to record: PaymentT with the rules of a new payment.' });

/** The money members of a payment other than Amount whose decimals its Currency bounds (shared/payments/rules.ts). */
const otherMoneyMembers = ['Fee', 'AmountTendered', 'ChangeGiven', 'CashOut', 'AppliedAmount', 'MerchantFeeAmount', 'SurchargeAmount'] as const;

/** ISO 4217 currencies without minor units (JPY, KRW, ...): their amounts are whole numbers. */
const wholeNumberCurrencies = [...currencies].filter(([, units]) => units === 0).map(([code]) => code);

/**
 * What shared/payments/rules.ts (prepareNewPayment) refuses in a new payment beyond its members' schemas that JSON
 * Schema states exactly, in the JSON Schema the document states it with (the domain refuses them with its own words):
 * IsPaid agrees with Status when both are sent (`null` is absent); in a currency without minor units every amount,
 * the allocations' AppliedAmount included, is a whole number (`multipleOf: 1` is exact; a fraction such as 0.01 is
 * not on binary floating point, so the 2- and 3-decimal currencies stay the server rule `currency-decimals`).
 */
const wholeAmounts = { multipleOf: 1 };

/**
 * The largest amount of a currency with `units` decimals: `maxMinorUnits` of its minor units (9,999,999,999,999.99
 * in AUD, 999,999,999,999.999 in KWD), below the 1e13 every number has; the default currency's when Currency is
 * absent or null. A currency without minor units reaches 1e13 first.
 */
const largestAmountRules = ([2, 3, 4] as const).map((units) => {
  const codes = [...currencies].filter(([, minor]) => minor === units).map(([code]) => code);
  const largest = Number(decimalText(maxMinorUnits, codes[0] as string));
  const named = { required: ['Currency'], properties: { Currency: { enum: codes } } };
  const bounded = { maximum: largest, minimum: -largest };
  return {
    if: codes.includes(defaultCurrency) ? { anyOf: [{ properties: { Currency: { type: 'null' } } }, named] } : named,
    then: { properties: { Amount: { maximum: largest }, ...Object.fromEntries(otherMoneyMembers.map((member) => [member, bounded])) } },
  };
});

const newPaymentRules = [
  {
    properties: {
      Object: {
        allOf: [
          { if: { required: ['Status'], properties: { Status: { const: 'Paid' } } }, then: { properties: { IsPaid: { enum: [true, null] } } } },
          {
            if: { required: ['Status'], properties: { Status: { enum: paymentStatuses.filter((status) => status !== 'Paid') } } },
            then: { properties: { IsPaid: { enum: [false, null] } } },
          },
          {
            if: { required: ['Currency'], properties: { Currency: { enum: wholeNumberCurrencies } } },
            then: {
              properties: {
                Amount: wholeAmounts,
                ...Object.fromEntries(otherMoneyMembers.map((member) => [member, wholeAmounts])),
                RefBusTrans: { items: { properties: { AppliedAmount: wholeAmounts } } },
              },
            },
          },
          ...largestAmountRules,
        ],
      },
    },
  },
];

/** Body of paymentPost: SaveRequestPaymentT whose `Object`, the payment to record, is required. */
export const RecordPaymentRequest = shape(
  'RecordPaymentRequest',
  {
    Object: NewPaymentT,
    IsQueue: z.literal(false, { error: 'a payment is recorded at once; only refunds can be queued' }).optional(),
    IsSaveAutoQueue: z.literal(false, { error: 'a payment is recorded at once; only refunds can be queued' }).optional(),
    IsRunNow: bool().optional(),
    ...tenancyFields,
  },
  'The body of paymentPost: SaveRequestPaymentT with the payment to record in `Object` (required). Recording is never queued.',
  [recordExample],
  newPaymentRules,
);
export type RecordPaymentRequest = z.infer<typeof RecordPaymentRequest>;

const refundsAfterIdMessage = 'must be 0 or the ID of a refund: a 32-bit integer in plain decimal';
const maxRefundsMessage = `must be a whole number from 1 to ${refundsPage.max}`;

/**
 * Query of paymentGetByID: which page of the payment's refunds `Refunds` shows. A cursor, not a row number: refunds
 * are kept in ID order (the tenant's sequence hands IDs out), so the next page starts after the last ID shown.
 */
export const PaymentGetQuery = z.strictObject({
  RefundsAfterID: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,9})$/, { error: refundsAfterIdMessage })
    .transform(Number)
    .pipe(z.int32({ error: refundsAfterIdMessage }).min(0, { error: refundsAfterIdMessage }))
    .optional()
    .meta({ description: 'List the refunds after this refund ID (the last ID of the previous page); 0 or absent: from the first.' }),
  MaxRefunds: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, { error: maxRefundsMessage })
    .transform(Number)
    .pipe(z.int32({ error: maxRefundsMessage }).min(1, { error: maxRefundsMessage }).max(refundsPage.max, { error: maxRefundsMessage }))
    .optional()
    .meta({ description: `At most this many refunds in Refunds: 1 to ${refundsPage.max}, default ${refundsPage.default}.` }),
});
export type PaymentGetQuery = z.output<typeof PaymentGetQuery>;
