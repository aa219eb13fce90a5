// Entry: POST /Payment/{id}/refund: refunds a payment at once (201) or through the payments queue (202), once per
// Idempotency-Key.
import { httpOperation, respond } from '#shared/http/operation';
import { paymentPostRefund } from '#shared/compiled/operations/payments';
import { savedAnswer } from '#shared/http/answers/payments';
import { idempotencyKeyHeader, paymentIdempotency, queueingPaymentService } from '#shared/payments/wiring';

const payments = queueingPaymentService();
const idempotency = paymentIdempotency(paymentPostRefund.operationId);

export const handler = httpOperation(paymentPostRefund).handler(async ({ principal, path, body, headers, context }) => {
  const request = body ?? {};
  const answer = await idempotency.run(
    { tenantId: principal.tenantId, key: headers[idempotencyKeyHeader], request: { id: path.id, body: request }, context },
    async () => savedAnswer(await payments.refund(principal, path.id, request)),
  );
  return respond(answer.status, answer.body, { ...answer.headers });
});
