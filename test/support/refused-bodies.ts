// Test support: the request bodies the server refuses, by operation, shared by the e2e suites that send them and by
// the OpenAPI contract test (test/unit/openapi-contract.test.ts), which checks that the document refuses each 400 too.
// A body refused by a rule JSON Schema cannot state names that rule (`rule`); `serverOnlyRules` says why for each.
import { serverRules } from '#shared/operations/server-rules';

/**
 * Rules the server applies that the OpenAPI document cannot state as JSON Schema, each with its reason: the one list
 * in shared/operations/server-rules.ts, which the document also lists in each operation's description.
 */
export const serverOnlyRules = new Map<string, string>(Object.entries(serverRules).map(([name, rule]) => [name, rule.says]));

export interface RefusedBody {
  readonly operationId: string;
  readonly name: string;
  readonly body: unknown;
  readonly status: number;
  /** The rule that refuses it when JSON Schema cannot state it (a key of serverOnlyRules). */
  readonly rule?: string;
}

const many = (count: number, item: object) => Array.from({ length: count }, () => item);

// ---------------------------------------------------------------------------------------------------------------
// Payments (test/e2e/payments/bad-inputs.test.ts)

/** [case, body, status, rule?] of POST /Payment. */
export const refusedPayments = (tenant: number): [string, unknown, number, string?][] => [
  ['no Object', {}, 400],
  ['an empty Object', { Object: {} }, 400],
  ['a non-zero ID (payments are not edited)', { Object: { ID: 1, Amount: 10 } }, 400],
  ['a zero amount', { Object: { Amount: 0 } }, 400],
  ['a DateTime past year 9999 in UTC', { Object: { Amount: 1, DateTime: '9999-12-31T23:59:59-14:00' } }, 400, 'instant-range'],
  ['a DateTime with an offset no zone has', { Object: { Amount: 1, DateTime: '2026-01-01T00:00:00+23:59' } }, 400],
  ['a negative amount', { Object: { Amount: -1 } }, 400],
  ['three decimals in AUD', { Object: { Amount: 1.005 } }, 400, 'currency-decimals'],
  ['a fraction of a yen', { Object: { Amount: 1.5, Currency: 'JPY' } }, 400],
  ['a fee with a fraction of a won', { Object: { Amount: 100, Fee: 0.5, Currency: 'KRW' } }, 400],
  ['an allocation with a fraction of a yen', { Object: { Amount: 100, Currency: 'JPY', RefBusTrans: [{ ID: 1, AppliedAmount: 1.5 }] } }, 400],
  ['Status Paid with IsPaid false', { Object: { Amount: 1, Status: 'Paid', IsPaid: false } }, 400],
  ['a card number in a log line', { Object: { Amount: 3, CreditCard: { CardNumber: '4111111111111111' }, PaymentLogs: [{ Message: 'card 4111111111111111' }] } }, 400, 'luhn'],
  ['Status Pending with IsPaid true', { Object: { Amount: 1, Status: 'Pending', IsPaid: true } }, 400],
  ['four decimals in KWD', { Object: { Amount: 1.0005, Currency: 'KWD' } }, 400, 'currency-decimals'],
  ['1e13 in the default currency (more minor units than an amount holds)', { Object: { Amount: 10_000_000_000_000 } }, 400],
  ['1e12 in KWD', { Object: { Amount: 1_000_000_000_000, Currency: 'KWD' } }, 400],
  ['a fee of -1e13 in EUR', { Object: { Amount: 1, Currency: 'EUR', Fee: -10_000_000_000_000 } }, 400],
  ['an unknown currency', { Object: { Amount: 1, Currency: 'XYZ' } }, 400],
  ['a currency in lower case', { Object: { Amount: 1, Currency: 'aud' } }, 400],
  ['a prototype name as currency', { Object: { Amount: 1, Currency: '__proto__' } }, 400],
  ['a string amount', { Object: { Amount: '10' } }, 400],
  ['a number for a string', { Object: { Amount: 1, RefNumber: 5 } }, 400],
  ['a CVV', { Object: { Amount: 1, CreditCard: { CardVerificationNumber: '123' } } }, 400],
  ['an empty CVV', { Object: { Amount: 1, CreditCard: { CardVerificationNumber: '' } } }, 400],
  ['an 11-digit card number', { Object: { Amount: 1, CreditCard: { CardNumber: '41111111111' } } }, 400],
  ['a card number failing Luhn', { Object: { Amount: 1, CreditCard: { CardNumber: '4111111111111112' } } }, 400, 'luhn'],
  ['a masked card number', { Object: { Amount: 1, CreditCard: { CardNumber: '411111******1111' } } }, 400],
  ['a refund claim', { Object: { Amount: 1, IsRefund: true, OriginalPaymentID: 1 } }, 400],
  ['a refund status', { Object: { Amount: 1, Status: 'Refunded' } }, 400],
  ['IsQueue (recording is never queued)', { IsQueue: true, Object: { Amount: 1 } }, 400],
  ['a negative applied amount', { Object: { Amount: 1, RefBusTrans: [{ ID: 1, AppliedAmount: -1 }] } }, 400],
  ['501 RefBusTrans', { Object: { Amount: 1, RefBusTrans: many(501, { ID: 1 }) } }, 400],
  ['501 InvoicePaymentAllocations', { Object: { Amount: 1, InvoicePaymentAllocations: many(501, { ID: 1 }) } }, 400],
  ['501 PaymentLogs', { Object: { Amount: 1, PaymentLogs: many(501, { Code: 'X' }) } }, 400],
  ['a payment too large for one DynamoDB item', { Object: { Amount: 1, RefBusTrans: many(120, { Summary: 'x'.repeat(4000) }) } }, 413],
  ['an unknown field', { Object: { Amount: 1, amount: 2 } }, 400],
  ['a __proto__ key', JSON.parse('{"Object":{"Amount":1,"__proto__":{"IsAdmin":true}}}') as unknown, 400],
  ['a constructor key', { Object: { Amount: 1, CreditCard: { constructor: { prototype: 1 } } } }, 400],
  ['another tenant', { TenantID: tenant + 1, Object: { Amount: 1 } }, 403],
];

