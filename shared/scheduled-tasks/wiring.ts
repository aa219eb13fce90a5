// Wiring: builds the area's clients, repository and services once per process (a Lambda cold start); the handlers
// import from here and nothing else of the area's construction. Each builder is lazy and builds only what its
// function uses, so a bundle keeps only its own (esbuild drops what a handler never reaches: the get's bundle holds
// neither the scheduler client nor the SQS client, and no function loads the Encryption SDK before a save seals).
import type { SecretCipher } from '#shared/crypto/envelope';
import { kmsClients } from '#shared/crypto/kms-client';
import { defaultTable } from '#shared/data/client';
import { createIdempotency, type Idempotency } from '#shared/data/idempotency';
import { taskRunsQueue } from '#shared/events/queues';
import { environmentValue, environmentVariables } from '#shared/environment';
import { createPublisher } from '#shared/messaging/publisher';
import type { TaskRunMessage } from './messages';
import { createScheduleReconciler, type ScheduleReconciler } from './reconciler';
import { createScheduledTaskRepository } from './repository';
import { syncSchedule } from './schedule-sync';
import { createScheduledTaskReader, createScheduledTaskService, createScheduleSyncRetrier, type ScheduledTaskService } from './service';
import type { ScheduledTaskStore } from './store';
import { createScheduleSyncPublisher } from './sync-requests';

let repository: ScheduledTaskStore | undefined;
const taskRepository = (): ScheduledTaskStore => (repository ??= createScheduledTaskRepository(defaultTable()));

/**
 * The cipher, loaded on first use: the AWS Encryption SDK (with its KMS client and big-number library: about 40 % of
 * the save's bundle) is loaded only by a save that seals or opens a credential. `#lazy/secret-cipher` (package.json
 * "imports") is shared/crypto/envelope.ts under tsx and jest, and on Lambda a chunk of its own beside the function's
 * bundle (infra/build/lazy-chunks.mjs), so a save without a credential (most saves) neither parses nor evaluates it
 * (test/bench/section-scheduled-tasks.ts measures both). envelope.ts imports nothing of ours: the chunk holds no
 * second copy of a class the rest of the function checks with instanceof. Its KMS client is the bundle's
 * (crypto/kms-client.ts), so the chunk holds no second copy of the AWS SDK either.
 */
let cipher: Promise<SecretCipher> | undefined;
const loadCipher = (keyArn: string): Promise<SecretCipher> => (cipher ??= import('#lazy/secret-cipher').then((envelope) => envelope.secretCipher(keyArn, kmsClients())));

let service: ScheduledTaskService | undefined;

/** The save's service: seals (sealSecrets), syncs the schedule (manageSchedules) and queues retries (sendScheduleSync). */
export const scheduledTaskService = (): ScheduledTaskService => {
  // The key's ARN is read at start-up (its grant, sealSecrets, sets it; the function's load checks it): a function
  // without it fails its cold start instead of answering 500 to the first save with a credential.
  const keyArn = environmentValue(environmentVariables.secretFieldsKey);
  service ??= createScheduledTaskService({
    repository: taskRepository(),
    cipher: {
      seal: async (plaintext, context) => (await loadCipher(keyArn)).seal(plaintext, context),
      open: async (sealed, context) => (await loadCipher(keyArn)).open(sealed, context),
    },
    syncSchedule,
    requestSync: createScheduleSyncPublisher(),
  });
  return service;
};

export { idempotencyKeyHeader } from '#shared/data/idempotency';
export { keyedRequestOf } from './service';

/**
 * Idempotency-Key handling of the save: the key's claim is written in the task's own write. Its answer holds no
 * secret (a task's answer shows a credential only as `Has<Field>`: task-view.ts), so it is kept whole.
 */
export const scheduledTaskIdempotency = (operationId: string): Idempotency => createIdempotency(defaultTable(), operationId);

let reader: ReturnType<typeof createScheduledTaskReader> | undefined;

/** The get's reader: the task and its latest runs in one Query (no cipher, no scheduler, no queue). */
export const scheduledTaskReader = () => (reader ??= createScheduledTaskReader({ repository: taskRepository() }));

let retrier: ReturnType<typeof createScheduleSyncRetrier> | undefined;
let reconciler: ScheduleReconciler | undefined;

/** The schedule-sync consumer's retry of one task's sync (reads the task, syncs its schedule, records its state). */
export const scheduleSyncRetrier = () => {
  retrier ??= createScheduleSyncRetrier({
    repository: taskRepository(),
    syncSchedule,
    // The task-runs queue's URL comes with the sendTaskRuns grant (checked when the function loads). Built here, not
    // at module scope, so that the get (which imports this module too) bundles no SQS client.
    fireOverdue: createPublisher<TaskRunMessage>({ queue: taskRunsQueue, what: 'task run' }),
  });
  return retrier;
};

/** The reconciler's pass over the tasks whose schedule is not known to be in line (the same consumer). */
export const scheduleReconciler = (): ScheduleReconciler => {
  reconciler ??= createScheduleReconciler({ tasks: taskRepository(), reconcileTask: scheduleSyncRetrier().reconcileTask });
  return reconciler;
};
