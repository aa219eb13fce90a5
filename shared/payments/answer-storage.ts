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

/** Every member name the answer's personal values have, at any depth (the card holder's name in `CreditCard`, the
 * customer's names in each `InvoicePaymentAllocations` entry as at the top): a Set, never a plain object's lookup. */
const personalFields: ReadonlySet<string> = new Set<string>([...personalAnswerFields, 'CardHolderName']);

type Path = readonly (string | number)[];

const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each personal member of `value` (a scalar under a personal name, at any depth) with its path. */
const personalMembers = (value: unknown, path: Path = [], found: { path: Path; value: unknown }[] = []) => {
  if (Array.isArray(value)) value.forEach((item, index) => personalMembers(item, [...path, index], found));
  else if (isJsonObject(value)) {
    for (const [name, member] of Object.entries(value)) {
      if (personalFields.has(name) && (member === null || typeof member !== 'object')) found.push({ path: [...path, name], value: member });
      else personalMembers(member, [...path, name], found);
    }
  }
  return found;
};

/** The member at `path`, or undefined. */
const memberAt = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((at, step) => (Array.isArray(at) ? at[step as number] : isJsonObject(at) && Object.hasOwn(at, step) ? at[step as string] : undefined), value);

/** `value` with `replacement` at `path`, replaced where it stands (copies along the path; member order kept). */
const withMemberAt = (value: unknown, path: Path, replacement: unknown): unknown => {
  if (path.length === 0) return replacement;
  const [step, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, index) => (index === step ? withMemberAt(item, rest, replacement) : item));
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, name === step ? withMemberAt(member, rest, replacement) : member]));
  return value;
};

/** The answer with each of `values` at its path in its `Object`. */
const withPersonal = (answer: Answer, values: readonly { path: Path; value: unknown }[]): Answer => {
  const body = answer.body as SavedBody & Record<string, unknown>;
  const object = values.reduce<unknown>((at, { path, value }) => withMemberAt(at, path, value), body.Object);
  return { ...answer, body: { ...body, Object: object } };
};

/**
 * The Idempotency-Key's claim keeps a recorded payment's (or refund's) answer with each personal value null, at any
 * depth (before, the customer's names in `InvoicePaymentAllocations` were kept; found by a hostile client); a replay
 * reads them back from the record, whose personal fields are never edited, so the replay is the first answer exactly.
 */
export const paymentAnswerStorage = (repository: PaymentStore): AnswerStorage => ({
  strip: (answer) => {
    const personal = personalMembers((answer.body as SavedBody).Object).filter(({ value }) => value !== null);
    return personal.length === 0 ? answer : withPersonal(answer, personal.map(({ path }) => ({ path, value: null })));
  },
  restore: async (stored, tenantId) => {
    const object = (stored.body as SavedBody).Object;
    if (object?.ID === undefined) return stored;
    const stripped = personalMembers(object).filter(({ value }) => value === null);
    if (stripped.length === 0) return stored;
    const record = await repository.get(tenantId, object.ID);
    return withPersonal(stored, stripped.map(({ path }) => ({ path, value: memberAt(record?.fields, path) ?? null })));
  },
});
