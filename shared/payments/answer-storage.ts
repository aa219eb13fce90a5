// Domain: how a payment write's answer is kept for Idempotency-Key replays without the card holder's name (personal
// data stays in the payment record only). The answers themselves are the http layer's (shared/http/answers/payments.ts).
import type { PaymentT } from '#shared/schemas/payment';
import type { Answer, AnswerStorage } from '#shared/data/idempotency';
import type { PaymentStore } from './store';

interface SavedBody {
  readonly Object?: PaymentT;
}

const holderNameOf = (answer: Answer): string | undefined => (answer.body as SavedBody).Object?.CreditCard?.CardHolderName;

const withHolderName = (answer: Answer, name: string | null): Answer => {
  const body = answer.body as SavedBody & Record<string, unknown>;
  const object = body.Object as PaymentT;
  // Replaced in place (not removed and re-added), so the replayed body keeps the first answer's member order.
  return { ...answer, body: { ...body, Object: { ...object, CreditCard: { ...object.CreditCard, CardHolderName: name } } } };
};

/**
 * The Idempotency-Key's claim keeps a recorded payment's answer with `CardHolderName` null; a replay reads the name back
 * from the payment, which is never edited, so the replay is the first answer exactly.
 */
export const paymentAnswerStorage = (repository: PaymentStore): AnswerStorage => ({
  strip: (answer) => (holderNameOf(answer) === undefined ? answer : withHolderName(answer, null)),
  restore: async (stored, tenantId) => {
    const object = (stored.body as SavedBody).Object;
    if (object?.CreditCard?.CardHolderName !== null || object.ID === undefined) return stored;
    const payment = await repository.get(tenantId, object.ID);
    return withHolderName(stored, payment?.fields.CreditCard?.CardHolderName ?? null);
  },
});
