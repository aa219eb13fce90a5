// Domain: the rules of payments and refunds, pure (no I/O, no clock, no randomness: the service passes ids, times
// and GUIDs in). Money is computed in integer minor units (shared/money); a rule that fails throws a named error.
import { ApiError, ConcurrentModification, Conflict, problemKinds, ValidationFailed, type FieldError } from '#shared/errors';
import { decimalText, defaultCurrency, formatAmount, fromMinorUnits, InvalidAmount, minorUnitsOf, toMinorUnits } from '#shared/money/index';
import { currencies } from '#shared/money/currencies';
import { PaymentT as paymentSchema } from '#shared/compiled/schemas/payment';
import { epochMsOf, readCalendar } from '#shared/schemas/calendar';
import { clientGuid } from '#shared/validation/guid';
import type { PaymentLog, PaymentRefund, PaymentT, SaveRequestPaymentT } from '#shared/schemas/payment';
import { cardDataErrors, cardForAnswer, cardForStorage, cardNumbersInText } from './card-data';

import { paymentStatuses, refundDetailFields, refundStatuses } from '#shared/schemas/payment-lists';

export { paymentStatuses, refundStatuses };
export type RefundStatus = (typeof refundStatuses)[number];


/**
 * A payment as stored: the record's own fields, with money in minor units. `refundedMinor` counts refunds that are
 * completed or queued (a queued refund's amount is reserved); `refundCount` counts every refund, failed ones too
 * (shown as `RefundCount`; it limits nothing).
 * Derived fields (Amount, Balance, IsRefunded, IsPaid, the `*String` fields, Refunds) are never stored.
 */
export interface PaymentRecord {
  readonly fields: StoredPaymentFields;
  readonly amountMinor: number;
  readonly refundedMinor: number;
  readonly refundCount: number;
}

type DerivedField =
  | 'Amount'
  | 'AmountString'
  | 'RefundedAmount'
  | 'RefundedAmountString'
  | 'Balance'
  | 'BalanceString'
  | 'IsRefunded'
  | 'IsPaid'
  | 'Refunds'
  | 'RefundCount'
  | 'MoreRefunds'
  | 'FeeString'
  | 'AmountTenderedString'
  | 'ChangeGivenString'
  | 'DateTimeString'
  | 'DateString'
  | 'RowNumber'
  | 'Token';

export type StoredPaymentFields = Omit<PaymentT, DerivedField> & {
  readonly ID: number;
  readonly GUID: string;
  readonly Version: number;
  readonly Currency: string;
  readonly Status: string;
  readonly IsActive: boolean;
  readonly IsRefund: boolean;
  readonly RefNumber: string;
  readonly CreatedDateTime_utc: string;
  readonly CreatedByUserID: number;
  readonly ModifiedDateTime_utc: string;
  readonly ModifiedByUserID: number;
};

/** How the caller wants the work done: at once (201) or through the payments queue (202). */
export type RunMode = 'inline' | 'queued';

/** What the server chooses for each new record. */
export interface NewRecordContext {
  readonly id: number;
  readonly guid: string;
  readonly now: string;
  readonly userId: number;
}

/** 409: the refund asks for more than is left; the problem says how much is (extension member RefundableAmount). */
export class RefundExceedsBalance extends ApiError {
  override readonly name: string = 'RefundExceedsBalance';
  constructor(
    readonly refundableAmount: number,
    readonly currency: string,
  ) {
    super(
      problemKinds.refundExceedsBalance,
      `At most ${decimalText(toMinorUnits(refundableAmount, currency), currency)} ${currency} of this payment can still be refunded.`,
      {
        errors: [{ pointer: '/Object/Amount', detail: 'exceeds the refundable amount' }],
        extensions: { RefundableAmount: refundableAmount, Currency: currency },
      },
    );
  }
}

