// Scheduled tasks: a task's one EventBridge Scheduler schedule (contract C1). The table is the source of truth; this
// module only brings the schedule in line with a stored task: created or replaced (UpdateSchedule replaces the whole
// definition) while the task is enabled, active and has a run left, deleted otherwise. Its definition comes from
// recurrence.ts (`scheduleFor`), its target is the task-runs queue with the scheduler's execution role, and its
// Input is the task's TaskRunMessage (messages.ts). Configuration comes from the `manageSchedules` grant's
// environment (shared/operations/grants.ts); locally the same SDK client reaches the scheduler emulation.
import { createHash, randomBytes } from 'node:crypto';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
  type GetScheduleCommandOutput,
} from '@aws-sdk/client-scheduler';
import { environmentValue } from '#shared/environment';
import { schedulerEnvironment } from '#shared/operations/environment';
import { scheduleFor, type Recurrence } from './recurrence';
import { taskRunInput } from './messages';
import { awsRequestHandler, serviceClient } from '#shared/aws-requests';

/** What the scheduler is told about a task (contract C1). `enabled` = IsEnabled && IsActive. */
export interface TaskSchedule {
  readonly tenantId: number;
  readonly taskId: number;
  readonly version: number;
  readonly recurrence: Recurrence;
  readonly enabled: boolean;
  /**
   * The version of the save that last changed the schedule's fields (the task's ScheduleVersion), when the sync is of
   * a stored task: a schedule that is the request but for sending a version from this one to `version` is in line
   * (a save since kept it: a rename), and is not written again. Written again, a rate() schedule got a new StartDate
   * and lost the run of its first period (a review of the older retries, which sync the newest version).
   */
  readonly keptSince?: number;
}

/** The schedule's state after a sync: `Disabled` means the task has no schedule (deleted, or never created). */
export type ScheduleState = 'Enabled' | 'Disabled';

/**
 * The scheduler could not be reached, or refused the request. `retryable` tells an outage or throttling (the sync
 * may succeed later) from a refusal (access, validation: it will not, without a fix). The message never carries
 * the task's data; the SDK error is the `cause`.
 */
export class ScheduleSyncFailed extends Error {
  readonly retryable: boolean;
  constructor(reason: string, options: { retryable: boolean; cause?: unknown }) {
    super(`The task's schedule could not be synchronised: ${reason}.`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ScheduleSyncFailed';
    this.retryable = options.retryable;
  }
}

/** Where schedules go and what they send with, from the manageSchedules grant's environment. */
export interface SchedulerSettings {
  readonly groupName: string;
  readonly targetQueueArn: string;
  readonly deadLetterQueueArn: string;
  readonly executionRoleArn: string;
}

/**
 * Delivery retries of a firing before it goes to the DLQ: for up to a day (a one-off task's only run must survive
 * an SQS incident; the runs consumer skips a recurring run older than one interval as a misfire anyway), with the
 * scheduler's maximum number of attempts in that day.
 */
export const scheduleRetryPolicy = { MaximumEventAgeInSeconds: 24 * 60 * 60, MaximumRetryAttempts: 185 } as const;

/** `t<tenant>-task<id>`: one schedule per task, unique within the stage's group. */
export const scheduleNameOf = (tenantId: number, taskId: number): string => `t${tenantId}-task${taskId}`;

/**
 * The ClientToken of a request: the operation, the task, its version, a digest of the request and the sync that
 * sends it (`sync`, one per `syncScheduleWith` call). The SDK's retry of a request is the same command, so it is
 * applied once, and so is the first attempt landing late after it (the scheduler answers a token it has seen as
 * before, applying nothing). Each sync is a new request: a sync that follows another one of the same version (a
 * save's sync after an older save's write overwrote it, the retry, the reconciler) must be applied, not answered
 * as already done. With one token per version and request it was not: an older save's UpdateSchedule, retried by
 * the SDK after a timeout, landed after the newer save's, and the newer version's second sync replayed its token
 * and wrote nothing, leaving the schedule on the older version (test/chaos/scheduled-tasks.test.ts, overlapping
 * edits). At most 64 characters of [A-Za-z0-9-_], as the API requires.
 */
export const clientTokenOf = (
  operation: 'create' | 'update' | 'delete',
  task: Pick<TaskSchedule, 'tenantId' | 'taskId' | 'version'>,
  request: unknown,
  sync: string,
): string => {
  const digest = createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 12);
  return `${operation[0]}-${task.tenantId}-${task.taskId}-v${task.version}-${digest}-${sync}`;
};

/** One sync's part of its requests' ClientTokens (`clientTokenOf`): 12 random hex digits. */
const newSyncId = (): string => randomBytes(6).toString('hex');

