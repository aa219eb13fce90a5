// Domain: how a receipt save's answer is kept for Idempotency-Key replays without personal data. The only personal
// data a receipt carries is in its `Warehouse` (its users and its location's contacts: the schema's
// `x-personal-data` fields), which the client sends and the receipt stores as it is. The claim keeps the answer with
// `Warehouse` null; a replay reads it back from the receipt. The answers themselves are the http layer's
// (shared/http/answers/delivery-receipts.ts).
import type { Answer, AnswerStorage } from '#shared/data/idempotency';
import type { DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import type { ReceiptStore } from './store';

interface SavedBody {
  readonly Value?: DeliveryReceiptT;
}

const withWarehouse = (answer: Answer, warehouse: DeliveryReceiptT['Warehouse'] | null): Answer => {
  const body = answer.body as SavedBody & Record<string, unknown>;
  // Replaced in place (not removed and re-added), so the replayed body keeps the first answer's member order.
  return { ...answer, body: { ...body, Value: { ...body.Value, Warehouse: warehouse } } };
};

/**
 * The claim keeps a saved receipt's answer with `Value.Warehouse` null; a replay puts back the receipt's stored
 * Warehouse. A replay is the first answer byte for byte unless the receipt's Warehouse was edited in between (then
 * it shows the Warehouse as it is now: the personal data of the first answer is kept nowhere else).
 */
export const receiptAnswerStorage = (repository: Pick<ReceiptStore, 'read'>): AnswerStorage => ({
  strip: (answer) => ((answer.body as SavedBody).Value?.Warehouse === undefined ? answer : withWarehouse(answer, null)),
  restore: async (stored, tenantId) => {
    const value = (stored.body as SavedBody).Value;
    if (value?.Warehouse !== null || value.ID === undefined) return stored;
    const receipt = await repository.read(tenantId, value.ID);
    return withWarehouse(stored, receipt?.header.Warehouse ?? null);
  },
});
