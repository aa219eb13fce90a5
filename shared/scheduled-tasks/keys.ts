// Data layer: where scheduled tasks live in the single table. Each task has its own partition, holding the task
// item and one item per run, so a tenant's schedules never share one partition key's write capacity (1,000 WCU/s)
// and reading a task with its latest runs is one Query:
//
//   pk `T#<tenant>#TASK#<id>`  sk `TASK`                       the task (ScheduledTask fields, Version, secrets sealed)
//   pk `T#<tenant>#TASK#<id>`  sk `RUN#<scheduled time ISO>`   one run, written once (attribute_not_exists)
//
// `RUN#...` sorts before `TASK`, so a descending Query with Limit 21 reads the task and its latest 20 runs.
import { composeKey, padNumber, tenantPartition, type ItemKey } from '../data/partition';

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

/** How many runs a task's answer lists, newest first. */
export const latestRunsShown = 20;
