// Integration: completion's store contract (test/stores/delivery-receipts/completion-store-contract.ts) against the
// DynamoDB repository on DynamoDB Local; the unit tier runs the same suite against the in-memory store.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createCompletionRepository } from '#shared/delivery-receipts/repository';
import { describeCompletionStoreContract } from '#test/stores/delivery-receipts/completion-store-contract';
import { batchWriteAll } from '#test/bench/seed';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
describeCompletionStoreContract('DynamoDB repository (DynamoDB Local)', () => ({
  store: createCompletionRepository(table),
  seed: (items) => batchWriteAll(table, items),
  readItem: async (key) => (await table.client.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }))).Item,
}));