/**
 * Not a refusal: the payment's refunded amount moved between the read and the write (other refunds took part of the
 * balance, or a failed queued refund gave some back), so the refund's condition failed. The service reads again and
 * decides again: a refund that still fits is written, one that no longer does is RefundExceedsBalance (409).
 */
export class BalanceMoved extends ConcurrentModification {
  override readonly name: string = 'BalanceMoved';
}

/** 409: another payment of the tenant has this GUID (a GUID names one payment; a resent payment is not recorded twice). */
export class PaymentGuidTaken extends ApiError {
  override readonly name: string = 'PaymentGuidTaken';
  constructor() {
    super(problemKinds.guidTaken, 'Another payment of this tenant has this GUID.', {
      errors: [{ pointer: '/Object/GUID', detail: 'already in use' }],
    });
  }
}

const paymentReference = (id: number) => `PY-${String(id).padStart(6, '0')}`;

const invalid = (pointer: string, detail: string) => new ValidationFailed([{ pointer, detail }]);

const minorOrErrors = (value: number, currency: string, pointer: string, errors: FieldError[]): number | undefined => {
  try {
    return toMinorUnits(value, currency);
  } catch (error) {
    if (!(error instanceof InvalidAmount)) throw error;
    errors.push({ pointer, detail: error.detail });
    return undefined;
  }
};

/**
 * The run mode a request asks for. `IsQueue` or `IsSaveAutoQueue` (the platform's "save, then queue the work") queue
 * a refund; `IsRunNow` or no flag runs it at once; asking for both is a contradiction (400). Recording a payment is a
 * single write with nothing left to do later, so it cannot be queued (400).
 */
export const runModeOf = (request: SaveRequestPaymentT, operation: 'record' | 'refund'): RunMode => {
  const queue = request.IsQueue === true || request.IsSaveAutoQueue === true;
  const flag = request.IsQueue === true ? '/IsQueue' : '/IsSaveAutoQueue';
  if (queue && request.IsRunNow === true) throw invalid('/IsRunNow', `contradicts ${flag.slice(1)}: choose one`);
  if (queue && operation === 'record') {
    throw invalid(flag, 'a payment is recorded at once; only refunds can be queued');
  }
  return queue ? 'queued' : 'inline';
};

/**
 * The payment's date, by the platform's rule (its sample `NewPaymentT.json` sends `"DateTime": "2020-04-21T00:00:00.000"`
 * and its answer `EditResponseOfPaymentT.json` has `DateTime` and `PaymentDateTime_utc` both `2020-04-21T00:00:00`,
 * `PaymentDateTime_offset` 480 and `DateTimeString` "21 Apr 2020 8:00 AM"):
 * - the date is the client's `DateTime` or `PaymentDateTime_utc` (both: they must name the same instant); neither: now;
 * - a value without an offset is UTC (the `_utc` the platform answers it as); a date alone is its UTC midnight;
 * - `PaymentDateTime_offset` (minutes east of UTC) is where the payment was taken, for the display strings only: the
 *   client's, else the value's own offset when it wrote one, else 0 (the platform's 480 was its tenant's, Perth; this
 *   service knows no tenant time zone, so a client that wants local strings sends the offset).
 * A value that is not an ISO 8601 date or date-time that exists is refused (30 February is never 1 March).
 */
export interface PaymentDate {
  /** The UTC instant, `toISOString` form: stored as both `DateTime` and `PaymentDateTime_utc`. */
  readonly utc: string;
  /** Minutes east of UTC, stored as `PaymentDateTime_offset`. */
  readonly offset: number;
}

const paymentDateFields = ['DateTime', 'PaymentDateTime_utc'] as const;

