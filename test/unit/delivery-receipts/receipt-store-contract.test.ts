// Unit: the receipt store's contract suite (test/stores/delivery-receipts/receipt-store-contract.ts) against the
// in-memory store the service's unit tests use; the integration tier runs the same suite against the DynamoDB repository.
import { createMemoryReceiptStore, memoryReceiptTableName } from '#test/stores/delivery-receipts/memory-receipt-store';
import { describeReceiptStoreContract } from '#test/stores/delivery-receipts/receipt-store-contract';

describeReceiptStoreContract('in-memory store', (clock) => {
  const { store, crashOnWrite } = createMemoryReceiptStore(clock);
  return { store, tableName: memoryReceiptTableName, crashOnWrite };
});
