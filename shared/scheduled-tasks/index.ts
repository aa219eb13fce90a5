// Domain wiring: the scheduled-task service of the save function, over the function's table, created once per
// process. The save seals (sealSecrets), syncs the schedule (manageSchedules) and queues retries (sendScheduleSync).
// The get (reader.ts) and the schedule-sync consumer (sync-retrier.ts) have their own wiring, so their bundles load
// neither the Encryption SDK nor what they have no grant for.
import type { SecretCipher } from '../crypto/envelope';
import { defaultTable, requireEnv } from '../data/client';
import { scheduleSyncQueue } from '../events/queues';
import { createScheduledTaskRepository } from './repository';
import { latestRuns } from './runs';
import { syncSchedule } from './schedules';
import { createScheduledTaskService, type ScheduledTaskService } from './service';
import { createScheduleSyncPublisher } from './sync-requests';

let service: ScheduledTaskService | undefined;

/**
 * The cipher, loaded on first use: the AWS Encryption SDK (with its KMS client and big-number library: about 40 % of
 * the save's bundle) is loaded only by a save that seals or opens a credential. `#lazy/secret-cipher` (package.json
 * "imports") is shared/crypto/envelope.ts under tsx and jest, and on Lambda a chunk of its own beside the function's
 * bundle (infra/build/lazy-chunks.mjs), so a save without a credential (most saves) neither parses nor evaluates it
 * (test/bench/section-scheduled-tasks.ts measures both). envelope.ts imports nothing of ours: the chunk holds no
 * second copy of a class the rest of the function checks with instanceof.
 */
let cipher: Promise<SecretCipher> | undefined;
const loadCipher = (): Promise<SecretCipher> => (cipher ??= import('#lazy/secret-cipher').then((envelope) => envelope.secretCipher()));

export const scheduledTaskService = (): ScheduledTaskService => {
  // The key's setting is checked at start-up all the same (its grant, sealSecrets, sets it): a function
  // without it fails fast instead of answering 500 to the first save with a credential.
  if (!process.env.SECRET_FIELDS_KEY_ARN) {
    throw new Error('Environment variable SECRET_FIELDS_KEY_ARN must be set');
  }
  service ??= createScheduledTaskService({
    repository: createScheduledTaskRepository(defaultTable()),
    cipher: {
      seal: async (plaintext, context) => (await loadCipher()).seal(plaintext, context),
      open: async (sealed, context) => (await loadCipher()).open(sealed, context),
    },
    syncSchedule,
    requestSync: createScheduleSyncPublisher(requireEnv(scheduleSyncQueue.urlVariable)),
    latestRuns: (tenantId, taskId) => latestRuns(defaultTable(), tenantId, taskId),
  });
  return service;
};
