// Integration: the payment store's contract suite (test/stores/payments/payment-store-contract.ts) against the DynamoDB
// repository on DynamoDB Local; the unit tier runs the same suite against the in-memory store.
import { createPaymentRepository } from '#shared/payments/repository';
import { describePaymentStoreContract } from '#test/stores/payments/payment-store-contract';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
describePaymentStoreContract('DynamoDB repository (DynamoDB Local)', () => ({ store: createPaymentRepository(table), tableName: table.tableName }));
