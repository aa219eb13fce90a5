// Unit: the document store's contract suite (test/stores/document-events/document-store-contract.ts) against the
// in-memory store the service's unit tests use; the integration tier runs the same suite against the DynamoDB repository.
import { describeDocumentStoreContract } from '#test/stores/document-events/document-store-contract';
import { createMemoryDocumentStore } from '#test/stores/document-events/memory-document-store';

describeDocumentStoreContract('in-memory store', () => ({ store: createMemoryDocumentStore().store }));