export const paymentDateOf = (
  input: Pick<PaymentT, 'DateTime' | 'PaymentDateTime_utc' | 'PaymentDateTime_offset'>,
  now: string,
  errors: FieldError[],
): PaymentDate => {
  const read: { field: string; epochMs: number; belowMs: number; offset: number | undefined }[] = [];
  for (const field of paymentDateFields) {
    const text = input[field];
    if (text === undefined || text === '') continue;
    const value = readCalendar(text);
    const epochMs = value ? epochMsOf(value) : Number.NaN;
    if (!value || !Number.isFinite(epochMs)) {
      errors.push({ pointer: `/Object/${field}`, detail: 'must be an ISO 8601 date or date-time that exists (without an offset: UTC)' });
      continue;
    }
    read.push({ field, epochMs, belowMs: value.time?.belowMillisecond ?? 0, offset: value.offsetMinutes });
  }
  const [first, second] = read;
  // To the last digit written: two instants a microsecond apart are two instants, though each is kept to the millisecond.
  if (first && second && (first.epochMs !== second.epochMs || first.belowMs !== second.belowMs)) {
    errors.push({ pointer: '/Object/PaymentDateTime_utc', detail: 'names another instant than DateTime: send one, or both the same' });
  }
  const offset = input.PaymentDateTime_offset ?? read.find((value) => value.offset !== undefined)?.offset ?? 0;
  return { utc: first ? new Date(first.epochMs).toISOString() : now, offset };
};

const twoDigits = (value: number) => String(value).padStart(2, '0');
const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/**
 * The platform's display strings of an instant at an offset (minutes east of UTC): `DateString` "21 Apr 2020",
 * `DateTimeString` "21 Apr 2020 8:00 AM" (day without a leading zero, English month, 12-hour clock, AM/PM).
 * Offsets are fixed (no daylight saving): the offset is the one the payment was taken at.
 */
export const paymentDateStrings = (utc: string, offset: number): { DateString: string; DateTimeString: string } | undefined => {
  const value = readCalendar(utc);
  if (!value?.time) return undefined;
  const local = new Date(epochMsOf(value) + offset * 60_000);
  if (!Number.isFinite(local.getTime())) return undefined;
  const date = `${local.getUTCDate()} ${monthNames[local.getUTCMonth()]} ${local.getUTCFullYear()}`;
  const hour = local.getUTCHours();
  const time = `${hour % 12 === 0 ? 12 : hour % 12}:${twoDigits(local.getUTCMinutes())} ${hour < 12 ? 'AM' : 'PM'}`;
  return { DateString: date, DateTimeString: `${date} ${time}` };
};

/** Money fields of a payment besides Amount: each is checked against the currency's decimals like Amount. */
const otherMoneyFields = ['Fee', 'AmountTendered', 'ChangeGiven', 'CashOut', 'AppliedAmount', 'MerchantFeeAmount', 'SurchargeAmount'] as const;

/**
 * The part of a payment applied to business transactions (`RefBusTrans[].AppliedAmount`), in minor units: what the
 * platform's `Balance` leaves out. Only a payment's stored allocations count (they were checked when it was recorded).
 */
const appliedMinor = (record: PaymentRecord): number => {
  let total = 0;
  for (const link of record.fields.RefBusTrans ?? []) {
    if (link.AppliedAmount !== undefined) total += toMinorUnits(link.AppliedAmount, record.fields.Currency);
  }
  return total;
};

/**
 * The allocations of a new payment: each applied amount is money of the payment's currency (the schema keeps it not
 * negative), and together they apply no more than the payment's Amount (the platform's `Balance` cannot go below 0).
 */
