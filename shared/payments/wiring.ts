// Wiring: builds the payment area's parts once per cold start (the table's client, the repository, the service, the
// queue publisher, Idempotency-Key handling) from the function's environment. The only file of the area a handler
// imports besides the HTTP answers. Each part is built on first use, so a function builds only what it calls: the
// read and the consumer never create the SQS client (and their bundles leave it out: nothing they call reaches it),
// and Powertools' idempotency utility loads only for a request that carries a key (idempotency.ts).
import { defaultTable, requireEnv } from '#shared/data/client';
import { paymentAnswerStorage } from './answer-storage';
import { createIdempotency, type Idempotency } from './idempotency';
import { createRefundPublisher, paymentsQueueUrlVariable, type RefundPublisher } from './queue';
import { createPaymentRepository } from './repository';
import { createPaymentService, type PaymentService } from './service';
import type { PaymentStore } from './store';

export { idempotencyKeyHeader } from './idempotency';

let store: PaymentStore | undefined;
const paymentStore = (): PaymentStore => (store ??= createPaymentRepository(defaultTable()));

const noQueue: RefundPublisher = async () => {
  throw new Error('this function has no payments queue');
};

let service: PaymentService | undefined;
/** The service of the functions that never queue a refund (record, read, and the queue's consumer). */
export const paymentService = (): PaymentService => (service ??= createPaymentService({ repository: paymentStore(), publish: noQueue }));

let queueing: PaymentService | undefined;
/**
 * The service of the refund function, which queues refunds: the payments queue's URL is read once, at start-up, from
 * the variable its `sendPayments` grant sets.
 */
export const queueingPaymentService = (): PaymentService =>
  (queueing ??= createPaymentService({ repository: paymentStore(), publish: createRefundPublisher(requireEnv(paymentsQueueUrlVariable)) }));

/** Idempotency-Key handling of a payment write, keeping answers without the card holder's name (answers.ts). */
export const paymentIdempotency = (operationId: string): Idempotency =>
  createIdempotency(defaultTable(), operationId, paymentAnswerStorage(paymentStore()));
