// Domain: how a payment write's answer is kept for Idempotency-Key replays without personal data: the card holder's
// name and the fields that name or reach a person (the customer, the account customer, the supplier, the rep, the
// users) stay in the payment record only. The answers themselves are the http layer's (shared/http/answers/payments.ts).
import type { PaymentT } from '#shared/schemas/payment';
import type { Answer, AnswerStorage } from '#shared/data/idempotency';
import type { PaymentStore } from './store';

interface SavedBody {
  readonly Object?: PaymentT;
}

/** The answer's fields that name or reach a person, besides the card holder's name (`CreditCard.CardHolderName`). */
export const personalAnswerFields = [
  'CustomerName',
  'AccountCustomerName',
  'SupplierName',
  'RepFirstName',
  'RepLastName',
  'RepEmailAddress',
  'RepUserName',
  'PaymentUserFullName',
  'VoidedByUserFullName',
] as const satisfies readonly (keyof PaymentT)[];

type Personal = Partial<Record<(typeof personalAnswerFields)[number] | 'CardHolderName', unknown>>;

/** The personal values of a payment as an answer shows them (undefined: not in it). */
const personalOf = (object: PaymentT): Personal => {
  const values: Personal = {};
  for (const field of personalAnswerFields) if (object[field] !== undefined) values[field] = object[field];
  if (object.CreditCard?.CardHolderName !== undefined) values.CardHolderName = object.CreditCard.CardHolderName;
  return values;
};

/**
 * The answer with `values` in place of its personal fields: each replaced where it stands (never removed and added
 * again), so a restored body keeps the first answer's member order.
 */
const withPersonal = (answer: Answer, values: Personal): Answer => {
  const body = answer.body as SavedBody & Record<string, unknown>;
  const object = { ...(body.Object as PaymentT) } as Record<string, unknown>;
  for (const field of personalAnswerFields) if (Object.hasOwn(values, field)) object[field] = values[field];
  if (Object.hasOwn(values, 'CardHolderName')) object.CreditCard = { ...(object.CreditCard as object), CardHolderName: values.CardHolderName };
  return { ...answer, body: { ...body, Object: object } };
};

/**
 * The Idempotency-Key's claim keeps a recorded payment's (or refund's) answer with each personal field null; a replay
 * reads them back from the record, whose personal fields are never edited, so the replay is the first answer exactly.
 */
export const paymentAnswerStorage = (repository: PaymentStore): AnswerStorage => ({
  strip: (answer) => {
    const object = (answer.body as SavedBody).Object;
    const personal = object ? personalOf(object) : {};
    const fields = Object.keys(personal);
    return fields.length === 0 ? answer : withPersonal(answer, Object.fromEntries(fields.map((field) => [field, null])));
  },
  restore: async (stored, tenantId) => {
    const object = (stored.body as SavedBody).Object;
    if (object?.ID === undefined) return stored;
    const stripped = Object.entries(personalOf(object)).filter(([, value]) => value === null).map(([field]) => field);
    if (stripped.length === 0) return stored;
    const record = await repository.get(tenantId, object.ID);
    const kept: Personal = record ? personalOf(record.fields as PaymentT) : {};
    return withPersonal(stored, Object.fromEntries(stripped.map((field) => [field, kept[field as keyof Personal] ?? null])));
  },
});
