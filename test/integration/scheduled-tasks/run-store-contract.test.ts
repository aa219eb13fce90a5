// Integration: the task-run store's contract suite (test/stores/scheduled-tasks/run-store-contract.ts) against the
// DynamoDB repository on DynamoDB Local; the unit tier runs the same suite against the in-memory store.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { taskKey } from '#shared/scheduled-tasks/keys';
import { createTaskRunRepository } from '#shared/scheduled-tasks/repository';
import { describeTaskRunStoreContract } from '#test/stores/scheduled-tasks/run-store-contract';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
describeTaskRunStoreContract('DynamoDB repository (DynamoDB Local)', () => ({
  store: createTaskRunRepository(table),
  // A task item as the save stores it (its run-read fields under the schema's names).
  seedTask: async (tenantId, taskId, state) =>
    void (await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...taskKey(tenantId, taskId), entity: 'ScheduledTask', ID: taskId, ...state } }))),
}));