const allocationErrors = (input: PaymentT, currency: string, amountMinor: number | undefined): FieldError[] => {
  const errors: FieldError[] = [];
  let total = 0;
  let complete = true;
  (input.RefBusTrans ?? []).forEach((link, index) => {
    if (link.AppliedAmount === undefined) return;
    const pointer = `/Object/RefBusTrans/${index}/AppliedAmount`;
    const minor = minorOrErrors(link.AppliedAmount, currency, pointer, errors);
    if (minor === undefined) complete = false;
    else total += minor;
  });
  if (complete && amountMinor !== undefined && total > amountMinor) {
    errors.push({ pointer: '/Object/RefBusTrans', detail: 'applies more than the payment\'s Amount' });
  }
  // The invoice allocations: each amount is money of its allocation's currency (the payment's when it names none),
  // and those in the payment's currency allocate no more than its Amount (before, a fraction of a yen, three
  // decimals of AUD or 0.20 + 0.20 of a 0.30 payment were stored as sent; found by a hostile client). An amount may
  // be negative (the platform's own sample allocates -250.50: a credit note's share).
  let allocated = 0;
  let allocatedComplete = true;
  (input.InvoicePaymentAllocations ?? []).forEach((allocation, index) => {
    const allocationCurrency = allocation.Currency ?? currency;
    for (const field of ['Amount', 'ClaimRequestTotalAmount'] as const) {
      const value = allocation[field];
      if (value === undefined) continue;
      const pointer = `/Object/InvoicePaymentAllocations/${index}/${field}`;
      if (!currencies.has(allocationCurrency)) continue;
      const minor = minorOrErrors(value, allocationCurrency, pointer, errors);
      if (field !== 'Amount' || allocationCurrency !== currency) continue;
      if (minor === undefined) allocatedComplete = false;
      else allocated += minor;
    }
  });
  if (allocatedComplete && amountMinor !== undefined && allocated > amountMinor) {
    errors.push({ pointer: '/Object/InvoicePaymentAllocations', detail: 'allocates more than the payment\'s Amount' });
  }
  return errors;
};

/** Fields that would describe refunds: a new payment has none, so anything but the default value is refused. */
const refundClaims = (input: PaymentT): FieldError[] => {
  const errors: FieldError[] = [];
  const use = 'record refunds with POST /Payment/{id}/refund';
  if (input.IsRefund === true) errors.push({ pointer: '/Object/IsRefund', detail: `must be false: ${use}` });
  if (input.OriginalPaymentID) errors.push({ pointer: '/Object/OriginalPaymentID', detail: `must be 0: ${use}` });
  if (input.IsRefunded === true) errors.push({ pointer: '/Object/IsRefunded', detail: 'must be false: a new payment has no refunds' });
  if (input.RefundedAmount) errors.push({ pointer: '/Object/RefundedAmount', detail: 'must be 0: a new payment has no refunds' });
  if (input.RefundCount) errors.push({ pointer: '/Object/RefundCount', detail: 'must be 0: a new payment has no refunds' });
  if (input.MoreRefunds === true) errors.push({ pointer: '/Object/MoreRefunds', detail: 'must be false: a new payment has no refunds' });
  if (input.Refunds && input.Refunds.length > 0) errors.push({ pointer: '/Object/Refunds', detail: 'must be empty: a new payment has no refunds' });
  return errors;
};

const statusOf = (input: PaymentT, errors: FieldError[]): string => {
  const status = input.Status ?? (input.IsPaid === false ? 'Pending' : 'Paid');
  if (!(paymentStatuses as readonly string[]).includes(status)) {
    errors.push({ pointer: '/Object/Status', detail: `must be one of ${paymentStatuses.join(', ')} (refunds have their own operation)` });
  } else if (input.IsPaid !== undefined && input.IsPaid !== (status === 'Paid')) {
    errors.push({ pointer: '/Object/IsPaid', detail: `contradicts Status ${status}` });
  }
  return status;
};

const guidOf = (input: PaymentT, generated: string, errors: FieldError[]): string => {
  const text = input.GUIDstring === '' ? undefined : clientGuid(input.GUIDstring);
  const sent = clientGuid(input.GUID);
  if (text !== undefined && !/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(text)) {
    errors.push({ pointer: '/Object/GUIDstring', detail: 'must be a GUID' });
  } else if (text !== undefined && sent !== undefined && text.toLowerCase() !== sent.toLowerCase()) {
    errors.push({ pointer: '/Object/GUIDstring', detail: 'differs from GUID' });
  }
  return (sent ?? text ?? generated).toLowerCase();
};

