// Entry: the schedule-sync queue's consumer. A ScheduleSyncMessage (queued by a save whose scheduler call failed)
// brings that task's schedule in line with the stored task and records its ScheduleState; a message older than the
// stored version syncs the newest version too (its own sync's write may have landed after a newer save's). A ScheduleReconcileMessage (the reconciler's own schedule, every few minutes) runs
// one pass of the reconciler over the tasks whose schedule is not known to be in line (a save that died between
// its commit and its sync). A record that fails (the scheduler is still down) is reported in the partial batch
// response and comes back after the visibility timeout; after its last receive it goes to the DLQ.
import { scheduleSyncQueue } from '#shared/events/queues';
import { consumer } from '#shared/messaging/consumer';
import { describeError, logger } from '#shared/observability/logger';
import { countMetric } from '#shared/observability/metrics';
import { scheduleReconciler, scheduleSyncRetrier } from '#shared/scheduled-tasks/wiring';
import type { ReconcileReport } from '#shared/scheduled-tasks/reconciler';
import type { ScheduleSyncRequest } from '#shared/scheduled-tasks/service';

export type ScheduleSyncRetry = (request: ScheduleSyncRequest) => Promise<'synced' | 'stale' | 'gone'>;
export type ScheduleReconcile = () => Promise<ReconcileReport>;

const syncOutcomes = { synced: 'Synced', stale: 'Stale', gone: 'Gone' } as const;

/** The consumer over any retry and reconciler (the real ones; tests pass one whose scheduler fails). */
export const createScheduleSyncConsumer = (retrySync: ScheduleSyncRetry, reconcile: ScheduleReconcile = () => scheduleReconciler().reconcile()) =>
  consumer(scheduleSyncQueue, async (message, { messageId, receiveCount }) => {
    if ('reconcile' in message) {
      const report = await reconcile();
      logger.info('schedule reconciliation pass', { messageId, firing: message.reconcile, ...report, receiveCount });
      return;
    }
    try {
      const outcome = await retrySync(message);
      countMetric('scheduleSyncRetries', syncOutcomes[outcome]);
      logger.info('schedule sync retried', { messageId, taskId: message.taskId, version: message.version, outcome, receiveCount });
    } catch (error) {
      countMetric('scheduleSyncRetries', 'Failed');
      logger.warn('schedule sync still failing; the message returns to the queue', { taskId: message.taskId, version: message.version, receiveCount, ...describeError(error) });
      throw error;
    }
  });

export const handler = createScheduleSyncConsumer((request) => scheduleSyncRetrier().retrySync(request));
