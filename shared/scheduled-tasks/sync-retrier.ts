// Domain wiring: the schedule-sync consumer's work, created once: the retry of one task's sync (reads the task, syncs
// its schedule) and the reconciler's pass over the tasks whose schedule is not known to be in line.
import { defaultTable } from '../data/client';
import { taskRunsQueue } from '../events/queues';
import { createPublisher } from '../messaging/publisher';
import type { TaskRunMessage } from './messages';
import { createScheduleReconciler, type ScheduleReconciler } from './reconciler';
import { createScheduledTaskRepository } from './repository';
import { syncSchedule } from './schedules';
import { createScheduleSyncRetrier } from './service';

let retrier: ReturnType<typeof createScheduleSyncRetrier> | undefined;
let reconciler: ScheduleReconciler | undefined;
/** The task-runs queue's URL comes with the sendTaskRuns grant; read when a run is overdue. */
const fireOverdue = createPublisher<TaskRunMessage>({ queue: taskRunsQueue, what: 'task run' });

export const scheduleSyncRetrier = () => {
  retrier ??= createScheduleSyncRetrier({
    repository: createScheduledTaskRepository(defaultTable()),
    syncSchedule,
    fireOverdue,
  });
  return retrier;
};

export const scheduleReconciler = (): ScheduleReconciler => {
  reconciler ??= createScheduleReconciler({ table: defaultTable(), reconcileTask: scheduleSyncRetrier().reconcileTask });
  return reconciler;
};