/** The whole schedule request for an enabled task at `now`, or undefined when the task has no run left. */
export const scheduleRequestOf = (
  task: TaskSchedule,
  settings: SchedulerSettings,
  now: Date,
): Omit<CreateScheduleCommandInput, 'ClientToken'> | undefined => {
  if (!task.enabled) return undefined;
  const definition = scheduleFor(task.recurrence, now);
  if (!definition) return undefined;
  return {
    Name: scheduleNameOf(task.tenantId, task.taskId),
    GroupName: settings.groupName,
    Description: `Scheduled task ${task.taskId} of tenant ${task.tenantId}, version ${task.version}`,
    ScheduleExpression: definition.ScheduleExpression,
    ScheduleExpressionTimezone: definition.ScheduleExpressionTimezone,
    ...(definition.StartDate ? { StartDate: definition.StartDate } : {}),
    ...(definition.ActionAfterCompletion ? { ActionAfterCompletion: definition.ActionAfterCompletion } : {}),
    State: 'ENABLED',
    // Runs are due at their minute: no flexible window.
    FlexibleTimeWindow: { Mode: 'OFF' },
    Target: {
      Arn: settings.targetQueueArn,
      RoleArn: settings.executionRoleArn,
      Input: taskRunInput(task),
      RetryPolicy: { ...scheduleRetryPolicy },
      DeadLetterConfig: { Arn: settings.deadLetterQueueArn },
    },
  };
};

/** The task version a stored schedule sends (its Input's `version`), or undefined when it is not one of ours. */
const versionOf = (schedule: GetScheduleCommandOutput): number | undefined => {
  try {
    const input: unknown = JSON.parse(schedule.Target?.Input ?? '');
    const version = (input as { version?: unknown } | null)?.version;
    return typeof version === 'number' && Number.isSafeInteger(version) ? version : undefined;
  } catch {
    return undefined;
  }
};

/** The stored Input as the request would send it, when it sends a version from `keptSince` to `version` of the task. */
const keptInput = (stored: GetScheduleCommandOutput, task: TaskSchedule): string | undefined => {
  const storedVersion = versionOf(stored);
  if (task.keptSince === undefined || storedVersion === undefined || storedVersion < task.keptSince || storedVersion > task.version) return undefined;
  return stored.Target?.Input?.split(`"version":${String(storedVersion)},`).join(`"version":${String(task.version)},`);
};

/**
 * Whether the stored schedule already is the request (a repeated sync writes nothing). StartDate may have moved on, and
 * a schedule a later save kept may send that save's earlier version (`TaskSchedule.keptSince`).
 */
const sameSchedule = (stored: GetScheduleCommandOutput, request: Omit<CreateScheduleCommandInput, 'ClientToken'>, task: TaskSchedule): boolean =>
  stored.State === 'ENABLED' &&
  stored.ScheduleExpression === request.ScheduleExpression &&
  stored.ScheduleExpressionTimezone === request.ScheduleExpressionTimezone &&
  (stored.ActionAfterCompletion ?? 'NONE') === (request.ActionAfterCompletion ?? 'NONE') &&
  stored.FlexibleTimeWindow?.Mode === 'OFF' &&
  stored.Target?.Arn === request.Target?.Arn &&
  stored.Target?.RoleArn === request.Target?.RoleArn &&
  (stored.Target?.Input === request.Target?.Input || keptInput(stored, task) === request.Target?.Input) &&
  stored.Target?.DeadLetterConfig?.Arn === request.Target?.DeadLetterConfig?.Arn &&
  stored.Target?.RetryPolicy?.MaximumEventAgeInSeconds === request.Target?.RetryPolicy?.MaximumEventAgeInSeconds &&
  stored.Target?.RetryPolicy?.MaximumRetryAttempts === request.Target?.RetryPolicy?.MaximumRetryAttempts;

/** Errors that say "try again later": throttling, quotas, the service's own failures, the network. */
const retryableErrors = new Set(['ThrottlingException', 'ServiceQuotaExceededException', 'InternalServerException', 'TimeoutError']);

const failure = (error: unknown): ScheduleSyncFailed => {
  if (error instanceof ScheduleSyncFailed) return error;
  const name = error instanceof Error ? error.name : 'unknown';
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  // No HTTP status: the request never got an answer (connection refused or reset, DNS, timeout).
  const retryable = retryableErrors.has(name) || status === undefined || status >= 500;
  return new ScheduleSyncFailed(retryable ? `the scheduler is unavailable (${name})` : `the scheduler refused the request (${name})`, {
    retryable,
    cause: error,
  });
};

export interface ScheduleSyncDependencies {
  readonly client: SchedulerClient;
  readonly settings: SchedulerSettings;
}

/**
 * Creates, replaces or deletes the task's schedule so that it matches the task, and says which state it is in. A
 * schedule that already sends a newer version of the task is left alone (a slower sync of an older save must not
 * undo a newer one); the newer save's sync owns it.
 */
