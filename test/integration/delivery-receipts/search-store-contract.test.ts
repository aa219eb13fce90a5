// Integration: delivery-receipt Search's store contract (test/stores/delivery-receipts/search-store-contract.ts)
// against the DynamoDB repository on DynamoDB Local; the unit tier runs the same suite against the in-memory store.
import { createSearchRepository } from '#shared/delivery-receipts/repository';
import { describeReceiptSearchStoreContract } from '#test/stores/delivery-receipts/search-store-contract';
import { batchWriteAll } from '#test/bench/seed';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
describeReceiptSearchStoreContract('DynamoDB repository (DynamoDB Local)', () => ({
  store: createSearchRepository(table),
  seed: (items) => batchWriteAll(table, items),
}));
