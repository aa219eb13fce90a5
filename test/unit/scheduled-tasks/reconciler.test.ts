// Unit tests of a reconciler pass with an injected clock, over the scheduled-task store's in-memory implementation
// (test/stores/scheduled-tasks/memory-task-store.ts, held to the DynamoDB repository by its contract suite, which
// lists every shard of the index page by page on DynamoDB Local): the tasks it takes (only those saved before the grace
// minute, shard by shard, oldest first), what it does with each (an index entry naming no task is counted, never
// reconciled), and when it stops (its time budget; a scheduler that is unavailable). The real index and scheduler:
// the integration test.
import { describe, expect, it } from '@jest/globals';
import { logger } from '#shared/observability/logger';
import { createScheduleReconciler } from '#shared/scheduled-tasks/reconciler';
import { ScheduleSyncFailed } from '#shared/scheduled-tasks/schedule-sync';
import type { ScheduledTaskStore, TaskRecord } from '#shared/scheduled-tasks/store';
import { createMemoryScheduledTaskStore } from '#test/stores/scheduled-tasks/memory-task-store';

logger.setLogLevel('SILENT');

const now = new Date('2026-03-01T12:00:00.000Z');

/** The in-memory store holding these tasks, each saved (out of line) at its time: `[tenantId, taskId, savedAt]`. */
const storeWith = async (tasks: ReadonlyArray<readonly [number, number, string]>) => {
  const { store } = createMemoryScheduledTaskStore();
  for (const [tenantId, taskId, savedAt] of tasks) {
    await store.write(tenantId, { task: { ID: taskId, Name: 'Export', Version: 1, ModifiedDateTime_utc: savedAt } as TaskRecord }, undefined);
  }
  return store;
};

describe('a reconciler pass', () => {
  it('takes the tasks saved before the grace minute, shard by shard and oldest first, and reconciles each; an entry naming no task is skipped', async () => {
    const store = await storeWith([
      [7, 2, '2026-03-01T11:50:00.000Z'],
      [3, 6, '2026-03-01T11:58:00.000Z'],
      [8, 3, '2026-03-01T11:55:00.000Z'],
      // Saved within the grace minute: left to the save that wrote it.
      [4, 4, '2026-03-01T11:59:30.000Z'],
    ]);
    // An index entry that names no task of ours (the port lists it as undefined), after the tasks.
    const tasks: Pick<ScheduledTaskStore, 'listOutOfLine'> = {
      async *listOutOfLine(savedBefore, pageSize) {
        yield* store.listOutOfLine(savedBefore, pageSize);
        yield undefined;
      },
    };
    const calls: Array<[number, number]> = [];
    const outcomes = new Map([['8/3', 'inLine' as const]]);
    const reconciler = createScheduleReconciler({
      tasks,
      clock: () => now,
      reconcileTask: async (tenantId, taskId) => {
        calls.push([tenantId, taskId]);
        return outcomes.get(`${tenantId}/${taskId}`) ?? 'synced';
      },
    });
    expect(await reconciler.reconcile()).toEqual({ listed: 4, synced: 2, skipped: 2, failed: 0, unfinished: false });
    expect(calls).toEqual([
      [7, 2],
      [3, 6],
      [8, 3],
    ]);
  });

  it('goes on past a task whose sync the scheduler refuses, and stops (unfinished) when the scheduler is unavailable to three tasks in a row', async () => {
    const tasks = await storeWith([
      [1, 3, '2026-03-01T11:00:00.000Z'],
      [1, 7, '2026-03-01T11:00:01.000Z'],
      [2, 2, '2026-03-01T11:00:02.000Z'],
      [2, 9, '2026-03-01T11:00:03.000Z'],
      [2, 5, '2026-03-01T11:00:04.000Z'],
    ]);
    const calls: number[] = [];
    const reconciler = createScheduleReconciler({
      tasks,
      clock: () => now,
      reconcileTask: async (_tenantId, taskId) => {
        calls.push(taskId);
        if (taskId === 3) throw new ScheduleSyncFailed('the scheduler refused the request (ValidationException)', { retryable: false });
        throw new ScheduleSyncFailed('the scheduler is unavailable (ThrottlingException)', { retryable: true });
      },
    });
    expect(await reconciler.reconcile()).toEqual({ listed: 4, synced: 0, skipped: 0, failed: 4, unfinished: true });
    expect(calls).toEqual([3, 7, 2, 9]);
  });

  it('goes on past one task whose scheduler calls keep failing (a schedule refused at the quota): the tasks after it are reached', async () => {
    const tasks = await storeWith([
      [1, 7, '2026-03-01T11:00:01.000Z'],
      [2, 2, '2026-03-01T11:00:02.000Z'],
      [2, 9, '2026-03-01T11:00:03.000Z'],
    ]);
    const calls: number[] = [];
    const reconciler = createScheduleReconciler({
      tasks,
      clock: () => now,
      reconcileTask: async (_tenantId, taskId) => {
        calls.push(taskId);
        if (taskId === 7) throw new ScheduleSyncFailed('the scheduler refused the request (ServiceQuotaExceededException)', { retryable: true });
        return 'synced';
      },
    });
    expect(await reconciler.reconcile()).toEqual({ listed: 3, synced: 2, skipped: 0, failed: 1, unfinished: false });
    expect(calls).toEqual([7, 2, 9]);
  });

  it('stops taking tasks once its time budget is spent; the next pass goes on', async () => {
    const tasks = await storeWith([
      [1, 1, '2026-03-01T11:00:00.000Z'],
      [1, 5, '2026-03-01T11:00:01.000Z'],
    ]);
    let clock = now.getTime();
    const reconciler = createScheduleReconciler({
      tasks,
      clock: () => new Date(clock),
      budgetMs: 10_000,
      reconcileTask: async () => {
        clock += 11_000;
        return 'synced';
      },
    });
    expect(await reconciler.reconcile()).toEqual({ listed: 2, synced: 1, skipped: 0, failed: 0, unfinished: true });
  });
});
