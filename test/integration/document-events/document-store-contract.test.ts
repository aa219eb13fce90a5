// Integration: the document store's contract suite (test/stores/document-events/document-store-contract.ts) against
// the DynamoDB repository on DynamoDB Local; the unit tier runs the same suite against the in-memory store.
import { createDocumentRepository } from '#shared/document-events/repository';
import { describeDocumentStoreContract } from '#test/stores/document-events/document-store-contract';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
describeDocumentStoreContract('DynamoDB repository (DynamoDB Local)', () => ({ store: createDocumentRepository(table) }));