/** [Object, pointer, detail, rule?]: payments prepareNewPayment refuses (test/unit/payments/rules.test.ts). */
export const refusedPaymentObjects: [object, string, string, string?][] = [
  [{}, '/Object/Amount', 'is required'],
  [{ Amount: 0 }, '/Object/Amount', 'must be greater than 0'],
  [{ Amount: -5 }, '/Object/Amount', 'must be greater than 0'],
  [{ Amount: 1.5, Currency: 'JPY' }, '/Object/Amount', 'must be a whole number in JPY'],
  [{ Amount: 1.005 }, '/Object/Amount', 'must have at most 2 decimals in AUD', 'currency-decimals'],
  [{ Amount: 1.0005, Currency: 'KWD' }, '/Object/Amount', 'must have at most 3 decimals in KWD', 'currency-decimals'],
  [{ Amount: 1, Currency: 'aud' }, '/Object/Currency', 'must be an ISO 4217 currency code such as AUD (the default)'],
  [{ Amount: 1, Currency: '__proto__' }, '/Object/Currency', 'must be an ISO 4217 currency code such as AUD (the default)'],
  // An offset no zone has (the document's pattern: at most 14:00), and an instant past year 9999 in UTC.
  [{ Amount: 1, DateTime: '2026-01-01T00:00:00+23:59' }, '/Object/DateTime', 'must be an ISO 8601 date or date-time that exists (without an offset: UTC)'],
  [{ Amount: 1, DateTime: '9999-12-31T23:59:59-14:00' }, '/Object/DateTime', 'must be an ISO 8601 date or date-time that exists (without an offset: UTC)', 'instant-range'],
  [{ Amount: 1, IsPaid: true, Status: 'Pending' }, '/Object/IsPaid', 'contradicts Status Pending'],
  [{ Amount: 1, IsPaid: false, Status: 'Paid' }, '/Object/IsPaid', 'contradicts Status Paid'],
  [{ Amount: 3, PaymentLogs: [{ Message: 'card 4111 1111 1111 1111 declined' }] }, '/Object/PaymentLogs/0/Message', 'must not hold a card number (PCI DSS 3.4.1): send the card in CreditCard, whose number is masked', 'luhn'],
  [{ Amount: 3, Description: 'paid with 5555-5555-5555-4444' }, '/Object/Description', 'must not hold a card number (PCI DSS 3.4.1): send the card in CreditCard, whose number is masked', 'luhn'],
  [{ Amount: 10, RefBusTrans: [{ ID: 1, AppliedAmount: 6 }, { ID: 2, AppliedAmount: 4.01 }] }, '/Object/RefBusTrans', "applies more than the payment's Amount", 'payment-allocations'],
  [{ Amount: 10, RefBusTrans: [{ ID: 1, AppliedAmount: 2.005 }] }, '/Object/RefBusTrans/0/AppliedAmount', 'must have at most 2 decimals in AUD', 'currency-decimals'],
  // Invoice allocations (found by a hostile client: each was stored as sent).
  [{ Amount: 0.3, InvoicePaymentAllocations: [{ Amount: 0.2 }, { Amount: 0.2 }] }, '/Object/InvoicePaymentAllocations', "allocates more than the payment's Amount", 'payment-allocations'],
  [{ Amount: 10, InvoicePaymentAllocations: [{ Amount: 0.001, Currency: 'JPY' }] }, '/Object/InvoicePaymentAllocations/0/Amount', 'must be a whole number in JPY', 'currency-decimals'],
  [{ Amount: 10, InvoicePaymentAllocations: [{ Amount: 9, ClaimRequestTotalAmount: 99.999 }] }, '/Object/InvoicePaymentAllocations/0/ClaimRequestTotalAmount', 'must have at most 2 decimals in AUD', 'currency-decimals'],
];