/**
 * A new payment from a `paymentPost` body: the client's fields, with the server's own (ID, GUID, RefNumber, Version,
 * audit, refund state) set, the card reduced to what may be stored and the payment service token dropped. Every
 * problem of the body is reported at once (400).
 */
export const prepareNewPayment = (input: PaymentT | undefined, context: NewRecordContext): PaymentRecord => {
  if (!input) throw invalid('/Object', 'is required: the payment to record');
  const errors: FieldError[] = [];
  if (input.ID) errors.push({ pointer: '/Object/ID', detail: 'must be 0 or absent: payments are never edited, they are corrected by refunds' });
  errors.push(...refundClaims(input));

  const currency = input.Currency ?? defaultCurrency;
  const knownCurrency = minorUnitsOf(currency) !== undefined;
  if (!knownCurrency) errors.push({ pointer: '/Object/Currency', detail: 'must be an ISO 4217 currency code such as AUD (the default)' });
  let amountMinor: number | undefined;
  if (input.Amount === undefined) errors.push({ pointer: '/Object/Amount', detail: 'is required' });
  else if (!(input.Amount > 0)) errors.push({ pointer: '/Object/Amount', detail: 'must be greater than 0' });
  else if (knownCurrency) amountMinor = minorOrErrors(input.Amount, currency, '/Object/Amount', errors);
  if (knownCurrency) {
    for (const field of otherMoneyFields) {
      const value = input[field];
      if (value !== undefined) minorOrErrors(value, currency, `/Object/${field}`, errors);
    }
  }
  if (input.ExchangeRate !== undefined && !(input.ExchangeRate > 0)) {
    errors.push({ pointer: '/Object/ExchangeRate', detail: 'must be greater than 0' });
  }
  if (knownCurrency) errors.push(...allocationErrors(input, currency, amountMinor));
  errors.push(...cardDataErrors(input.CreditCard, input.CreditCardLastFour, '/Object'));
  cardNumbersInText(input, '/Object', errors);
  const status = statusOf(input, errors);
  const guid = guidOf(input, context.guid, errors);
  const paidAt = paymentDateOf(input, context.now, errors);
  if (errors.length > 0) throw new ValidationFailed(errors);

  const {
    ID: _id,
    RowNumber: _row,
    Version: _version,
    Token: _token,
    Amount: _amount,
    AmountString: _amountString,
    FeeString: _fee,
    AmountTenderedString: _tendered,
    ChangeGivenString: _change,
    DateTimeString: _dateTime,
    DateString: _date,
    Balance: _balance,
    BalanceString: _balanceString,
    RefundedAmount: _refunded,
    RefundedAmountString: _refundedString,
    IsRefunded: _isRefunded,
    IsPaid: _isPaid,
    Refunds: _refunds,
    RefundCount: _refundCount,
    MoreRefunds: _moreRefunds,
    OriginalPaymentID: _original,
    CreatedDateTime_utc: _created,
    CreatedByUserID: _createdBy,
    ModifiedDateTime_utc: _modified,
    ModifiedByUserID: _modifiedBy,
    CreditCard,
    CreditCardLastFour,
    ...clientFields
  } = input;
  const card = cardForStorage(CreditCard, CreditCardLastFour);
  const record: PaymentRecord = {
    fields: {
      ...clientFields,
      ID: context.id,
      GUID: guid,
      GUIDstring: guid,
      RefNumber: input.RefNumber || paymentReference(context.id),
      Version: 1,
      Currency: currency,
      Status: status,
      IsActive: input.IsActive ?? true,
      IsRefund: false,
      DateTime: paidAt.utc,
      PaymentDateTime_utc: paidAt.utc,
      PaymentDateTime_offset: paidAt.offset,
      ...(card.card ? { CreditCard: card.card } : {}),
      ...(card.lastFour ? { CreditCardLastFour: card.lastFour } : {}),
      CreatedDateTime_utc: context.now,
      CreatedByUserID: context.userId,
      ModifiedDateTime_utc: context.now,
      ModifiedByUserID: context.userId,
    },
    amountMinor: amountMinor as number,
    refundedMinor: 0,
    refundCount: 0,
  };
  return record;
};

