// Domain wiring: Idempotency-Key handling of a payment write over the function's table, keeping answers without the
// card holder's name (answer-storage.ts).
import { defaultTable } from '../data/client';
import { paymentAnswerStorage } from './answer-storage';
import { createIdempotency, type Idempotency } from './idempotency';
import { createPaymentRepository } from './repository';

export const paymentIdempotency = (operationId: string): Idempotency =>
  createIdempotency(defaultTable(), operationId, paymentAnswerStorage(createPaymentRepository(defaultTable())));
