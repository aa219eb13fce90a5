// Scheduled tasks: the schedule reconciler. A save commits the task, then syncs its schedule; a process that dies in
// between (a timeout, a crash) leaves the task without the schedule it says it has until its next save. Every save
// puts the task item on a sparse index (keys.ts `unsyncedKeys`, gsi6) and a sync that succeeds takes it off, so the
// index lists exactly the tasks whose schedule is not known to be in line. The reconciler reads it, oldest first,
// and syncs each task again through the same step as the schedule-sync retry (`reconcileTask`): the task is read
// again strongly consistent (a GSI is eventually consistent on AWS: an entry may be stale, the task in line
// already, gone or of a newer version) and its state recorded conditional on the Version read. It runs on a schedule
// of its own (`reconcilerSchedule`: EventBridge Scheduler, emulated locally), whose firing is a
// ScheduleReconcileMessage on the schedule-sync queue; that queue's consumer runs it.
import { describeError, logger } from '#shared/observability/logger';
import { ScheduleSyncFailed } from './schedule-sync';
import type { ScheduledTaskStore } from './store';

/** What one pass did (logged by the consumer; tests read it). */
export interface ReconcileReport {
  /** Index entries read. */
  readonly listed: number;
  /** Tasks whose schedule was synced and recorded. */
  readonly synced: number;
  /** Entries whose task was in line already, gone, or saved again meanwhile (a stale index entry, or a newer save). */
  readonly skipped: number;
  /** Tasks whose sync failed (they stay listed: the next pass tries again). */
  readonly failed: number;
  /** The pass stopped before the end of the index (its time budget, or the scheduler unavailable). */
  readonly unfinished: boolean;
}

export interface ScheduleReconcilerOptions {
  /** The tasks' store: the reconciler reads its list of tasks out of line (`listOutOfLine`). */
  readonly tasks: Pick<ScheduledTaskStore, 'listOutOfLine'>;
  /** One task's step (service.ts `createScheduleSyncRetrier(...).reconcileTask`). */
  readonly reconcileTask: (tenantId: number, taskId: number) => Promise<'synced' | 'stale' | 'gone' | 'inLine'>;
  readonly clock?: () => Date;
  /**
   * Entries younger than this are left to the save that wrote them (its own sync is bounded to a few seconds inside
   * the function's 10 s timeout). Default one minute.
   */
  readonly graceMs?: number;
  /** A pass stops taking tasks after this long (the consumer's timeout is 30 s); the next pass goes on. */
  readonly budgetMs?: number;
  readonly pageSize?: number;
}

/** Retryable failures in a row (tasks whose scheduler calls all failed) after which a pass takes the scheduler for unavailable. */
const unavailableAfter = 3;

export const createScheduleReconciler = ({
  tasks,
  reconcileTask,
  clock = () => new Date(),
  graceMs = 60_000,
  budgetMs = 15_000,
  pageSize = 100,
}: ScheduleReconcilerOptions) => ({
  async reconcile(): Promise<ReconcileReport> {
    const started = clock().getTime();
    const before = new Date(started - graceMs).toISOString();
    let listed = 0;
    let synced = 0;
    let skipped = 0;
    let failed = 0;
    let unavailableInARow = 0;
    const report = (unfinished: boolean): ReconcileReport => ({ listed, synced, skipped, failed, unfinished });
    for await (const task of tasks.listOutOfLine(before, pageSize)) {
      listed += 1;
      if (!task) {
        skipped += 1;
        continue;
      }
      if (clock().getTime() - started > budgetMs) return report(true);
      try {
        const outcome = await reconcileTask(task.tenantId, task.taskId);
        if (outcome === 'synced') synced += 1;
        else skipped += 1;
      } catch (error) {
        failed += 1;
        logger.warn('schedule reconciliation of a task failed; the next pass retries it', { tenantId: task.tenantId, taskId: task.taskId, ...describeError(error) });
        // Several tasks in a row unable to reach the scheduler: it is unavailable, and every other task would fail the
        // same way; the next pass goes on. One task alone (a schedule refused at the quota, say) does not stop the
        // pass: stopping at the first would have every pass start and end at that task, the others never reached.
        if (error instanceof ScheduleSyncFailed && error.retryable) {
          unavailableInARow += 1;
          if (unavailableInARow >= unavailableAfter) return report(true);
        } else {
          unavailableInARow = 0;
        }
        continue;
      }
      unavailableInARow = 0;
    }
    return report(false);
  },
});

export type ScheduleReconciler = ReturnType<typeof createScheduleReconciler>;
