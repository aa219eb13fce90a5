// HTTP: the answers of the delivery-receipt operations in the platform's envelopes. The area returns domain results
// (a saved receipt, a view); this module answers them.
import { deliveryReceiptGetV2 } from '#shared/compiled/operations/delivery-receipts';
import type { ReceiptView, SavedReceipt } from '#shared/delivery-receipts/service';
import { actionResults, editResponse } from '#shared/schemas/envelope-bodies';
import { locationOf } from '#shared/http/location';
import type { Answer } from '#shared/data/idempotency';

export type ReceiptAnswer = Answer;

/**
 * `ActionResults<DeliveryReceiptT>`: 201 with a Location for a create, 202 when completion continues through the
 * queue (the receipt is Completing), 200 otherwise.
 */
export const savedAnswer = ({ receipt, created, completing }: SavedReceipt): ReceiptAnswer => ({
  status: created ? 201 : completing ? 202 : 200,
  body: actionResults(receipt),
  headers: created ? { Location: locationOf(deliveryReceiptGetV2, { id: receipt.ID as number }) } : {},
});

/** `DeliveryReceiptEditResponse`: `AllowedStatuses` beside `Value`. */
export const readAnswer = ({ receipt, allowed }: ReceiptView) => editResponse(receipt, { AllowedStatuses: [...allowed] });

/** `ActionResults<DeliveryReceiptT>` of add inventory: the receipt with its lines. */
export const inventoryAnswer = ({ receipt }: ReceiptView) => actionResults(receipt);
