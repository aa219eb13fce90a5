// Operations manifest: payments. `paymentPost` and `paymentGetByID` are the original platform's (beyond the spec,
// which has only the refund: a refund needs a payment to refund); the refund is the spec's `paymentPostRefund`.
import { EditResponse, SynkSaveQueueResponse } from '#shared/schemas/envelopes';
import { refundsPage } from '#shared/schemas/limits';
import { PaymentGetQuery, PaymentT, RecordPaymentRequest, SaveRequestPaymentT } from '#shared/schemas/payment';
import { bodyProblems, idPath, defineOperation } from './operation';

const SavedPayment = SynkSaveQueueResponse(PaymentT);

/**
 * Table actions of the writes: the ID sequence (UpdateItem; DeleteItem gives back a first ID), the transaction
 * (Put/Update, the Idempotency-Key's claim included), the reads of the payment and of the key's claim (GetItem).
 */
const paymentWriteAccess = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'] as const;

export const paymentPost = defineOperation({
  operationId: 'paymentPost',
  summary: 'Record a payment',
  description:
    'Beyond the spec (the original platform\'s Payment_Post): records a payment taken elsewhere (after authorisation). ' +
    '`Object.ID` must be 0 or absent: payments are never edited, they are corrected by refunds. Answers 201 with a ' +
    'Location header. `Idempotency-Key` makes a retry safe: the same key with the same body replays the first answer. ' +
    'Rules between fields (400): Amount and the other money fields have at most the decimals of Currency (0 for JPY, ' +
    '3 for KWD); a card number passes the Luhn check and ends with CreditCardLastFour when both are sent; IsPaid ' +
    'agrees with Status; GUIDstring names the same GUID as GUID; the RefBusTrans AppliedAmounts together apply at most ' +
    'Amount. The payment as stored must fit one DynamoDB item (400 KB, less a reserve: 413 `record-too-large` with ' +
    'ItemSize and ItemSizeLimit otherwise). `Balance` is the platform\'s: Amount less what ' +
    'RefBusTrans applies and what is refunded, never below 0 (a payment applied in full to its invoice has Balance 0).',
  area: 'payments',
  method: 'POST',
  path: '/Payment',
  module: 'post',
  requestBody: { schema: RecordPaymentRequest, required: true },
  success: { status: 201, schema: SavedPayment, description: 'The payment was recorded; Location is its URL.' },
  problems: [...bodyProblems, 409, 422],
  idempotencyKey: true,
  tableAccess: paymentWriteAccess,
});

export const paymentGetByID = defineOperation({
  operationId: 'paymentGetByID',
  summary: 'Get a payment or a refund',
  description:
    "Beyond the spec (the original platform's Payment_GetByID). A payment lists its refunds a page at a time, oldest " +
    `first: \`Refunds\` holds those after \`RefundsAfterID\` (default 0: from the first), at most \`MaxRefunds\` ` +
    `(1 to ${refundsPage.max}, default ${refundsPage.default}); \`RefundCount\` is how many there are in all and \`MoreRefunds\` ` +
    'says whether more follow: send the last ID shown as `RefundsAfterID` for the next page. A payment has no limit ' +
    'on its refunds. A refund names the payment it refunds in OriginalPaymentID. Another tenant\'s payment answers 404.',
  area: 'payments',
  method: 'GET',
  path: '/Payment/{id}',
  module: 'get',
  pathParameters: idPath,
  query: PaymentGetQuery,
  success: { status: 200, schema: EditResponse(PaymentT), description: 'The payment, with a page of its refunds.' },
  problems: [400, 401, 404, 406],
  tableAccess: ['dynamodb:GetItem', 'dynamodb:Query'],
});

export const paymentPostRefund = defineOperation({
  operationId: 'paymentPostRefund',
  summary: 'Refund a payment',
  description:
    "Records a refund of the payment as a new payment record (IsRefund, OriginalPaymentID) and raises the payment's " +
    'RefundedAmount in the same transaction. `Object` may carry Amount (default: the whole remaining balance), ' +
    'Currency (must be the payment\'s), Description, Method and RefNumber, and nothing else (400): Amount is greater than ' +
    "0 with at most the currency's decimals; a card (a CVV above all) is refused. IsRunNow contradicts IsQueue and " +
    'IsSaveAutoQueue (400). `IsQueue` or `IsSaveAutoQueue` reserve the ' +
    'amount at once and complete the refund through the payments queue (202). A payment takes any number of ' +
    'refunds, and refunds that fit the balance never conflict, however many run at once. More than the refundable ' +
    'balance: 409 with the refundable amount in `RefundableAmount` (the only 409 of a refund besides a payment that ' +
    'cannot be refunded at all and an Idempotency-Key in use). Too many writes to the payment in flight: 503 with ' +
    'Retry-After.',
  area: 'payments',
  method: 'POST',
  path: '/Payment/{id}/refund',
  module: 'refund',
  pathParameters: idPath,
  requestBody: { schema: SaveRequestPaymentT, required: false },
  success: { status: 201, schema: SavedPayment, description: 'The refund was made; Location is its URL.' , also: [{ status: 202, description: 'The refund waits in the payments queue (IsQueue); Location is its URL.', location: true }] },
  problems: [...bodyProblems, 404, 409, 422, 503],
  idempotencyKey: true,
  tableAccess: paymentWriteAccess,
  grants: ['sendPayments'],
});

export const paymentOperations = [paymentPost, paymentGetByID, paymentPostRefund] as const;