/** A payment with every problem prepareNewPayment reports (test/unit/payments/rules.test.ts). */
export const everyProblemAtOnce = {
  ID: 5,
  Amount: 1.001,
  Fee: 0.005,
  IsRefund: true,
  OriginalPaymentID: 3,
  IsRefunded: true,
  RefundedAmount: 1,
  Refunds: [{ ID: 1, Amount: 1, Status: 'Refunded' }],
  CreditCard: { CardVerificationNumber: '123', CardNumber: '4111111111111112' },
  Status: 'Refunded',
  ExchangeRate: 0,
  GUIDstring: 'nope',
  PaymentDateTime_utc: 'yesterday',
};

/** Which payment a refund case names: the tenant's paid payment, its refund, a pending or inactive one, none. */
export type RefundTarget = 'payment' | 'refund' | 'pending' | 'inactive' | 'missing';

/** [case, target, body, status, rule?] of POST /Payment/{id}/refund (the paid payment is of 10.00 AUD, 4.00 refunded). */
export const refusedRefunds: [string, RefundTarget, unknown, number, string?][] = [
  ['a zero amount', 'payment', { Object: { Amount: 0 } }, 400],
  ['a negative amount', 'payment', { Object: { Amount: -0.01 } }, 400],
  ['three decimals', 'payment', { Object: { Amount: 0.001 } }, 400, 'currency-decimals'],
  ['another currency', 'payment', { Object: { Amount: 1, Currency: 'USD' } }, 400, 'payment-state'],
  ['a CVV', 'payment', { Object: { CreditCard: { CardVerificationNumber: '123' } } }, 400],
  ['a field that is not a refund detail', 'payment', { Object: { Amount: 1, CustomerID: 3 } }, 400],
  ['IsQueue with IsRunNow', 'payment', { IsQueue: true, IsRunNow: true, Object: { Amount: 1 } }, 400],
  ['a __proto__ key', 'payment', JSON.parse('{"Object":{"__proto__":{"Amount":1}}}') as unknown, 400],
  ['an unknown currency', 'payment', { Object: { Amount: 1, Currency: 'XYZ' } }, 400],
  ['IsSaveAutoQueue with IsRunNow', 'payment', { IsSaveAutoQueue: true, IsRunNow: true }, 400],
  ['more than the refundable balance', 'payment', { Object: { Amount: 6.01 } }, 409],
  ['a refund of a refund', 'refund', { Object: { Amount: 1 } }, 409],
  ['a pending payment', 'pending', { Object: { Amount: 1 } }, 409],
  ['an inactive payment', 'inactive', { Object: { Amount: 1 } }, 409],
  ['a payment that does not exist', 'missing', { Object: { Amount: 1 } }, 404],
];

// ---------------------------------------------------------------------------------------------------------------
// Scheduled tasks (test/e2e/scheduled-tasks/bad-inputs.test.ts)