export const syncScheduleWith = async (
  { client, settings }: ScheduleSyncDependencies,
  task: TaskSchedule,
  now: Date,
  { created = false }: { readonly created?: boolean } = {},
): Promise<ScheduleState> => {
  const name = scheduleNameOf(task.tenantId, task.taskId);
  const sync = newSyncId();
  try {
    if (created) {
      // The save that created the task: its ID is new, so no schedule of it exists and none needs reading (one round
      // trip, not two). One that does exist all the same (ConflictException) is brought in line the long way below.
      const request = scheduleRequestOf(task, settings, now);
      if (!request) return 'Disabled';
      const written = await client
        .send(new CreateScheduleCommand({ ...request, ClientToken: clientTokenOf('create', task, request, sync) }))
        .then(
          () => true,
          (error: unknown) => {
            if (error instanceof ConflictException) return false;
            throw error;
          },
        );
      if (written) return 'Enabled';
    }
    const stored = await client
      .send(new GetScheduleCommand({ Name: name, GroupName: settings.groupName }))
      .catch((error: unknown) => {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      });
    const storedVersion = stored && versionOf(stored);
    if (stored && storedVersion !== undefined && storedVersion > task.version) return stored.State === 'ENABLED' ? 'Enabled' : 'Disabled';

    const request = scheduleRequestOf(task, settings, now);
    if (!request) {
      if (stored) {
        const deletion = { Name: name, GroupName: settings.groupName };
        await client
          .send(new DeleteScheduleCommand({ ...deletion, ClientToken: clientTokenOf('delete', task, deletion, sync) }))
          .catch((error: unknown) => {
            // Gone already (an at() schedule deletes itself after it fires): the state we want.
            if (!(error instanceof ResourceNotFoundException)) throw error;
          });
      }
      return 'Disabled';
    }
    if (stored && sameSchedule(stored, request, task)) return 'Enabled';

    const create = () => client.send(new CreateScheduleCommand({ ...request, ClientToken: clientTokenOf('create', task, request, sync) }));
    const update = () => client.send(new UpdateScheduleCommand({ ...request, ClientToken: clientTokenOf('update', task, request, sync) }));
    if (stored) {
      // Deleted since it was read (an at() that fired): create it again.
      await update().catch((error: unknown) => (error instanceof ResourceNotFoundException ? create() : Promise.reject(error)));
    } else {
      // Created since it was read (a concurrent sync): replace it.
      await create().catch((error: unknown) => (error instanceof ConflictException ? update() : Promise.reject(error)));
    }
    return 'Enabled';
  } catch (error) {
    throw failure(error);
  }
};

/**
 * The settings of the manageSchedules grant, through the function's environment (checked when a function holding the
 * grant loads: shared/operations/environment.ts); ScheduleSyncFailed (not retryable) when one is missing all the same.
 */
export const schedulerSettingsFromEnvironment = (env: Readonly<Record<string, string | undefined>> = process.env): SchedulerSettings => {
  const read = (variable: string): string => {
    try {
      return environmentValue(variable, env);
    } catch (error) {
      throw new ScheduleSyncFailed(`${variable} is not set (the function lacks the manageSchedules grant)`, { retryable: false, cause: error });
    }
  };
  return {
    groupName: read(schedulerEnvironment.groupName),
    targetQueueArn: read(schedulerEnvironment.targetQueueArn),
    deadLetterQueueArn: read(schedulerEnvironment.deadLetterQueueArn),
    executionRoleArn: read(schedulerEnvironment.executionRoleArn),
  };
};

let defaultDependencies: ScheduleSyncDependencies | undefined;

/** Attempts of each EventBridge Scheduler call a save makes (the SDK's first and one retry). */
const schedulerAttempts = 2;

/**
 * How long a save's schedule sync may take for one of its scheduler calls: every attempt ended by the request
 * timeout. A twin of a keyed save waits at least this long for the save's answer to be restated (wiring.ts): with
 * the data kit's 3 s, a single stalled attempt, which the SDK retries, outlasted it, and the twin replayed
 * `ScheduleState: Pending` where its first answered `Enabled`.
 */
export const schedulerCallBoundMs = schedulerAttempts * awsRequestHandler.requestTimeout;

/**
 * Contract C1: brings the task's schedule in line, with the process's client (created on first use; locally its
 * endpoint is AWS_ENDPOINT_URL_SCHEDULER, set by the grant). A save waits for it, so requests are bounded: two
 * attempts, a second to connect and three to answer.
 */
export const syncSchedule = (task: TaskSchedule, now: Date, options?: { readonly created?: boolean }): Promise<ScheduleState> => {
  try {
    defaultDependencies ??= {
      settings: schedulerSettingsFromEnvironment(),
      client: serviceClient(new SchedulerClient({ maxAttempts: schedulerAttempts, requestHandler: awsRequestHandler })),
    };
  } catch (error) {
    return Promise.reject(failure(error));
  }
  return syncScheduleWith(defaultDependencies, task, now, options);
};
