// Data layer: where scheduled tasks live in the single table. Each task has its own partition, holding the task
// item and one item per run, so a tenant's schedules never share one partition key's write capacity (1,000 WCU/s)
// and reading a task with its latest runs is one Query:
//
//   pk `T#<tenant>#TASK#<id>`  sk `TASK`                       the task (ScheduledTask fields, Version, secrets sealed)
//   pk `T#<tenant>#TASK#<id>`  sk `RUN#<scheduled time ISO>`   one run, written once (but over a stale skip: store.ts `recordsOver`)
//
// `RUN#...` sorts before `TASK`, so a descending Query with Limit 21 reads the task and its latest 20 runs.
//
// The reconciler's sparse index (gsi6): a task item carries `gsi6pk`/`gsi6sk` from the save that commits it until
// its schedule sync succeeds, so the index lists exactly the tasks whose schedule is not known to be in line.
//
//   gsi6pk `TASKSYNC#<shard>`  gsi6sk `<save time ISO>#<tenant>#<id>`  (shard: (tenant + id) mod 4)
import { composeKey, padNumber, tenantPartition, type ItemKey } from '#shared/data/partition';
import { unsyncedTasksIndex } from '#shared/data/indexes';

/** The per-tenant sequence of task IDs (`SEQ#TASK` in the tenant partition). */
export const taskSequence = 'TASK';

/** The partition of one task: the task item and its runs. */
export const taskPartition = (tenantId: number, taskId: number): string => composeKey(tenantPartition(tenantId), 'TASK', padNumber(taskId));

export const taskSortKey = 'TASK';
export const taskKey = (tenantId: number, taskId: number): ItemKey => ({ pk: taskPartition(tenantId, taskId), sk: taskSortKey });

export const runSortKeyPrefix = 'RUN#';
/** One run of a task, keyed by its scheduled time (`<aws.scheduler.scheduled-time>`, whole seconds, UTC ISO 8601). */
export const runKey = (tenantId: number, taskId: number, scheduledTime: Date): ItemKey => ({
  pk: taskPartition(tenantId, taskId),
  sk: `${runSortKeyPrefix}${scheduledTime.toISOString()}`,
});

/** How many runs a task's answer lists, newest first: a contract bound. */
export { latestRunsShown } from '#shared/schemas/limits';

/** The index of tasks whose schedule is not known to be in line (sparse; the reconciler reads it). */
export { unsyncedTasksIndex };
/** Shards of its partition key: saves of all tenants write it, so no one key takes them all. A change is a migration. */
export const unsyncedShardCount = 4;
export const unsyncedPartition = (shard: number): string => `TASKSYNC#${shard}`;

/** The index attributes a save writes on the task item (and a successful sync removes). */
export const unsyncedKeys = (tenantId: number, taskId: number, savedAt: string): Record<string, string> => ({
  [unsyncedTasksIndex.partitionKey]: unsyncedPartition((tenantId + taskId) % unsyncedShardCount),
  [unsyncedTasksIndex.sortKey]: `${savedAt}#${tenantId}#${taskId}`,
});

/** The task an index entry names, or undefined when its sort key is not one of ours. */
export const unsyncedTaskOf = (sortKey: unknown): { tenantId: number; taskId: number; savedAt: string } | undefined => {
  const match = typeof sortKey === 'string' ? /^(.+)#(\d+)#(\d+)$/.exec(sortKey) : null;
  if (!match) return undefined;
  const tenantId = Number(match[2]);
  const taskId = Number(match[3]);
  return Number.isSafeInteger(tenantId) && Number.isSafeInteger(taskId) ? { tenantId, taskId, savedAt: match[1] as string } : undefined;
};
