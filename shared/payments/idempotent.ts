// Domain wiring: Idempotency-Key handling of a payment write over the function's table, keeping answers without the
// card holder's name (answers.ts).
import { defaultTable } from '../data/client';
import { paymentAnswerStorage } from './answers';
import { createIdempotency, type Idempotency } from './idempotency';
import { createPaymentRepository } from './repository';

export const paymentIdempotency = (operationId: string): Idempotency =>
  createIdempotency(defaultTable(), operationId, paymentAnswerStorage(createPaymentRepository(defaultTable())));
