// Unit: the stock store's contract suite (test/stores/inventory/stock-store-contract.ts) against the in-memory store
// the service's unit tests use; the integration tier runs the same suite against the DynamoDB repository.
import { createMemoryStockStore } from '#test/stores/inventory/memory-stock-store';
import { describeStockStoreContract } from '#test/stores/inventory/stock-store-contract';

describeStockStoreContract('in-memory store', createMemoryStockStore);
