// Unit: delivery-receipt Search's store contract (test/stores/delivery-receipts/search-store-contract.ts) against the
// in-memory store; the integration tier runs the same suite against the DynamoDB repository.
import { createMemorySearchStore } from '#test/stores/delivery-receipts/memory-search-store';
import { describeReceiptSearchStoreContract } from '#test/stores/delivery-receipts/search-store-contract';

describeReceiptSearchStoreContract('in-memory store', createMemorySearchStore);