/** The refund's details a body may carry in `Object`: anything else is refused rather than silently dropped. */
const refundDetails: ReadonlySet<string> = new Set(refundDetailFields);

/** What a refund asks for, checked against nothing but itself: done once, before an ID is spent on it. */
export interface RefundRequest {
  /** Undefined: the whole remaining balance. */
  readonly amount: number | undefined;
  readonly currency: string | undefined;
  readonly description: string | undefined;
  readonly method: string | undefined;
  readonly refNumber: string | undefined;
}

/** Reads a refund body's `Object` (400 for anything but the refund's own details, a CVV above all). */
export const readRefundRequest = (details: PaymentT | undefined): RefundRequest => {
  const errors: FieldError[] = [];
  if (details) {
    errors.push(...cardDataErrors(details.CreditCard, undefined, '/Object'));
    cardNumbersInText(details, '/Object', errors);
    for (const field of Object.keys(details)) {
      if (!refundDetails.has(field) && field !== 'CreditCard') {
        errors.push({ pointer: `/Object/${field}`, detail: 'is not a refund detail (Amount, Currency, Description, Method, RefNumber)' });
      }
    }
    if (details.CreditCard && details.CreditCard.CardVerificationNumber === undefined) {
      errors.push({ pointer: '/Object/CreditCard', detail: 'is not a refund detail: a refund goes back to the payment\'s own card' });
    }
    if (details.Amount !== undefined && !(details.Amount > 0)) errors.push({ pointer: '/Object/Amount', detail: 'must be greater than 0' });
    if (details.Currency !== undefined && minorUnitsOf(details.Currency) === undefined) {
      errors.push({ pointer: '/Object/Currency', detail: 'must be an ISO 4217 currency code' });
    }
  }
  if (errors.length > 0) throw new ValidationFailed(errors);
  return {
    amount: details?.Amount,
    currency: details?.Currency,
    description: details?.Description,
    method: details?.Method,
    refNumber: details?.RefNumber || undefined,
  };
};

/** Why a payment cannot be refunded at all (409), or undefined when it can. */
export const refusalToRefund = (original: PaymentRecord): string | undefined => {
  const { fields } = original;
  if (fields.IsRefund) return `Payment ${fields.ID} is itself a refund; refund the original payment ${fields.OriginalPaymentID ?? ''}`.trim() + '.';
  if (!fields.IsActive) return `Payment ${fields.ID} is inactive and cannot be refunded.`;
  if (fields.Status !== 'Paid') return `Payment ${fields.ID} is ${fields.Status}, not Paid, and cannot be refunded.`;
  return undefined;
};

/** The refundable balance of a payment, in minor units. */
export const refundableMinor = (original: PaymentRecord): number => original.amountMinor - original.refundedMinor;

/**
 * The amount a refund takes from `original`, in minor units, or the error it earns: 400 for a bad amount or another
 * currency, 409 when the payment cannot be refunded or the amount exceeds what is left (with the refundable amount).
 */
export const refundAmountMinor = (original: PaymentRecord, request: RefundRequest): number => {
  const refusal = refusalToRefund(original);
  if (refusal) throw new Conflict(refusal);
  const currency = original.fields.Currency;
  if (request.currency !== undefined && request.currency !== currency) {
    throw invalid('/Object/Currency', `must be the payment's own currency, ${currency}`);
  }
  const left = refundableMinor(original);
  let minor = left;
  if (request.amount !== undefined) {
    const errors: FieldError[] = [];
    const parsed = minorOrErrors(request.amount, currency, '/Object/Amount', errors);
    if (parsed === undefined) throw new ValidationFailed(errors);
    minor = parsed;
  }
  if (left === 0) throw new RefundExceedsBalance(0, currency);
  if (minor > left) throw new RefundExceedsBalance(fromMinorUnits(left, currency), currency);
  return minor;
};

