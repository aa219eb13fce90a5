// Entry: GET /Payment/{id}?RefundsAfterID=&MaxRefunds=: the caller's payment or refund with a page of its refunds (404
// for any other tenant's).
import { httpOperation } from '#shared/http/operation';
import { paymentGetByID } from '#shared/compiled/operations/payments';
import { paymentService } from '#shared/payments/wiring';
import { readAnswer } from '#shared/http/answers/payments';

const payments = paymentService();

export const handler = httpOperation(paymentGetByID).handler(async ({ principal, path, query }) =>
  readAnswer(await payments.get(principal, path.id, query)));
