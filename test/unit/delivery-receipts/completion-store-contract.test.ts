// Unit: completion's store contract (test/stores/delivery-receipts/completion-store-contract.ts) against the in-memory
// store; the integration tier runs the same suite against the DynamoDB repository.
import { createMemoryCompletionStore } from '#test/stores/delivery-receipts/memory-completion-store';
import { describeCompletionStoreContract } from '#test/stores/delivery-receipts/completion-store-contract';

describeCompletionStoreContract('in-memory store', createMemoryCompletionStore);
