// Test support: the scheduled-task store port (shared/scheduled-tasks/store.ts `ScheduledTaskStore`) in memory, for
// fast unit tests of the service, the schedule sync and the reconciler. It passes the same contract suite as the
// DynamoDB repository (./task-store-contract.ts, in the unit tier against this store, in the integration tier against
// DynamoDB Local) and keeps the repository's conditions: a create only where no task is, an update only at the
// Version read (VersionConflict), the run-owned fields (fields.ts) kept by a save unless it clears them, an
// Idempotency-Key's claim taken with the write (../key-claims.ts), a schedule state only at its Version, and the
// reconciler's list ordered as its index orders it (keys.ts `unsyncedKeys`: shard by shard, oldest first).
import { VersionConflict } from '#shared/errors';
import { ValueInUse } from '#shared/data/sequence';
import { runOwnedFields } from '#shared/scheduled-tasks/fields';
import { unsyncedKeys, unsyncedTasksIndex } from '#shared/scheduled-tasks/keys';
import type { ScheduledTaskStore, StoredTask, TaskRecord } from '#shared/scheduled-tasks/store';
import { memoryKeyClaims } from '#test/stores/key-claims';
import { memorySequences } from '#test/stores/sequences';

const keyOf = (tenantId: number, id: number) => `${tenantId}/${id}`;

/** The in-memory store, with its state open to the tests: `items` by `<tenant>/<id>`, `sequences` by tenant. */
export const createMemoryScheduledTaskStore = () => {
  /** The stored tasks; `scheduleOutOfLine` true while the task is on the reconciler's index. */
  const items = new Map<string, StoredTask>();
  const ids = memorySequences();
  /** When each task was last saved: its index entry's time (the save's ModifiedDateTime_utc, as the repository's). */
  const savedAt = new Map<string, string>();
  const claims = memoryKeyClaims();

  /** A task as the repository reads it back: `scheduleOutOfLine` only when true. */
  const view = ({ scheduleOutOfLine, ...stored }: StoredTask): StoredTask => structuredClone(scheduleOutOfLine ? { ...stored, scheduleOutOfLine } : stored);

  const store: ScheduledTaskStore = {
    nextId: ids.next,

    giveBackId: ids.giveBack,

    get: async (tenantId, id) => {
      const stored = items.get(keyOf(tenantId, id));
      return stored ? view(stored) : undefined;
    },

    write: async (tenantId, next, read, clearRunState = false, claim) => {
      const key = keyOf(tenantId, next.task.ID);
      const stored = items.get(key);
      // The repository's order: the key's claim first, then the task.
      const takeClaim = claim ? claims.check(claim) : () => undefined;
      const asExpected = read === undefined ? stored === undefined : stored?.task.Version === read.Version && stored.task.LastRunDateTime_utc === read.LastRunDateTime_utc;
      if (!asExpected) throw read === undefined ? new ValueInUse('scheduled task ID', next.task.ID) : new VersionConflict();
      // An update leaves the run-owned fields as they are stored, unless the schedule changed.
      const task: Record<string, unknown> = { ...next.task };
      if (stored && !clearRunState) {
        for (const field of runOwnedFields) {
          delete task[field];
          if (stored.task[field] !== undefined) task[field] = stored.task[field];
        }
      }
      takeClaim();
      items.set(
        key,
        structuredClone({
          task: task as TaskRecord,
          ...(next.scheduleVersion !== undefined ? { scheduleVersion: next.scheduleVersion } : {}),
          ...(next.adaptor ? { adaptor: next.adaptor } : {}),
          scheduleOutOfLine: true,
        }),
      );
      savedAt.set(key, next.task.ModifiedDateTime_utc ?? new Date().toISOString());
    },

    setScheduleState: async (tenantId, id, version, state, restated) => {
      const restate = restated ? claims.check(restated) : () => undefined;
      const key = keyOf(tenantId, id);
      const stored = items.get(key);
      restate();
      if (!stored || stored.task.Version !== version) return false;
      // A task its run completed since keeps the state the run recorded.
      if (stored.task.Status === 'Completed' && stored.task.ScheduleState !== state) return false;
      // Pending puts a task back on the list (listed from now) when a confirmed state had taken it off.
      if (state === 'Pending' && !stored.scheduleOutOfLine) savedAt.set(key, new Date().toISOString());
      items.set(key, { ...stored, task: { ...stored.task, ScheduleState: state }, scheduleOutOfLine: state === 'Pending' });
      return true;
    },

    async *listOutOfLine(savedBefore) {
      const listed = [...items.entries()]
        .filter(([, stored]) => stored.scheduleOutOfLine)
        .map(([key]) => {
          const [tenantId, taskId] = key.split('/').map(Number) as [number, number];
          const entry = unsyncedKeys(tenantId, taskId, savedAt.get(key) ?? items.get(key)?.task.ModifiedDateTime_utc ?? '');
          return { tenantId, taskId, shard: entry[unsyncedTasksIndex.partitionKey] as string, sortKey: entry[unsyncedTasksIndex.sortKey] as string };
        })
        .filter((entry) => entry.sortKey < savedBefore)
        .sort((left, right) => (left.shard === right.shard ? (left.sortKey < right.sortKey ? -1 : 1) : left.shard < right.shard ? -1 : 1));
      for (const { tenantId, taskId } of listed) yield { tenantId, taskId };
    },
  };
  return { store, items, sequences: ids.values };
};
