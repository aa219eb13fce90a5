// Test support: the task-run store port (shared/scheduled-tasks/store.ts `TaskRunStore`) in memory, for fast unit
// tests of the run recorder (runs.ts). It passes the same contract suite as the DynamoDB repository
// (./run-store-contract.ts, in the unit tier against this store, in the integration tier against DynamoDB Local) and
// keeps the repository's conditions as its transaction does: a run is put only if new, or over a StaleVersion skip of
// an older Version (`recordsOver`; else RunAlreadyRecorded), the task's
// advance only if the task still has the Version and the LastRun/NextRun read (else ConcurrentModification),
// both or neither; a lease is taken only from its holder, on a run not published yet.
import { ConcurrentModification } from '#shared/errors';
import { runKey } from '#shared/scheduled-tasks/keys';
import { publicRun } from '#shared/scheduled-tasks/runs';
import { recordsOver, RunAlreadyRecorded, type StoredRun, type StoredTaskState, type TaskFiring, type TaskRunStore } from '#shared/scheduled-tasks/store';
import { latestRunsShown } from '#shared/schemas/limits';

type MutableTaskState = { -readonly [K in keyof StoredTaskState]: StoredTaskState[K] };

const taskKeyOf = (tenantId: number, taskId: number) => `${tenantId}/${taskId}`;
const runKeyOf = (firing: Pick<TaskFiring, 'tenantId' | 'taskId' | 'scheduledTime'>) => {
  const { pk, sk } = runKey(firing.tenantId, firing.taskId, firing.scheduledTime);
  return `${pk}\u0000${sk}`;
};

/** DynamoDB's answer to an Update whose condition failed outside a transaction (the SDK's error name). */
const conditionFailed = () => Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

export const createMemoryTaskRunStore = (): TaskRunStore & {
  /** Stores a task's state as a save would have left it. */
  seedTask(tenantId: number, taskId: number, state: StoredTaskState): Promise<void>;
} => {
  const tasks = new Map<string, MutableTaskState>();
  const runs = new Map<string, { readonly tenantId: number; readonly taskId: number; readonly sortKey: string; run: StoredRun }>();
  return {
    seedTask: async (tenantId, taskId, state) => void tasks.set(taskKeyOf(tenantId, taskId), structuredClone(state)),

    readTaskState: async (tenantId, taskId) => structuredClone(tasks.get(taskKeyOf(tenantId, taskId))),

    readRun: async (firing) => structuredClone(runs.get(runKeyOf(firing))?.run),

    async record(firing, run, advance) {
      // Both conditions first, in the transaction's order, then both writes.
      if (!recordsOver(runs.get(runKeyOf(firing))?.run, run)) throw new RunAlreadyRecorded();
      const task = tasks.get(taskKeyOf(firing.tenantId, firing.taskId));
      if (advance) {
        const { read } = advance;
        if (!task || task.Version !== read.Version || task.LastRunDateTime_utc !== read.LastRunDateTime_utc || task.NextRunDateTime_utc !== read.NextRunDateTime_utc) {
          throw new ConcurrentModification();
        }
      }
      runs.set(runKeyOf(firing), { tenantId: firing.tenantId, taskId: firing.taskId, sortKey: runKey(firing.tenantId, firing.taskId, firing.scheduledTime).sk, run: JSON.parse(JSON.stringify(run)) as StoredRun });
      if (advance && task) {
        const { LastRunDateTime_utc, NextRunDateTime_utc, completed } = advance.advance;
        if (LastRunDateTime_utc !== undefined) task.LastRunDateTime_utc = LastRunDateTime_utc;
        if (NextRunDateTime_utc !== undefined) task.NextRunDateTime_utc = NextRunDateTime_utc;
        else delete task.NextRunDateTime_utc;
        if (completed) Object.assign(task, completed);
      }
    },

    async markPublished(firing, at) {
      const stored = runs.get(runKeyOf(firing));
      if (!stored) throw conditionFailed();
      const { PublishLeaseId: _id, PublishLeaseUntil: _until, ...run } = stored.run;
      stored.run = { ...run, PublishedDateTime_utc: at };
    },

    async takePublishLease(firing, theirs, leaseId, until) {
      const stored = runs.get(runKeyOf(firing));
      if (!stored || stored.run.PublishedDateTime_utc !== undefined || stored.run.PublishLeaseId === undefined || stored.run.PublishLeaseId !== theirs) return false;
      stored.run = { ...stored.run, PublishLeaseId: leaseId, PublishLeaseUntil: until };
      return true;
    },

    latestRuns: async (tenantId, taskId, limit = latestRunsShown) =>
      [...runs.values()]
        .filter((stored) => stored.tenantId === tenantId && stored.taskId === taskId)
        .sort((left, right) => (left.sortKey < right.sortKey ? 1 : -1))
        .slice(0, limit)
        .map((stored) => publicRun(stored.run)),
  };
};
