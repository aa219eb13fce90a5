// Unit: the scheduled-task store's contract suite (test/stores/scheduled-tasks/task-store-contract.ts) against the
// in-memory store the service's unit tests use; the integration tier runs the same suite against the DynamoDB repository.
import { createMemoryScheduledTaskStore } from '#test/stores/scheduled-tasks/memory-task-store';
import { describeScheduledTaskStoreContract } from '#test/stores/scheduled-tasks/task-store-contract';

describeScheduledTaskStoreContract('in-memory store', () => ({ store: createMemoryScheduledTaskStore().store, tableName: 'memory' }));
