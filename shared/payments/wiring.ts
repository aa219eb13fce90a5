// Wiring: builds the payment area's parts once per cold start (the table's client, the repository, the service, the
// queue publisher, Idempotency-Key handling) from the function's environment. The only file of the area a handler
// imports besides the HTTP answers. Each part is built on first use, so a function builds only what it calls: the
// read and the consumer never create the SQS client (and their bundles leave it out: nothing they call reaches it),
// and a request without an Idempotency-Key never reads or writes a claim (shared/data/idempotency.ts).
import { defaultTable } from '#shared/data/client';
import { createIdempotency, type Idempotency } from '#shared/data/idempotency';
import { paymentAnswerStorage } from './answer-storage';
import { createRefundPublisher, type RefundPublisher } from './queue';
import { createPaymentRepository } from './repository';
import { createPaymentService, type PaymentService } from './service';
import type { PaymentStore } from './store';

export { idempotencyKeyHeader } from '#shared/data/idempotency';

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
 * The service of the refund function, which queues refunds: the payments queue's URL is the variable its
 * `sendPayments` grant sets, checked when the function loads (shared/operations/environment.ts).
 */
export const queueingPaymentService = (): PaymentService =>
  (queueing ??= createPaymentService({ repository: paymentStore(), publish: createRefundPublisher() }));

/**
 * Idempotency-Key handling of a payment write: the key's claim is written in the write's own transaction, its answer
 * kept without the card holder's name (answer-storage.ts).
 */
export const paymentIdempotency = (operationId: string): Idempotency =>
  createIdempotency(defaultTable(), operationId, paymentAnswerStorage(paymentStore()));
