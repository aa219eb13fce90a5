// Domain wiring: the schedule-sync retry of the schedule-sync consumer (reads the task, syncs its schedule), created once.
import { defaultTable } from '../data/client';
import { createScheduledTaskRepository } from './repository';
import { syncSchedule } from './schedules';
import { createScheduleSyncRetrier } from './service';

let retrier: ReturnType<typeof createScheduleSyncRetrier> | undefined;

export const scheduleSyncRetrier = () => {
  retrier ??= createScheduleSyncRetrier({ repository: createScheduledTaskRepository(defaultTable()), syncSchedule });
  return retrier;
};
