// Domain wiring: the payment service of the refund function, which queues refunds: the payments queue's URL is read
// once, at start-up, from the variable its `sendPayments` grant sets.
import { defaultTable, requireEnv } from '../data/client';
import { createRefundPublisher, paymentsQueueUrlVariable } from './queue';
import { createPaymentRepository } from './repository';
import { createPaymentService, type PaymentService } from './service';

let service: PaymentService | undefined;

export const queueingPaymentService = (): PaymentService => {
  service ??= createPaymentService({
    repository: createPaymentRepository(defaultTable()),
    publish: createRefundPublisher(requireEnv(paymentsQueueUrlVariable)),
  });
  return service;
};
