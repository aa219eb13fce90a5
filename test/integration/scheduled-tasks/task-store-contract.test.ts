// Integration: the scheduled-task store's contract suite (test/stores/scheduled-tasks/task-store-contract.ts) against
// the DynamoDB repository on DynamoDB Local; the unit tier runs the same suite against the in-memory store.
import { createScheduledTaskRepository } from '#shared/scheduled-tasks/repository';
import { describeScheduledTaskStoreContract } from '#test/stores/scheduled-tasks/task-store-contract';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
describeScheduledTaskStoreContract('DynamoDB repository (DynamoDB Local)', () => ({ store: createScheduledTaskRepository(table), tableName: table.tableName }));