/**
 * Fields a refund takes over from the payment it refunds: who paid, how, in what money, and the offset its dates are
 * shown at (a refund's own date is the time it is recorded).
 */
const inheritedFields = [
  'Currency',
  'PaymentDateTime_offset',
  'ExchangeRate',
  'MethodID',
  'Method',
  'PaymentType',
  'TransactionTypeDatTypeID',
  'CreditCardLastFour',
  'CustomerID',
  'CustomerGUIDstring',
  'CustomerName',
  'CustomerRefNumber',
  'AccountCustomerID',
  'AccountCustomerName',
  'AccountCustomerRefNumber',
  'SupplierID',
  'SupplierGUIDstring',
  'SupplierName',
  'SupplierRefNumber',
  'PaymentService',
] as const satisfies readonly (keyof StoredPaymentFields)[];

const logCodes = { Queued: 'REFUND_QUEUED', Refunded: 'REFUNDED', Failed: 'REFUND_FAILED' } as const satisfies Record<RefundStatus, string>;

/** One PaymentLogs entry of a refund: what happened, when and at whose request (0: the service's queue consumer). */
export const refundLogEntry = (
  id: number,
  status: RefundStatus,
  message: string,
  now: string,
  userId: number,
): PaymentLog => ({
  ID: id,
  Code: logCodes[status],
  Message: message,
  LogDateTime_utc: now,
  LogDateTime_offset: 0,
  PaymentStatus: status,
  UserID: userId,
});

/** The new refund record: its own ID, GUID and RefNumber, the original's currency and rate, Refunded or Queued. */
export const buildRefund = (
  original: PaymentRecord,
  request: RefundRequest,
  amountMinor: number,
  mode: RunMode,
  context: NewRecordContext,
): PaymentRecord => {
  const status: RefundStatus = mode === 'queued' ? 'Queued' : 'Refunded';
  const inherited: Record<string, unknown> = {};
  for (const field of inheritedFields) if (original.fields[field] !== undefined) inherited[field] = original.fields[field];
  const amount = formatAmount(amountMinor, original.fields.Currency);
  const message =
    mode === 'queued'
      ? `Refund of ${amount} of payment ${original.fields.RefNumber} queued; the amount is reserved.`
      : `Refunded ${amount} of payment ${original.fields.RefNumber}.`;
  return {
    fields: {
      ...(inherited as Partial<StoredPaymentFields>),
      ID: context.id,
      GUID: context.guid,
      GUIDstring: context.guid,
      RefNumber: request.refNumber ?? paymentReference(context.id),
      Version: 1,
      Currency: original.fields.Currency,
      Status: status,
      IsActive: true,
      IsRefund: true,
      OriginalPaymentID: original.fields.ID,
      Description: request.description ?? `Refund of payment ${original.fields.RefNumber}`,
      ...(request.method !== undefined ? { Method: request.method } : {}),
      TransactionType: 'Refund',
      DateTime: context.now,
      PaymentDateTime_utc: context.now,
      PaymentUserID: context.userId,
      PaymentLogs: [refundLogEntry(1, status, message, context.now, context.userId)],
      CreatedDateTime_utc: context.now,
      CreatedByUserID: context.userId,
      ModifiedDateTime_utc: context.now,
      ModifiedByUserID: context.userId,
    },
    amountMinor,
    refundedMinor: 0,
    refundCount: 0,
  };
};