/** A valid recurring task: every 15 minutes from 1 January 2026 (UTC). */
export const quarterHourly = { Name: 'Export', TaskTypeID: 7, IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2026-01-01T00:00:00Z' };

/** [case, body, errors, rule?] of POST /ScheduledTasks/ (every one a 400 naming the field). */
export const refusedTasks = (matchAny: unknown): [string, unknown, object[], string?][] => [
  ['Interval 0 (more than one run a minute)', { ...quarterHourly, Interval: 0 }, [{ pointer: '/Interval', detail: 'must be at least 1: a task runs at most once a minute' }]],
  ['a fractional Interval', { ...quarterHourly, Interval: 0.5 }, [{ pointer: '/Interval', detail: matchAny }]],
  ['an unknown IntervalType', { ...quarterHourly, IntervalType: 6 }, [{ pointer: '/IntervalType', detail: matchAny }]],
  ['an unknown RecurrenceType', { ...quarterHourly, RecurrenceType: 9 }, [{ pointer: '/RecurrenceType', detail: matchAny }]],
  ['an unknown zone', { ...quarterHourly, TimeZone: 'Mars/Olympus_Mons' }, [{ pointer: '/TimeZone', detail: 'must be an IANA time zone name, e.g. Australia/Sydney (case-sensitive)' }], 'time-zone'],
  ['an offset as a zone', { ...quarterHourly, TimeZone: '+10:00' }, [{ pointer: '/TimeZone', detail: 'must be an IANA time zone name, e.g. Australia/Sydney (case-sensitive)' }]],
  ['a path as a zone', { ...quarterHourly, TimeZone: '../../etc/passwd' }, [{ pointer: '/TimeZone', detail: matchAny }]],
  ['a zone in the wrong case', { ...quarterHourly, TimeZone: 'australia/sydney' }, [{ pointer: '/TimeZone', detail: matchAny }], 'time-zone'],
  ['a one-off task in the past', { Name: 'Once', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2020-01-01T00:00:00Z' }, [{ pointer: '/TimeOfDay', detail: 'must be in the future for a one-off task' }], 'recurrence'],
  ['a one-off task rounded up past 2199', { Name: 'Once', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2199-12-31T23:59:30Z' }, [{ pointer: '/TimeOfDay', detail: matchAny }], 'recurrence'],
  ['a task whose first run is in 2200 in UTC', { ...quarterHourly, TimeOfDay: '2199-12-31T23:00:00-05:00' }, [{ pointer: '/TimeOfDay', detail: matchAny }], 'recurrence'],
  ['more than a year of days', { ...quarterHourly, IntervalType: 3, Interval: 367 }, [{ pointer: '/Interval', detail: matchAny }]],
  ['more than 52 weeks', { ...quarterHourly, IntervalType: 4, Interval: 53 }, [{ pointer: '/Interval', detail: matchAny }]],
  ['more than a year of hours', { ...quarterHourly, IntervalType: 2, Interval: 8_785 }, [{ pointer: '/Interval', detail: matchAny }]],
  ['local time on a minute interval', { ...quarterHourly, RecurrenceType: 2 }, [{ pointer: '/RecurrenceType', detail: matchAny }]],
  ['elapsed time on a month interval', { ...quarterHourly, IntervalType: 5, Interval: 1, RecurrenceType: 1 }, [{ pointer: '/RecurrenceType', detail: matchAny }]],
  ['an offset west of -12:00', { ...quarterHourly, TimeOfDay: '2026-01-01T00:00:00-12:30' }, [{ pointer: '/TimeOfDay', detail: matchAny }]],
  ['a year before 1970', { ...quarterHourly, TimeOfDay: '1969-12-31T23:00:00Z' }, [{ pointer: '/TimeOfDay', detail: matchAny }]],
  ['a one-off task in 2200', { Name: 'Once', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2200-01-01T00:00:00+14:00' }, [{ pointer: '/TimeOfDay', detail: matchAny }]],
  ['a TimeOfDay without an offset', { ...quarterHourly, TimeOfDay: '2026-01-01T00:00:00' }, [{ pointer: '/TimeOfDay', detail: matchAny }]],
  ['no name and no task type', { ...quarterHourly, Name: '', TaskTypeID: undefined }, [{ pointer: '/Name', detail: 'is required' }, { pointer: '/TaskTypeID', detail: matchAny }]],
  ['a name of invisible characters', { ...quarterHourly, Name: '\u200b\u3164' }, [{ pointer: '/Name', detail: 'is required' }]],
  ['a list over 500 items', { ...quarterHourly, IDs: Array.from({ length: 501 }, (_, index) => index) }, [{ pointer: '/IDs', detail: matchAny }]],
  ['over 20 runs sent back', { ...quarterHourly, Runs: Array(21).fill({ ScheduledDateTime_utc: '2026-01-01T00:00:00Z', RecordedDateTime_utc: '2026-01-01T00:00:00Z', Outcome: 'Run' }) }, [{ pointer: '/Runs', detail: matchAny }]],
  ['a ScheduleState that is not one', { ...quarterHourly, ScheduleState: 'Running' }, [{ pointer: '/ScheduleState', detail: matchAny }]],
  ['a secret named twice', { ...quarterHourly, AdaptorDetails: { Instructions: [{ KeyName: 'ApiKey', Value: 'a' }, { KeyName: 'ApiKey', Value: 'b' }] } }, [{ pointer: '/AdaptorDetails/Instructions/1/KeyName', detail: matchAny }], 'unique-members'],
  ['a password in the URL of an instruction that names no secret', { ...quarterHourly, AdaptorDetails: { Instructions: [{ KeyName: 'webhookUrl', Value: 'https://shop:hunter2@hooks.example/in' }] } }, [{ pointer: '/AdaptorDetails/Instructions/0/Value', detail: matchAny }], 'secret-in-value'],
  ['a password in a URL member', { ...quarterHourly, AdaptorDetails: { IconURL: 'https://shop:hunter2@cdn.example/icon.png' } }, [{ pointer: '/AdaptorDetails/IconURL', detail: 'must not carry a password (scheme://user:password@host): a credential is never stored in a URL' }]],
  ['an unknown field', { ...quarterHourly, name: 'lower-case' }, [{ pointer: '/name', detail: matchAny }]],
];

// ---------------------------------------------------------------------------------------------------------------
// Delivery receipts (test/e2e/delivery-receipts/bad-inputs.test.ts)

/** The receipts a receipt case refers to: a Draft (3 lines), an InProgress, a Cancelled and a full one (1,000 lines). */
export interface ReceiptIds {
  readonly tenant: number;
  readonly draft: number;
  readonly inProgress: number;
  readonly cancelled: number;
  readonly full: number;
  readonly fullLines: readonly object[];
}

/** [case, body, status, rule?] of POST /v2/DeliveryReceipt/. */
export const refusedReceiptSaves = (at: ReceiptIds): [string, unknown, number, string?][] => [
  ['no Value', {}, 400],
  ['a DeliveryDate past year 9999 in UTC (a create)', { Value: { DeliveryDate: '9999-12-31T23:59:59-14:00' } }, 400, 'instant-range'],
  ['a DeliveryDate before year 0000 in UTC', { Value: { ID: at.draft, DeliveryDate: '0000-01-01T00:00:00+14:00' } }, 400, 'instant-range'],
  ['a DeliveryDate with an offset no zone has', { Value: { ID: at.draft, DeliveryDate: '2026-05-01T00:00:00+23:59' } }, 400],
  ['a string for a number', { Value: { ID: at.draft, SupplierID: '61' } }, 400],
  ['an unknown field', { Value: { ID: at.draft, supplierName: 'x' } }, 400],
  ['a __proto__ key', JSON.parse(`{"Value":{"ID":${at.draft},"__proto__":{"IsReadOnly":false}}}`) as unknown, 400],
  ['a constructor key in a line', { Value: { ID: at.draft, Lines: [{ constructor: { prototype: 1 } }] } }, 400],
  ['a negative quantity', { Value: { ID: at.draft, Lines: [{ ID: 1, QuantityReceived: -1 }] } }, 400],
  ['six decimals', { Value: { ID: at.draft, Lines: [{ ID: 1, QuantityReceived: 0.000001 }] } }, 400, 'decimal-places'],
  ['an over-receipt', { Value: { ID: at.draft, Lines: [{ ID: 1, QuantityReceived: 8, QuantityFaulty: 3 }] } }, 400, 'receipt-quantities'],
  ['an unknown line ID', { Value: { ID: at.draft, Lines: [{ ID: 99, QuantityReceived: 1 }] } }, 400, 'receipt-state'],
  ['two body lines naming one line', { Value: { ID: at.draft, Lines: [{ ID: 1 }, { ID: 1 }] } }, 400, 'unique-members'],
  ['a 1,001st line', { Value: { ID: at.full, Lines: [...at.fullLines, { InventoryID: 5 }] } }, 400],
  ['1,001 lines in the body', { Value: { Lines: many(1_001, { InventoryID: 1 }) } }, 400],
  ['501 attachments', { Value: { ID: at.draft, Attachments: many(501, { Title: 'x' }) } }, 400],
  ['an unknown status', { Value: { ID: at.draft, Status: 'Shipped' } }, 400],
  ['a header too large for one DynamoDB item', { Value: { ID: at.draft, Attachments: many(110, { Caption: 'x'.repeat(4_000) }) } }, 413],
  ['a reserved reference', { Value: { ID: at.draft, RefNumber: 'DR-000999' } }, 400, 'receipt-state'],
  ['a reserved reference behind invisible characters and another dash', { Value: { ID: at.draft, RefNumber: 'DR\u2011000999\u00ad' } }, 400, 'receipt-state'],
  ['a reference another receipt holds', { Value: { ID: at.inProgress, RefNumber: 'po-1' } }, 409],
  ['a stale Version', { Value: { ID: at.draft, Version: 7, InternalNote: 'x' } }, 409],
  ['Draft -> Complete', { Value: { ID: at.draft, Status: 'Complete' } }, 409],
  ['Draft -> Completing', { Value: { ID: at.draft, Status: 'Completing' } }, 409],
  ['InProgress -> Draft', { Value: { ID: at.inProgress, Status: 'Draft' } }, 409],
  ['InProgress -> Complete without a WarehouseID', { Value: { ID: at.inProgress, Status: 'Complete', InternalNote: 'go' } }, 400, 'receipt-state'],
  ['Cancelled -> InProgress', { Value: { ID: at.cancelled, Status: 'InProgress' } }, 409],
  ['a change to a cancelled receipt', { Value: { ID: at.cancelled, SupplierName: 'Other', InternalNote: 'ok' } }, 409],
  ['a line change on a cancelled receipt', { Value: { ID: at.cancelled, Lines: [{ ID: 1, QuantityReceived: 1 }] } }, 409],
  ['another tenant in the envelope', { TenantID: at.tenant + 1, Value: { ID: at.draft } }, 403],
  ['another tenant in the receipt', { Value: { ID: at.draft, TenantID: at.tenant + 1 } }, 403],
  ["an ID that is not the tenant's", { Value: { ID: 2_000_000_000, InternalNote: 'x' } }, 404],
];

/** Which receipt an add-inventory case names. */
export type ReceiptTarget = 'draft' | 'full' | 'cancelled' | 'missing';

/** [case, target, body, status, rule?] of POST /v2/DeliveryReceipt/{id}/inventory. */
export const refusedInventory: [string, ReceiptTarget, unknown, number, string?][] = [
  ['no InventoryList', 'draft', { Value: {} }, 400],
  ['an empty InventoryList', 'draft', { Value: { InventoryList: [] } }, 400],
  ['no InventoryID', 'draft', { Value: { InventoryList: [{ Quantity: 1 }] } }, 400],
  ['one InventoryID twice', 'draft', { Value: { InventoryList: [{ InventoryID: 1 }, { InventoryID: 1 }] } }, 400, 'unique-members'],
  ['a LineTotal off by a cent', 'draft', { Value: { InventoryList: [{ InventoryID: 7, Quantity: 3, BuyPriceEx: 1.5, LineTotal: 4.51 }] } }, 400, 'line-total'],
  // The document states it (dependentRequired); the server checks it with the line-total rule.
  ['a LineTotal without a price', 'draft', { Value: { InventoryList: [{ InventoryID: 7, Quantity: 3, LineTotal: 4.5 }] } }, 400],
  ['a negative Quantity', 'draft', { Value: { InventoryList: [{ InventoryID: 7, Quantity: -3 }] } }, 400],
  ['an over-receipt', 'draft', { Value: { InventoryList: [{ InventoryID: 7, Quantity: 1, AdjustedQuantityReceived: 2 }] } }, 400, 'receipt-quantities'],
  ['a 1,001st line', 'full', { Value: { InventoryList: [{ InventoryID: 1, Quantity: 1 }] } }, 400, 'receipt-state'],
  ['a cancelled receipt', 'cancelled', { Value: { InventoryList: [{ InventoryID: 7, Quantity: 1 }] } }, 409],
  ['an unknown receipt', 'missing', { Value: { InventoryList: [{ InventoryID: 7, Quantity: 1 }] } }, 404],
  ['a __proto__ key', 'draft', JSON.parse('{"Value":{"InventoryList":[{"InventoryID":7,"__proto__":{"x":1}}]}}') as unknown, 400],
];

// ---------------------------------------------------------------------------------------------------------------
// Tenant locations (test/e2e/tenant-locations/bad-inputs.test.ts, search.test.ts): the JSON bodies it refuses.

/** [operationId, case, body, rule?]: every one a 400. */
export const refusedLocationBodies: [string, string, unknown, string?][] = [
  ['tenantLocationSave', '"ID":"x"', { ID: 'x', Name: 'A' }],
  ['tenantLocationSave', '"ID":"5" (JSON is typed)', { ID: '5', Name: 'A' }],
  ['tenantLocationSave', '"IsDefault":"yes"', { Name: 'A', IsDefault: 'yes' }],
  ['tenantLocationSave', 'the default and inactive at once', { Name: 'A', IsDefault: true, IsActive: false }],
  ['tenantLocationSave', 'Address.Latitude as text', { Name: 'A', Address: { Latitude: 'north' } }],
  ['tenantLocationSave', 'ID -1', { ID: -1, Name: 'A' }],
  ['tenantLocationSave', 'ID 2147483648', { ID: 2147483648, Name: 'A' }],
  ['tenantLocationSave', 'ID 1.5', { ID: 1.5, Name: 'A' }],
  ['tenantLocationSave', 'UtcOffset out of range', { Name: 'A', UtcOffset: 900 }],
  ['tenantLocationSave', 'Name over 200 characters', { Name: 'N'.repeat(201) }],
  ['tenantLocationSave', 'a Name of invisible characters', { Name: '\u3164\u200b' }],
  ['tenantLocationSave', 'a Name of a braille blank', { Name: '\u2800' }],
  ['tenantLocationSave', 'Name with a control character', { Name: 'A\u0001B' }],
  ['tenantLocationSave', 'Address.Longitude 200', { Name: 'A', Address: { Longitude: 200 } }],
  ['tenantLocationSave', 'an array body', [{ Name: 'A' }]],
  ['tenantLocationSave', 'a string body', 'A'],
  ['tenantLocationSave', 'several invalid fields', { ID: 'x', Name: 5, Address: { City: true } }],
  ['tenantLocationSave', 'an unknown field', { Name: 'A', Colour: 'red' }],
  ['tenantLocationSave', 'an unknown Address field', { Name: 'A', Address: { city: 'Perth' } }],
  ['tenantLocationSave', 'a blank Name', { Name: '   ' }],
  ['tenantLocationSave', 'no Name', { Description: 'nameless' }],
  ['tenantLocationSearch', 'an unknown filter member', { searchString: 'x' }],
  ['tenantLocationSearch', 'Statuses', { Statuses: [1, 2] }],
  ['tenantLocationSearch', 'StartDate and CategoryIDs', { StartDate: '2026-01-01T00:00:00Z', CategoryIDs: [3] }],
  ['tenantLocationSearch', 'an unknown SortField', { SortField: 'Colour' }],
  ['tenantLocationSearch', 'MaxResults 0', { MaxResults: 0 }],
  ['tenantLocationSearch', 'MaxResults 501', { MaxResults: 501 }],
  ['tenantLocationSearch', 'a negative LastRowNumber', { LastRowNumber: -1 }],
  ['tenantLocationGetByName', 'an unknown member', { SearchString: 'x', Limit: 1 }],
  // A SearchFilter member the lookup does not apply: read and ignored before, so it answered as if never sent.
  ['tenantLocationGetByName', 'a SearchFilter member the lookup does not apply', { SearchString: 'x', IncludeDeleted: true }],
  ['tenantLocationGetByName', 'a paging member', { SearchString: 'x', MaxResults: 1 }],
  ['tenantLocationGetByName', 'no search text', { IsExactMatch: true }],
  ['tenantLocationGetByName', 'blank search texts', { SearchString: '  ', Search: '\t' }],
  ['deliveryReceiptSearchV2', 'a __proto__ sort field', { SortField: '__proto__' }],
  ['deliveryReceiptSearchV2', 'a member Search does not apply', { IsApprovedForPOS: true }],
  ['deliveryReceiptSearchV2', 'an unknown status name', { StatusStrings: ['Shipped'] }],
  ['deliveryReceiptSearchV2', 'a status number out of range', { Statuses: [5] }],
  ['deliveryReceiptSearchV2', 'a GUID that is not one', { GUIDs: ['x'] }],
  ['deliveryReceiptSearchV2', 'a huge MaxResults', { MaxResults: 100_000 }],
];

// ---------------------------------------------------------------------------------------------------------------
// The provider webhook (test/e2e/document-events/webhook-refusals.test.ts): events without the fields we read. The
// signature's value does not matter here: a body refused by validation is refused before its signature is checked.

const webhookEvent = {
  type: 'document.uploaded',
  userId: 'u1',
  organisationId: 'org_1',
  signature: `t=1767225600,v1=${'0'.repeat(64)}`,
  data: { object: { id: 'doc-1' } },
};

/** [case, body]: every one a 400. */
export const refusedWebhookEvents: [string, unknown][] = [
  ['without a signature', { ...webhookEvent, signature: undefined }],
  ['without type', { ...webhookEvent, type: undefined }],
  ['without userId', { ...webhookEvent, userId: undefined }],
  ['without organisationId', { ...webhookEvent, organisationId: undefined }],
  ['without data.object.id', { ...webhookEvent, data: { object: { marker: 1 } } }],
  ['an organisationId holding "#"', { ...webhookEvent, organisationId: 'org_1#DOC#x' }],
  ['a __proto__ key at the top level', JSON.parse(`{"__proto__":{"polluted":true},${JSON.stringify(webhookEvent).slice(1)}`) as unknown],
  ['a __proto__ key inside data.object', JSON.parse(JSON.stringify(webhookEvent).replace('"object":{', '"object":{"__proto__":{"polluted":true},')) as unknown],
];

// ---------------------------------------------------------------------------------------------------------------
// Parameters: path ids every operation with `{id}` refuses, and addressType values GetDefaultAddress refuses.

/** Path ids, as written in the URL: refused with 400 by every operation with an `{id}` (a positive int32 in plain decimal). */
export const refusedPathIds = ['0', '-0', '-1', '1.5', '1.0', '1e3', '0x10', '01', '+1', '2147483648', '99999999999', 'abc', '%20', '%201'] as const;

/** addressType values refused with 400 (tenant-locations bad-inputs). */
export const refusedAddressTypes = ['Home', '0', '5', 'Bill', '1.0', ' ', 'B'.repeat(21)] as const;

// ---------------------------------------------------------------------------------------------------------------
// The whole corpus, as the contract test reads it.

/** Receipt ids for a corpus read without a stack: the bodies' shapes are what matter, not which receipt they name. */
const placeholderReceipts: ReceiptIds = {
  tenant: 1,
  draft: 1,
  inProgress: 2,
  cancelled: 3,
  full: 4,
  fullLines: Array.from({ length: 1_000 }, (_, index) => ({ ID: index + 1 })),
};

/** Every refused body above, named by operation. */
export const refusedBodies = (): RefusedBody[] => [
  ...refusedPayments(1).map(([name, body, status, rule]) => ({ operationId: 'paymentPost', name, body, status, rule })),
  ...refusedPaymentObjects.map(([object, pointer, detail, rule]) => ({ operationId: 'paymentPost', name: `${pointer} ${detail}`, body: { Object: object }, status: 400, rule })),
  { operationId: 'paymentPost', name: 'every problem at once', body: { Object: everyProblemAtOnce }, status: 400 },
  { operationId: 'deliveryReceiptSearchV2', name: 'a StartDate before year 0000 in UTC', body: { StartDate: '0000-01-01T00:00:00+14:00' }, status: 400, rule: 'instant-range' },
  { operationId: 'deliveryReceiptSearchV2', name: 'more than 50 GUIDs', body: { GUIDs: Array.from({ length: 51 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`) }, status: 400 },
  { operationId: 'paymentPost', name: 'a GUIDstring that is not a GUID', body: { Object: { Amount: 1, GUIDstring: 'nope' } }, status: 400 },
  { operationId: 'paymentPost', name: 'a GUIDstring that differs from GUID', body: { Object: { Amount: 1, GUID: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f', GUIDstring: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e60' } }, status: 400, rule: 'payment-flags' },
  ...refusedRefunds.map(([name, , body, status, rule]) => ({ operationId: 'paymentPostRefund', name, body, status, rule })),
  ...refusedTasks('any').map(([name, body, , rule]) => ({ operationId: 'scheduledTaskSave', name, body, status: 400, rule })),
  ...refusedReceiptSaves(placeholderReceipts).map(([name, body, status, rule]) => ({ operationId: 'deliveryReceiptSaveV2', name, body, status, rule })),
  ...refusedInventory.map(([name, , body, status, rule]) => ({ operationId: 'deliveryReceiptAddInventory', name, body, status, rule })),
  ...refusedLocationBodies.map(([operationId, name, body, rule]) => ({ operationId, name, body, status: 400, rule })),
  ...refusedWebhookEvents.map(([name, body]) => ({ operationId: 'providerWebhook', name, body: JSON.parse(JSON.stringify(body)) as unknown, status: 400 })),
];

/** Bodies the server accepts (the suites' fixtures): the document must accept each too. */
export const acceptedBodies: readonly { readonly operationId: string; readonly name: string; readonly body: unknown }[] = [
  { operationId: 'paymentPost', name: 'a payment of 10', body: { Object: { Amount: 10 } } },
  { operationId: 'paymentPost', name: 'a pending payment', body: { Object: { Amount: 5, Status: 'Pending' } } },
  { operationId: 'paymentPost', name: 'an inactive payment', body: { Object: { Amount: 5, IsActive: false } } },
  { operationId: 'paymentPostRefund', name: 'a refund of 4', body: { Object: { Amount: 4 } } },
  { operationId: 'paymentPostRefund', name: 'a refund of the balance', body: {} },
  { operationId: 'paymentPost', name: 'the largest amount in AUD', body: { Object: { Amount: 9_999_999_999_999.99 } } },
  { operationId: 'paymentPost', name: 'the largest amount in KWD', body: { Object: { Amount: 999_999_999_999.999, Currency: 'KWD' } } },
  { operationId: 'paymentPost', name: '1e13 in JPY', body: { Object: { Amount: 10_000_000_000_000, Currency: 'JPY' } } },
  { operationId: 'scheduledTaskSave', name: 'a quarter-hourly task', body: quarterHourly },
  { operationId: 'scheduledTaskSave', name: 'an update that disables a task', body: { ID: 3, Version: 2, IsEnabled: false } },
  { operationId: 'scheduledTaskSave', name: 'a one-off task', body: { Name: 'Once', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2036-01-01T00:00:00Z' } },
  { operationId: 'scheduledTaskSave', name: 'an update to a daily schedule', body: { ID: 3, IsRecurringSchedule: true, Interval: 1, IntervalType: 3 } },
  { operationId: 'scheduledTaskSave', name: 'a year of days, kept in local time', body: { ...quarterHourly, IntervalType: 3, Interval: 366, RecurrenceType: 2 } },
  { operationId: 'scheduledTaskSave', name: 'every 12 months, auto', body: { ...quarterHourly, IntervalType: 5, Interval: 12, RecurrenceType: 0 } },
  { operationId: 'scheduledTaskSave', name: 'every 52 weeks in elapsed time', body: { ...quarterHourly, IntervalType: 4, Interval: 52, RecurrenceType: 1 } },
  { operationId: 'scheduledTaskSave', name: 'the widest offsets', body: { ...quarterHourly, TimeOfDay: '2199-06-01T00:00:00-12:00' } },
  { operationId: 'scheduledTaskSave', name: 'the first year, east of UTC', body: { ...quarterHourly, TimeOfDay: '1970-01-01T00:00:00+14:00' } },
  { operationId: 'scheduledTaskSave', name: 'a one-off task whose IntervalType is 0', body: { Name: 'Once', TaskTypeID: 1, IsRecurringSchedule: false, IntervalType: 0, Interval: 900, TimeOfDay: '2036-01-01T00:00:00Z' } },
  { operationId: 'deliveryReceiptSaveV2', name: 'a status in lower case', body: { Value: { ID: 1, Version: 1, Status: 'inprogress' } } },
  { operationId: 'deliveryReceiptSaveV2', name: 'a new receipt with lines', body: { Value: { RefNumber: 'PO-1', WarehouseID: 2, Lines: [{ InventoryID: 1, QuantityOrdered: 10 }] } } },
  { operationId: 'deliveryReceiptAddInventory', name: 'one line', body: { Value: { InventoryList: [{ InventoryID: 7, Quantity: 3, BuyPriceEx: 1.5, LineTotal: 4.5 }] } } },
  { operationId: 'deliveryReceiptSearchV2', name: 'statuses by name in any case', body: { StatusStrings: ['InProgress', 'draft'], Status: [' COMPLETE '], Statuses: [4], SortField: 'DeliveryDate', MaxResults: 3 } },
  { operationId: 'tenantLocationSave', name: 'a location', body: { Name: 'Main Store', IsDefault: true, Address: { City: 'Perth', IsDefaultBilling: true } } },
  { operationId: 'providerWebhook', name: 'a signed event', body: webhookEvent },
  { operationId: 'providerWebhook', name: 'an event with members of its own', body: { ...webhookEvent, created: 1767225600, data: { object: { id: 'doc-2', pages: 3 } } } },
  { operationId: 'tenantLocationGetByName', name: 'by name', body: { SearchString: 'main', IsExactMatch: false } },
  { operationId: 'tenantLocationSearch', name: 'a search', body: { SearchString: 'perth', SortField: 'Name', MaxResults: 20 } },
];
