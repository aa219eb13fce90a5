// Domain to HTTP: the answers of the payment operations in the platform's envelopes, and how an answer is kept
// for Idempotency-Key replays without the card holder's name (personal data stays in the payment record only).
import { apiBasePath } from '../operations/routes';
import { acceptedSynkValidation, editResponse, synkSaveQueueResponse } from '../schemas/envelope-bodies';
import type { PaymentT } from '../schemas/payment';
import type { Answer, AnswerStorage } from './idempotency';
import type { PaymentRepository } from './repository';
import type { SavedPayment } from './service';

/** The URL of a payment (or refund) record: the Location of a 201 or 202. */
export const paymentLocation = (id: number): string => `${apiBasePath}/Payment/${id}`;

/**
 * `SynkSaveQueueResponse<PaymentT>`: 201 with the saved record, or 202 when the refund waits in the payments queue.
 * `Value` carries the new ID, GUID, RefNumber and StatusString `Ok`; `IsQueuePrompt` is always false: the service
 * never asks the caller to choose between running now and queueing.
 */
export const savedAnswer = ({ payment, queued }: SavedPayment): Answer => ({
  status: queued ? 202 : 201,
  headers: { Location: paymentLocation(payment.ID as number) },
  body: synkSaveQueueResponse(
    payment,
    acceptedSynkValidation({
      ID: payment.ID,
      RefNumber: payment.RefNumber,
      GUID: payment.GUID,
      GUIDstring: payment.GUIDstring,
      IsUpdate: false,
      TransactionTypeDatTypeID: payment.TransactionTypeDatTypeID,
    }),
    { isQueued: queued, isQueuePrompt: false },
  ),
});

/** `EditResponse<PaymentT>`. */
export const readAnswer = (payment: PaymentT) => editResponse(payment);

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
 * The idempotency record keeps a recorded payment's answer with `CardHolderName` null; a replay reads the name back
 * from the payment, which is never edited, so the replay is the first answer exactly.
 */
export const paymentAnswerStorage = (repository: PaymentRepository): AnswerStorage => ({
  strip: (answer) => (holderNameOf(answer) === undefined ? answer : withHolderName(answer, null)),
  restore: async (stored, tenantId) => {
    const object = (stored.body as SavedBody).Object;
    if (object?.CreditCard?.CardHolderName !== null || object.ID === undefined) return stored;
    const payment = await repository.get(tenantId, object.ID);
    return withHolderName(stored, payment?.fields.CreditCard?.CardHolderName ?? null);
  },
});
