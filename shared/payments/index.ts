// Domain wiring: the payment service, its repository and idempotency over the function's table, created once per
// process. The payments queue's URL is read only by the functions that send to it (the refund).
import { defaultTable, requireEnv } from '../data/client';
import { createIdempotency, type Idempotency } from './idempotency';
import { paymentAnswerStorage } from './answers';
import { createRefundPublisher, type RefundPublisher } from './queue';
import { createPaymentRepository } from './repository';
import { createPaymentService, type PaymentService } from './service';

/** One service per queue setting: the local stack runs every function in one process, each with its own needs. */
const services = new Map<string, PaymentService>();

const noQueue: RefundPublisher = async () => {
  throw new Error('this function has no payments queue');
};

/** `queueUrlVariable`: the environment variable of the payments queue's URL, for the functions that queue refunds. */
export const paymentService = (queueUrlVariable?: string): PaymentService => {
  const key = queueUrlVariable ?? '';
  let service = services.get(key);
  if (!service) {
    service = createPaymentService({
      repository: createPaymentRepository(defaultTable()),
      publish: queueUrlVariable ? createRefundPublisher(requireEnv(queueUrlVariable)) : noQueue,
    });
    services.set(key, service);
  }
  return service;
};

/** Idempotency-Key handling of one operation, keeping answers without personal data. */
export const paymentIdempotency = (operationId: string): Idempotency =>
  createIdempotency(defaultTable(), operationId, paymentAnswerStorage(createPaymentRepository(defaultTable())));
