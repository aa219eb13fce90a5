// Unit: the task-run store's contract suite (test/stores/scheduled-tasks/run-store-contract.ts) against the in-memory
// store the run recorder's unit tests use; the integration tier runs the same suite against the DynamoDB repository.
import { createMemoryTaskRunStore } from '#test/stores/scheduled-tasks/memory-run-store';
import { describeTaskRunStoreContract } from '#test/stores/scheduled-tasks/run-store-contract';

describeTaskRunStoreContract('in-memory store', () => {
  const store = createMemoryTaskRunStore();
  return { store, seedTask: store.seedTask };
});
