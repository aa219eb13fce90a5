// Domain wiring: the schedule-sync consumer's work, created once: the retry of one task's sync (reads the task, syncs
// its schedule) and the reconciler's pass over the tasks whose schedule is not known to be in line.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { defaultTable, requireEnv } from '../data/client';
import { taskRunsQueue } from '../events/queues';
import { createScheduleReconciler, type ScheduleReconciler } from './reconciler';
import { createScheduledTaskRepository } from './repository';
import { syncSchedule } from './schedules';
import { createScheduleSyncRetrier } from './service';

let retrier: ReturnType<typeof createScheduleSyncRetrier> | undefined;
let reconciler: ScheduleReconciler | undefined;
let sqs: SQSClient | undefined;

export const scheduleSyncRetrier = () => {
  retrier ??= createScheduleSyncRetrier({
    repository: createScheduledTaskRepository(defaultTable()),
    syncSchedule,
    // The task-runs queue's URL comes with the sendTaskRuns grant; read when a run is overdue.
    fireOverdue: async (run) => {
      sqs ??= new SQSClient({});
      await sqs.send(new SendMessageCommand({ QueueUrl: requireEnv(taskRunsQueue.urlVariable), MessageBody: JSON.stringify(run) }));
    },
  });
  return retrier;
};

export const scheduleReconciler = (): ScheduleReconciler => {
  reconciler ??= createScheduleReconciler({ table: defaultTable(), reconcileTask: scheduleSyncRetrier().reconcileTask });
  return reconciler;
};
