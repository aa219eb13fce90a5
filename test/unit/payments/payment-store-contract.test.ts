// Unit: the payment store's contract suite (test/stores/payments/payment-store-contract.ts) against the in-memory store
// the service's unit tests use; the integration tier runs the same suite against the DynamoDB repository.
import { createMemoryPaymentStore, memoryPaymentTableName } from '#test/stores/payments/memory-payment-store';
import { describePaymentStoreContract } from '#test/stores/payments/payment-store-contract';

describePaymentStoreContract('in-memory store', () => ({ store: createMemoryPaymentStore().store, tableName: memoryPaymentTableName }));
