// Domain wiring: the scheduled-task service of the save function, over the function's table, created once per
// process. The save seals (sealSecrets), syncs the schedule (manageSchedules) and queues retries (sendScheduleSync).
// The get (reader.ts) and the schedule-sync consumer (sync-retrier.ts) have their own wiring, so their bundles load
// neither the Encryption SDK nor what they have no grant for.
import { secretCipher } from '../crypto/envelope';
import { defaultTable, requireEnv } from '../data/client';
import { scheduleSyncQueue } from '../events/queues';
import { createScheduledTaskRepository } from './repository';
import { latestRuns } from './runs';
import { syncSchedule } from './schedules';
import { createScheduledTaskService, type ScheduledTaskService } from './service';
import { createScheduleSyncPublisher } from './sync-requests';

let service: ScheduledTaskService | undefined;

export const scheduledTaskService = (): ScheduledTaskService => {
  service ??= createScheduledTaskService({
    repository: createScheduledTaskRepository(defaultTable()),
    // The cipher reads its key (KMS ARN or local key) on first use: a save without secrets never needs it.
    cipher: { seal: (plaintext, context) => secretCipher().seal(plaintext, context), open: (sealed, context) => secretCipher().open(sealed, context) },
    syncSchedule,
    requestSync: createScheduleSyncPublisher(requireEnv(scheduleSyncQueue.urlVariable)),
    latestRuns: (tenantId, taskId) => latestRuns(defaultTable(), tenantId, taskId),
  });
  return service;
};