/** A queued refund, completed or given up by the payments queue's consumer: its next state and log entry. */
export const settleRefund = (
  refund: PaymentRecord,
  outcome: { readonly status: 'Refunded' } | { readonly status: 'Failed'; readonly errorMessage: string },
  now: string,
): PaymentRecord => {
  const logs = refund.fields.PaymentLogs ?? [];
  const amount = formatAmount(refund.amountMinor, refund.fields.Currency);
  const message =
    outcome.status === 'Refunded'
      ? `Refunded ${amount} (queued refund completed).`
      : `Refund of ${amount} failed; the reserved amount is released. ${outcome.errorMessage}`;
  return {
    ...refund,
    fields: {
      ...refund.fields,
      Status: outcome.status,
      ...(outcome.status === 'Failed' ? { ErrorMessage: outcome.errorMessage } : {}),
      Version: refund.fields.Version + 1,
      PaymentLogs: [...logs, refundLogEntry(logs.length + 1, outcome.status, message, now, 0)],
      ModifiedDateTime_utc: now,
      ModifiedByUserID: 0,
    },
  };
};

const paymentFieldOrder = Object.keys(paymentSchema.shape);


/** A page of a payment's refunds, as `GET /Payment/{id}` shows it with the payment. */
export interface RefundsShown {
  readonly refunds: readonly PaymentRefund[];
  /** True when refunds lie after the page's last one. */
  readonly more: boolean;
}

const noRefundsShown: RefundsShown = { refunds: [], more: false };

/**
 * The payment as answers show it: money back from minor units, the derived fields (Balance, IsRefunded, IsPaid,
 * display strings, Refunds, RefundCount, MoreRefunds) computed, the card without its token. Balance is the platform's:
 * Amount less what is applied to business transactions and what is refunded, never below 0 (a payment applied in full
 * to an invoice has Balance 0, as the platform's sample answer shows). A refund's Balance is 0.
 */
export const paymentView = (record: PaymentRecord, page: RefundsShown = noRefundsShown): PaymentT => {
  const { fields } = record;
  const currency = fields.Currency;
  const money = (minor: number) => fromMinorUnits(minor, currency);
  const shown = (value: number | undefined) => (value === undefined ? undefined : formatAmount(toMinorUnits(value, currency), currency));
  // The platform's Balance: what of the payment is neither applied to a business transaction nor refunded.
  const balanceMinor = fields.IsRefund ? 0 : Math.max(0, record.amountMinor - record.refundedMinor - appliedMinor(record));
  const dateStrings = fields.PaymentDateTime_utc ? paymentDateStrings(fields.PaymentDateTime_utc, fields.PaymentDateTime_offset ?? 0) : undefined;
  const card = cardForAnswer(fields.CreditCard);
  const { CreditCard: _card, ...rest } = fields;
  const view: Record<string, unknown> = {
    ...rest,
    ...(card ? { CreditCard: card } : {}),
    Amount: money(record.amountMinor),
    AmountString: formatAmount(record.amountMinor, currency),
    RefundedAmount: money(record.refundedMinor),
    RefundedAmountString: formatAmount(record.refundedMinor, currency),
    Balance: money(balanceMinor),
    BalanceString: formatAmount(balanceMinor, currency),
    IsRefunded: !fields.IsRefund && record.refundedMinor === record.amountMinor,
    IsPaid: fields.Status === (fields.IsRefund ? 'Refunded' : 'Paid'),
    FeeString: shown(fields.Fee),
    AmountTenderedString: shown(fields.AmountTendered),
    ChangeGivenString: shown(fields.ChangeGiven),
    ...(dateStrings ?? {}),
    ...(fields.IsRefund ? {} : { Refunds: [...page.refunds], RefundCount: record.refundCount, MoreRefunds: page.more }),
  };
  // Members in the schema's order (stored items come back in no particular order), so every answer, JSON or XML,
  // lists a payment's fields the same way.
  const ordered: Record<string, unknown> = {};
  for (const key of paymentFieldOrder) if (view[key] !== undefined) ordered[key] = view[key];
  return ordered as PaymentT;
};

/** A refund as its payment lists it. */
export const refundLink = (refund: PaymentRecord): PaymentRefund => ({
  ID: refund.fields.ID,
  Amount: fromMinorUnits(refund.amountMinor, refund.fields.Currency),
  Status: refund.fields.Status,
  RefNumber: refund.fields.RefNumber,
});

