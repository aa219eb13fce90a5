// Operations manifest: payments.
import { SaveRequestPaymentT } from '../schemas/payment';
import { bodyProblems, idPath, pendingTableAccess, type Operation } from './operation';
export const paymentPostRefund = {
  operationId: 'paymentPostRefund',
  summary: 'Refund a payment',
  area: 'payments',
  method: 'POST',
  path: '/Payment/{id}/refund',
  handler: 'functions/not-implemented.ts',
  auth: 'bearer',
  media: 'standard',
  implemented: false,
  pathParameters: idPath,
  requestBody: { schema: SaveRequestPaymentT, required: false },
  problems: [...bodyProblems, 404, 501],
  tableAccess: pendingTableAccess,
} as const satisfies Operation;

export const paymentOperations = [paymentPostRefund] as const;
