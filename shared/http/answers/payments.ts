// HTTP: the answers of the payment operations in the platform's envelopes. The area returns domain results (a saved
// payment); this module answers them. How an answer is kept for Idempotency-Key replays without the card holder's
// name is the area's (shared/payments/answer-storage.ts).
import { paymentGetByID } from '#shared/compiled/operations/payments';
import type { Answer } from '#shared/data/idempotency';
import type { SavedPayment } from '#shared/payments/service';
import { acceptedSynkValidation, editResponse, synkSaveQueueResponse } from '#shared/schemas/envelope-bodies';
import type { PaymentT } from '#shared/schemas/payment';
import { locationOf } from '#shared/http/location';

/**
 * `SynkSaveQueueResponse<PaymentT>`: 201 with the saved record, or 202 when the refund waits in the payments queue.
 * `Value` carries the new ID, GUID, RefNumber and StatusString `Ok`; `IsQueuePrompt` is always false: the service
 * never asks the caller to choose between running now and queueing.
 */
export const savedAnswer = ({ payment, queued }: SavedPayment): Answer => ({
  status: queued ? 202 : 201,
  headers: { Location: locationOf(paymentGetByID, { id: payment.ID as number }) },
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
