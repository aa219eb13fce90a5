// Entry: POST /Payment/{id}/refund: refunds a payment at once (201) or through the payments queue (202), once per
// Idempotency-Key (the key's claim is written in the refund's own transaction: shared/data/idempotency.ts).
import { httpOperation, respond } from '#shared/http/operation';
import { paymentPostRefund } from '#shared/compiled/operations/payments';
import { savedAnswer } from '#shared/http/answers/payments';
import { idempotencyKeyHeader, paymentIdempotency, queueingPaymentService } from '#shared/payments/wiring';

const payments = queueingPaymentService();
const idempotency = paymentIdempotency(paymentPostRefund.operationId);

export const handler = httpOperation(paymentPostRefund).handler(async ({ principal, path, body, headers }) => {
  const request = body ?? {};
  const answer = await idempotency.run(
    { tenantId: principal.tenantId, key: headers[idempotencyKeyHeader], request: { id: path.id, body: request } },
    savedAnswer,
    (claim) => payments.refund(principal, path.id, request, claim),
  );
  return respond(answer.status, answer.body, { ...answer.headers });
});
