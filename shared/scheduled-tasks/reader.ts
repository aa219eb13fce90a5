// Domain wiring: the scheduled-task reader of the get function (no cipher, no scheduler, no queue), created once.
import { defaultTable } from '../data/client';
import { createScheduledTaskRepository } from './repository';
import { latestRuns } from './runs';
import { createScheduledTaskReader } from './service';

let reader: ReturnType<typeof createScheduledTaskReader> | undefined;

export const scheduledTaskReader = () => {
  const table = defaultTable();
  reader ??= createScheduledTaskReader({ repository: createScheduledTaskRepository(table), latestRuns: (tenantId, taskId) => latestRuns(table, tenantId, taskId) });
  return reader;
};
