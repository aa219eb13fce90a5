// Entry: POST /Payment: records a payment (201 + Location), once per Idempotency-Key (the key's claim is written in
// the payment's own transaction: shared/data/idempotency.ts).
import { httpOperation, respond } from '#shared/http/operation';
import { paymentPost } from '#shared/compiled/operations/payments';
import { savedAnswer } from '#shared/http/answers/payments';
import { idempotencyKeyHeader, paymentIdempotency, paymentService } from '#shared/payments/wiring';

const payments = paymentService();
const idempotency = paymentIdempotency(paymentPost.operationId);

export const handler = httpOperation(paymentPost).handler(async ({ principal, body, headers }) => {
  const answer = await idempotency.run({ tenantId: principal.tenantId, key: headers[idempotencyKeyHeader], request: { body } }, savedAnswer, (claim) =>
    payments.record(principal, body, claim),
  );
  return respond(answer.status, answer.body, { ...answer.headers });
});
