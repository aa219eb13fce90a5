// Manifest: the rules the server applies to a request that JSON Schema cannot state, so the OpenAPI document and its
// validators (shared/compiled/requests/) do not: each named once, with the operations that apply it and why it is
// code. The document lists them in each operation's description (shared/openapi/document.ts), the contract test
// exempts a refused body only by naming one of them (test/support/refused-bodies.ts), so the two cannot drift.
// Zod-free plain data.

export interface ServerRule {
  /** Why JSON Schema cannot state it, and what the server checks. */
  readonly says: string;
  readonly operations: readonly string[];
}

export const serverRules = {
  'currency-decimals': {
    says: 'Cross-field: how many decimals an amount may have depends on its Currency (2 for AUD, 3 for KWD): multipleOf 0.01 is inexact on binary floating point. The whole numbers of a currency without minor units (JPY) are in the document.',
    operations: ['paymentPost', 'paymentPostRefund'],
  },
  luhn: {
    says: 'A checksum: the Luhn check digit of a card number is arithmetic over its digits, which no pattern states; a card number (valid check digit) in any text member but CreditCard.CardNumber is refused.',
    operations: ['paymentPost'],
  },
  'payment-flags': {
    says: 'Cross-field: GUIDstring must name the same GUID as GUID (in any case), and DateTime and PaymentDateTime_utc, when both are sent, the same instant: comparing two members is beyond JSON Schema. (IsPaid against Status is in the document.)',
    operations: ['paymentPost'],
  },
  'payment-allocations': {
    says: "Cross-item: a payment's RefBusTrans AppliedAmounts together may not exceed its Amount, nor its InvoicePaymentAllocations' Amounts in its Currency (a sum over a list).",
    operations: ['paymentPost'],
  },
  'payment-state': { says: "State: a refund must be in the refunded payment's own currency, which only the stored payment knows.", operations: ['paymentPostRefund'] },
  'receipt-state': {
    says: 'State: line IDs, the 1,000 lines of a receipt and reserved references are checked against the stored receipt.',
    operations: ['deliveryReceiptSaveV2', 'deliveryReceiptAddInventory'],
  },
  'unique-members': {
    says: 'Cross-item: a line, an inventory item or a secret named twice in one list; uniqueItems compares whole items, not one member.',
    operations: ['scheduledTaskSave', 'deliveryReceiptSaveV2', 'deliveryReceiptAddInventory'],
  },
  'receipt-quantities': {
    says: 'Cross-field: received, faulty, out-of-date and incorrect quantities together may not exceed the quantity ordered.',
    operations: ['deliveryReceiptSaveV2', 'deliveryReceiptAddInventory'],
  },
  'line-total': { says: 'Cross-field: LineTotal must equal Quantity x (BuyPriceEx + BuyPriceTax), rounded to the currency.', operations: ['deliveryReceiptAddInventory'] },
  'decimal-places': {
    says: 'Decimal places are counted in the exact decimal text; multipleOf on binary floating point is inexact (0.1 + 0.2).',
    operations: ['deliveryReceiptSaveV2'],
  },
  'instant-range': {
    says: 'Arithmetic: a date-time with an offset must name an instant of the years 0000-9999 in UTC too (9999-12-31T23:00:00-14:00 is in year 10000, which an ISO instant cannot write as four digits); a pattern cannot add an offset to a time.',
    operations: ['paymentPost', 'deliveryReceiptSaveV2', 'deliveryReceiptSearchV2'],
  },
  recurrence: {
    says: "Against the clock: a one-off task whose schedule changed must run in the future; on the UTC instant: a task's first run must fall before 2200-01-01T00:00Z, the scheduler's last year being 2199, after an offset west of UTC and the rounding of seconds up to the minute (the rest of the recurrence rules the document states with if/then).",
    operations: ['scheduledTaskSave'],
  },
  'secret-in-value': {
    says: "Cross-field: an instruction's Value may hold a URL that carries a password (scheme://user:password@host) only when its KeyName names a secret, and is then sealed; no other text of AdaptorDetails may hold one, nor, in XML held as text (InstructionsXML, TriggerXML), an element named like a secret or the Value of a secret KeyName; a secret instruction has no ValueOptions. Whether a name names a secret is a rule over its words (shared/scheduled-tasks/README.md), which no pattern states.",
    operations: ['scheduledTaskSave'],
  },
  'time-zone': {
    says: "The IANA time zone database of the server's runtime (Intl), which changes with its releases; the description names the format.",
    operations: ['scheduledTaskSave'],
  },
} as const satisfies Readonly<Record<string, ServerRule>>;

export type ServerRuleName = keyof typeof serverRules;

/** The rules one operation applies beyond its schemas, by name. */
export const serverRulesOf = (operationId: string): [ServerRuleName, ServerRule][] =>
  (Object.entries(serverRules) as [ServerRuleName, ServerRule][]).filter(([, rule]) => rule.operations.includes(operationId));
