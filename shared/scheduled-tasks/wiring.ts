// Wiring: builds the area's clients, repository and services once per process (a Lambda cold start); the handlers
// import from here and nothing else of the area's construction. Each builder is lazy and builds only what its
// function uses, so a bundle keeps only its own (esbuild drops what a handler never reaches: the get's bundle holds
// neither the scheduler client nor the SQS client, and no function loads the Encryption SDK unless a secret needs it).
import { kmsClients } from '#shared/crypto/kms-client';
import { keyRegionOf, secretFieldsCipher, type SecretCipher } from '#shared/crypto/secret-cipher';
import { defaultTable } from '#shared/data/client';
import { createIdempotency, provisionalWaitMs, type Idempotency } from '#shared/data/idempotency';
import { taskRunsQueue } from '#shared/events/queues';
import { environmentValue, environmentVariables } from '#shared/environment';
import { createPublisher } from '#shared/messaging/publisher';
import type { TaskRunMessage } from './messages';
import { createScheduleReconciler, type ScheduleReconciler } from './reconciler';
import { createScheduledTaskRepository } from './repository';
import { schedulerCallBoundMs, syncSchedule } from './schedule-sync';
import { createScheduledTaskReader, createScheduledTaskService, createScheduleSyncRetrier, type ScheduledTaskService } from './service';
import type { ScheduledTaskStore } from './store';
import { createScheduleSyncPublisher } from './sync-requests';

let repository: ScheduledTaskStore | undefined;
const taskRepository = (): ScheduledTaskStore => (repository ??= createScheduledTaskRepository(defaultTable()));

/**
 * The secret-fields cipher (crypto/secret-cipher.ts): KMS Encrypt and Decrypt directly for a secret of up to 4 KiB,
 * with the function's own KMS client (crypto/kms-client.ts). The AWS Encryption SDK (with its big-number library)
 * is loaded only for a longer secret, or to open one sealed before issue 23: `#lazy/secret-cipher` (package.json
 * "imports") is shared/crypto/envelope.ts under tsx and jest, and on Lambda a chunk of its own beside the function's
 * bundle (infra/build/lazy-chunks.mjs), so a save of ordinary credentials neither parses nor evaluates it
 * (test/bench/section-scheduled-tasks.ts measures saves with and without them). The chunk is given the same KMS
 * clients, so it holds no second copy of the AWS SDK.
 */
let cipher: SecretCipher | undefined;
const secretCipher = (keyArn: string): SecretCipher => {
  if (cipher) return cipher;
  const kms = kmsClients();
  const region = keyRegionOf(keyArn);
  let envelope: Promise<SecretCipher> | undefined;
  cipher = secretFieldsCipher({
    keyArn,
    // The client is made on the first seal or open, not at load: most saves carry no credential.
    kms: { encrypt: (input) => kms(region).encrypt(input), decrypt: (input) => kms(region).decrypt(input) },
    envelope: () => (envelope ??= import('#lazy/secret-cipher').then((module) => module.secretCipher(keyArn, kms))),
  });
  return cipher;
};

let service: ScheduledTaskService | undefined;

/** The save's service: seals (sealSecrets), syncs the schedule (manageSchedules) and queues retries (sendScheduleSync). */
export const scheduledTaskService = (): ScheduledTaskService => {
  // The key's ARN is read at start-up (its grant, sealSecrets, sets it; the function's load checks it): a function
  // without it fails its cold start instead of answering 500 to the first save with a credential.
  const keyArn = environmentValue(environmentVariables.secretFieldsKey);
  service ??= createScheduledTaskService({
    repository: taskRepository(),
    cipher: secretCipher(keyArn),
    syncSchedule,
    requestSync: createScheduleSyncPublisher(),
  });
  return service;
};

export { idempotencyKeyHeader } from '#shared/data/idempotency';
export { keyedRequestOf } from './service';

/**
 * Idempotency-Key handling of the save: the key's claim is written in the task's own write. Its answer holds no
 * secret (a task's answer shows a credential only as `Has<Field>`: task-view.ts), so it is kept whole. The answer is
 * provisional until the schedule sync restates it: a twin waits for it as long as a scheduler call may take, and
 * never less than the data kit's wait.
 */
export const scheduledTaskIdempotency = (operationId: string): Idempotency =>
  createIdempotency(defaultTable(), operationId, undefined, { waitMs: Math.max(provisionalWaitMs, schedulerCallBoundMs) });

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
    // A delayed retry of a newer version a failed step listed again (service.ts `relistNewer`): the sendScheduleSync grant.
    requestSync: createScheduleSyncPublisher(),
    retryRelisted: true,
  });
  return retrier;
};

/** The reconciler's pass over the tasks whose schedule is not known to be in line (the same consumer). */
export const scheduleReconciler = (): ScheduleReconciler => {
  reconciler ??= createScheduleReconciler({ tasks: taskRepository(), reconcileTask: scheduleSyncRetrier().reconcileTask });
  return reconciler;
};
