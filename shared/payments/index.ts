// Domain wiring: the payment service over the function's table, created once per process. Each function imports
// only the wiring it uses (this one; `with-queue.ts` for the refund, `idempotent.ts` for the writes), so a read
// bundles neither the SQS client nor Powertools' idempotency utility.
import { defaultTable } from '../data/client';
import type { RefundPublisher } from './queue';
import { createPaymentRepository } from './repository';
import { createPaymentService, type PaymentService } from './service';

let service: PaymentService | undefined;

const noQueue: RefundPublisher = async () => {
  throw new Error('this function has no payments queue');
};

/** The service of the functions that never queue a refund (record, read, and the queue's consumer). */
export const paymentService = (): PaymentService => {
  service ??= createPaymentService({ repository: createPaymentRepository(defaultTable()), publish: noQueue });
  return service;
};
