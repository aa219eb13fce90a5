// Domain: the rules of scheduled tasks (issue 8). Called by the functions with a validated request and the caller's
// principal; talks to storage through the repository, to EventBridge Scheduler through `syncSchedule` and to the
// schedule-sync queue through `requestSync` (ports, so unit tests inject them and a clock). Throws named errors;
// never builds a response. The rules are written down in README.md next to this file.
import { isDeepStrictEqual } from 'node:util';
import type { Principal } from '#shared/auth/principal';
import { extractSecrets, sealAdaptorDetails, type StoredAdaptorDetails } from '#shared/crypto/secret-fields';
import type { SecretCipher } from '#shared/crypto/secret-cipher';
import { isBlankValue } from '#shared/data/visible-text';
import { withOptimisticRetry } from '#shared/data/retry';
import { KeyAlreadyClaimed, type StoredClaim, type WriteClaim } from '#shared/data/idempotency';
import { maxSequenceValue, pastValuesInUse, wroteNothing } from '#shared/data/sequence';
import { nextVersion } from '#shared/data/versioned';
import { mayHaveLanded } from '#shared/data/write-outcome';
import { ApiError, ItemTooLarge, NotFound, StaleVersion, ValidationFailed, VersionConflict, WriteOutcomeUnknown, type FieldError } from '#shared/errors';
import { describeError, logger } from '#shared/observability/logger';
import { countMetric } from '#shared/observability/metrics';
import type { AdaptorDetails, ScheduleState, ScheduledTask, ScheduledTaskRun, ScheduledTaskXml } from '#shared/schemas/scheduled-task';
import { nextRunAfter, readRecurrence, type Recurrence } from './recurrence';
import type { ScheduleSyncMessage, TaskRunMessage } from './messages';
import { clientFields, scheduleFields } from './fields';
import { assertTaskFits } from './repository';
import { asRead, scheduleVersionOf, type KeyClaimItem, type ScheduledTaskStore, type StoredTask, type TaskRecord } from './store';
import type { ScheduleState as SyncedState, TaskSchedule } from './schedule-sync';
import { taskView } from './task-view';

/**
 * What an Idempotency-Key's request hash covers: the body with each secret value left out (the fields it sets stay
 * named), so no hash of a credential is stored (the claim's hash sits beside an answer that holds every other field:
 * a weak password could be guessed back from it). A request that differs from the first only in a secret's value
 * therefore replays the first answer instead of answering 422.
 */
export const keyedRequestOf = (input: ScheduledTask | ScheduledTaskXml): unknown => {
  if (!('AdaptorDetails' in input) || !input.AdaptorDetails) return { body: input };
  const { details, secrets } = extractSecrets(input.AdaptorDetails);
  return { body: { ...input, AdaptorDetails: details }, secretFields: secrets.map((secret) => secret.field) };
};

/** `Status` (server-owned). */
export const TaskStatus = { Scheduled: 'Scheduled', Completed: 'Completed', Disabled: 'Disabled' } as const;

/** A retry of a task's schedule sync: the schedule-sync queue's message (contract C2). */
export type ScheduleSyncRequest = ScheduleSyncMessage;

/**
 * Brings a task's schedule in line (contract C1, schedule-sync.ts); a port, so tests can make it fail. `created`: the
 * save that created the task asks, so no schedule of it can exist yet (schedule-sync.ts then writes it without reading).
 */
export type ScheduleSync = (task: TaskSchedule, now: Date, options?: { readonly created?: boolean }) => Promise<SyncedState>;

export interface ScheduledTaskReaderDependencies {
  readonly repository: ScheduledTaskStore;
  /**
   * The task's latest runs, newest first (the task-runs consumer writes them), for a store that cannot read them
   * with the task (`getWithRuns`, one Query of the task's partition in the DynamoDB repository).
   */
  readonly latestRuns?: (tenantId: number, taskId: number) => Promise<readonly ScheduledTaskRun[]>;
}

/** Reads a task with its latest runs (the get function needs nothing else: no cipher, no scheduler, no queue). */
export const createScheduledTaskReader = ({ repository, latestRuns = async () => [] }: ScheduledTaskReaderDependencies) => {
  const read = async (tenantId: number, id: number) => {
    if (repository.getWithRuns) return repository.getWithRuns(tenantId, id);
    const [stored, runs] = await Promise.all([repository.get(tenantId, id), latestRuns(tenantId, id)]);
    return stored && { stored, runs };
  };
  return {
    /** The task (404 when it is not the caller's tenant's), its adaptor in public view, and its latest runs. */
    async get(principal: Principal, id: number): Promise<ScheduledTask> {
      const found = await read(principal.tenantId, id);
      if (!found) throw new NotFound(`Scheduled task ${id} does not exist.`);
      return taskView(found.stored.task, found.stored.adaptor, found.runs);
    },
  };
};

export interface ScheduleSyncRetrierDependencies {
  readonly repository: ScheduledTaskStore;
  readonly syncSchedule: ScheduleSync;
  /**
   * Sends a one-off task's run whose time passed before its schedule could be written to the task-runs queue, as its
   * at() schedule would have (late rather than never). The schedule-sync consumer's retrier has it (the sendTaskRuns
   * grant); the save's has not, and hands such a run on instead (`requestSync`).
   */
  readonly fireOverdue?: (run: TaskRunMessage) => Promise<void>;
  /**
   * Queues a retry of a task's sync (the save's port: the schedule-sync queue). A retrier without `fireOverdue` that
   * finds a one-off run overdue records the task Pending (on the reconciler's index, whose step fires it) and asks
   * for a retry here, whose consumer fires it after the queue's delay.
   */
  readonly requestSync?: (request: ScheduleSyncRequest) => Promise<void>;
  /**
   * Whether a newer version listed again after a failed sync also gets a delayed retry (`relistNewer`, through
   * `requestSync`): the consumer's retrier, whose reconciler step has no message of its own to come back. Not the
   * save's: it queues its own retry, and one more send inside its answer's time, after the queue just refused one,
   * could take it past its early answer.
   */
  readonly retryRelisted?: boolean;
  readonly clock?: () => Date;
}

/**
 * The state to record after a sync: a completed one-off task has no schedule because its at() schedule deleted itself
 * after its run (ActionAfterCompletion DELETE), which `Deleted` says; otherwise the scheduler's answer.
 */
export const recordedScheduleState = (task: Pick<TaskRecord, 'Status'>, synced: ScheduleState): ScheduleState =>
  synced === 'Disabled' && task.Status === TaskStatus.Completed ? 'Deleted' : synced;

/**
 * A one-off task that has not run, whose time has passed by `now`, so that no at() schedule can be written for it any
 * more: its run must be sent as the schedule would have (late rather than never).
 */
const isOverdueOnce = (task: TaskRecord, recurrence: Recurrence, now: Date): boolean =>
  recurrence.kind === 'once' && isScheduled(task) && task.Status === TaskStatus.Scheduled && recurrence.start <= now.getTime();

/**
 * The schedule-sync retry (the schedule-sync queue's consumer) and the reconciler's step: bring one stored task's
 * schedule in line and record its state, conditional on the Version read (a newer save records its own; the sync
 * itself never replaces a schedule of a newer version). Throws when the scheduler still fails.
 */
/** Rounds of syncing a newer version found after a sync (each needs another save to have come in the meantime). */
const newerVersionRounds = 3;

export const createScheduleSyncRetrier = ({ repository, syncSchedule, fireOverdue, requestSync, retryRelisted = false, clock = () => new Date() }: ScheduleSyncRetrierDependencies) => {
  /**
   * Lists the task's newest version again (Pending) when it is newer than `version`, and (`retryRelisted`) queues a
   * delayed retry of it.
   * A sync of `version` that failed (both attempts timed out) may still have its write land, after the newer version's
   * sync whose confirmed state took the task off the reconciler's index; listed from now, the task is synced by a pass
   * at least a minute later, after that write landed. The newer version's own confirmation may still land after this
   * listing and take the task off the index again (its save between its commit and its record): the retry, delayed so
   * that the late write lands first, syncs the newest version whatever that order (a reconciler step has no message of
   * its own to come back; found by a review of the consumers). Best effort: the failure that calls for it stands
   * whatever happens here.
   */
  const relistNewer = async (tenantId: number, taskId: number, version: number): Promise<void> => {
    const newest = await repository.get(tenantId, taskId).catch(() => undefined);
    if (!newest || newest.task.Version <= version) return;
    await repository.setScheduleState(tenantId, taskId, newest.task.Version, 'Pending').catch(() => false);
    if (retryRelisted) await requestSync?.({ tenantId, taskId, version: newest.task.Version }).catch(() => undefined);
  };
  /**
   * After a sync of `version` whose state could not be recorded because a newer save committed meanwhile: that save's
   * own sync may have written its schedule before this one's write landed, which then replaced it (the newer-wins
   * check reads the schedule before writing it, so two syncs in flight at once can land in either order). The stored
   * task is read again and synced, as the retry syncs it, so the schedule ends on the newest version whatever the
   * order of the writes; when this one's write landed first, the sync finds the schedule in line and writes nothing.
   * Throws when the scheduler fails (the caller's retry); a few rounds at most (each needs yet another save).
   */
  const syncNewerThan = async (tenantId: number, taskId: number, version: number, round: number): Promise<void> => {
    if (round > newerVersionRounds) return;
    const stored = await repository.get(tenantId, taskId);
    if (!stored || stored.task.Version <= version) return;
    await syncStored(tenantId, stored, round + 1);
  };
  const syncStored = async (tenantId: number, stored: StoredTask, round = 1): Promise<'synced' | 'stale'> => {
    const { task } = stored;
    const recurrence = recurrenceOfTask(task);
    // A schedule a save since kept (a rename) sends the version that last changed it: in line, not written again.
    const keptSince = scheduleVersionOf({ Version: task.Version, ...(stored.scheduleVersion === undefined ? {} : { ScheduleVersion: stored.scheduleVersion }) });
    const state = await syncSchedule({ tenantId, taskId: task.ID, version: task.Version, recurrence, enabled: isScheduled(task), keptSince }, clock()).catch(
      async (error: unknown) => {
        // This sync's write may still land (a request the scheduler applies after both attempts timed out), after a
        // newer save synced and took the task off the reconciler's index: that version is listed again. Before, a
        // reconciler step's late write stayed for good, the task in line by its item (a review of the overlapping paths).
        await relistNewer(tenantId, task.ID, task.Version);
        throw error;
      },
    );
    // A one-off task that has not run and whose time passed before its schedule could be written (a save that died,
    // a scheduler that was down) gets its run now: the firing its at() would have sent. The runs consumer records a
    // run once (keyed by its time), so a real firing as well changes nothing. Judged after the sync (an at() written
    // a moment before its time may reach the scheduler after it). Its state is then Deleted, as after an at() that
    // fired (the runs consumer writes the same when it records the run).
    const overdue = isOverdueOnce(task, recurrence, clock());
    if (overdue && fireOverdue) await fireOverdue({ tenantId, taskId: task.ID, version: task.Version, scheduledTime: new Date(recurrence.start).toISOString() });
    // A retrier that may not send task runs (the save's, syncing a newer save's version after its own) hands the run
    // on, as the save does its own: Pending lists the task for the reconciler, whose step fires it, and a retry is
    // queued, whose consumer fires it sooner. Before, this sync deleted the at() (its time had passed, maybe not its
    // firing) and recorded Disabled, which took the task off the index: the run never came, and the task stayed
    // Scheduled with a NextRun in the past (a review: two saves overlapping near a one-off task's time).
    const settled: ScheduleState = !overdue ? recordedScheduleState(task, state) : fireOverdue ? 'Deleted' : 'Pending';
    const recorded = await repository.setScheduleState(tenantId, task.ID, task.Version, settled);
    if (recorded && settled === 'Pending') {
      countMetric('scheduleSyncsPending');
      await requestSync?.({ tenantId, taskId: task.ID, version: task.Version }).catch((queueError: unknown) => {
        logger.error('the retry that fires an overdue run could not be queued; the reconciler will', { taskId: task.ID, version: task.Version, ...describeError(queueError) });
      });
    }
    if (recorded) return 'synced';
    await syncNewerThan(tenantId, task.ID, task.Version, round).catch(async (error: unknown) => {
      // The newer version's own sync confirmed its state, so the reconciler (it lists tasks out of line) would not come
      // back to it, while this sync's write may have replaced its schedule: it is marked Pending and listed again, for
      // the next reconciler pass (best effort; the error stands).
      await relistNewer(tenantId, task.ID, task.Version);
      throw error;
    });
    return 'stale';
  };
  return {
    /** The newest stored version synced again after a sync of `version` found a newer save (see above). */
    syncNewerThan: (tenantId: number, taskId: number, version: number) => syncNewerThan(tenantId, taskId, version, 1),
    relistNewer,
    /**
     * A retry message: the stored task's schedule is synced again and its state recorded. A message exists only
     * because a sync of the task failed (or a one-off run fell due during it), and that sync's write may have landed
     * after a newer save's and replaced it, while that save took the task off the reconciler's index: so one of an
     * older version than the stored one ('stale') syncs the newest version too (in line: one GetSchedule, nothing
     * written). Its delay lets such a late write land first. Before, it changed nothing, and the schedule stayed on
     * the older version, every firing skipped as stale (a review of the overlapping paths).
     */
    async retrySync(request: ScheduleSyncRequest): Promise<'synced' | 'stale' | 'gone'> {
      const stored = await repository.get(request.tenantId, request.taskId);
      if (!stored) return 'gone';
      const outcome = await syncStored(request.tenantId, stored);
      return stored.task.Version > request.version ? 'stale' : outcome;
    },
    /**
     * A task the reconciler's index lists: read again, strongly consistent (the index may be stale: the task may be
     * in line already, gone, or of a newer version), and synced only while its item still says it is out of line.
     */
    async reconcileTask(tenantId: number, taskId: number): Promise<'synced' | 'stale' | 'gone' | 'inLine'> {
      const stored = await repository.get(tenantId, taskId);
      if (!stored) return 'gone';
      if (!stored.scheduleOutOfLine) return 'inLine';
      return syncStored(tenantId, stored);
    },
  };
};

export interface ScheduledTaskServiceDependencies extends ScheduledTaskReaderDependencies {
  /** Seals secret fields; called only when a body carries a secret value. */
  readonly cipher: SecretCipher;
  /** Creates, updates or deletes the task's schedule; throws when the scheduler cannot be reached or refuses. */
  readonly syncSchedule: ScheduleSync;
  /** Queues a retry of the schedule's sync (the schedule-sync queue, with a delay). */
  readonly requestSync: (request: ScheduleSyncRequest) => Promise<void>;
  readonly clock?: () => Date;
}

export interface SaveOutcome {
  readonly created: boolean;
  readonly task: ScheduledTask;
}

/** Absent keeps the stored value; an explicitly empty value (`""`, `[]`) clears it; anything else replaces it. */
const mergeClientFields = (previous: TaskRecord | undefined, input: ScheduledTaskXml): Partial<TaskRecord> => {
  const merged: Record<string, unknown> = {};
  for (const field of clientFields) {
    const value = input[field] !== undefined ? input[field] : previous?.[field];
    const empty = value === '' || (Array.isArray(value) && value.length === 0);
    if (value !== undefined && !empty) merged[field] = value;
  }
  return merged as Partial<TaskRecord>;
};

/**
 * The save keeps the task's schedule: the same fields, or fields that make the same schedule (what a typed client
 * sends for what it leaves unset: `RecurrenceType` 0, `IsRecurringSchedule` false, an Interval on a one-off task; a
 * TimeOfDay written another way, `.2270Z` for `.227Z`). Before, such a save was a schedule change: a completed
 * one-off task could not be renamed (its TimeOfDay "must be in the future"), and a firing on its way went stale.
 */
const sameSchedule = (previous: TaskRecord | undefined, next: Partial<TaskRecord>): boolean => {
  if (previous === undefined) return false;
  if (scheduleFields.every((field) => previous[field] === next[field])) return true;
  const before = readRecurrence(previous).recurrence;
  const after = readRecurrence(next).recurrence;
  return before !== undefined && after !== undefined && isDeepStrictEqual(before, after);
};

/**
 * A save leaves the task's schedule exactly as it is, with nothing to sync: the task was in line (a sync confirmed
 * its last save), no schedule field changed, the schedule still exists or not as before, and its state stays the one
 * confirmed. A rename, a new description, another task type.
 */
const keepsSchedule = (previous: StoredTask, composed: { readonly record: TaskRecord; readonly scheduleChanged: boolean }): boolean =>
  !previous.scheduleOutOfLine &&
  !composed.scheduleChanged &&
  isScheduled(previous.task) === isScheduled(composed.record) &&
  previous.task.ScheduleState !== 'Pending' &&
  previous.task.ScheduleState === composed.record.ScheduleState;

/** The recurrence of a stored task (its fields were valid when saved: a failure here is a bug, not a 400). */
export const recurrenceOfTask = (task: TaskRecord): Recurrence => {
  const outcome = readRecurrence(task);
  if (outcome.errors) throw new Error(`Stored task ${task.ID} has no valid schedule`);
  return outcome.recurrence;
};

/** The task's schedule exists only while it is enabled and active (contract C1: `enabled`). */
export const isScheduled = (task: TaskRecord) => task.IsEnabled !== false && task.IsActive !== false;

/**
 * Answer-only flags a client may send back from a fetched task (`Has<Field>`, `HasValue`): dropped before the merge,
 * so a stored flag can never claim a secret that is not there.
 */
const withoutAnswerFlags = (details: AdaptorDetails): AdaptorDetails => {
  const copy = structuredClone(details);
  const token = copy.TokenDetails as Record<string, unknown> | undefined;
  if (token) for (const name of Object.keys(token)) if (/^Has(TokenKey|TokenSecret|ConsumerKey|ConsumerSecret|Session|Verifier|Username)$/.test(name)) delete token[name];
  const lists = [
    copy.Instructions,
    ...(copy.TranslatorDetails ?? []).map((translator) => translator.Instructions),
    ...(copy.Actions ?? []).flatMap((action) => [action.Instructions, ...(action.TranslatorActionDetails ?? []).map((inner) => inner.Instructions)]),
  ];
  for (const list of lists) for (const instruction of list ?? []) delete instruction.HasValue;
  return copy;
};

/**
 * A cipher that seals nothing: its "sealed" value is as long as the longest stored form the real cipher can give
 * the plaintext under the context (crypto/envelope.ts: a base64 ESDK message of one committing AES-256-GCM suite,
 * unsigned, 4 KiB frames). The header (context, one encrypted data key: a KMS key ARN and its blob, or the local
 * key's name) stays well under 2 KiB; each frame adds its sequence number, IV and tag (under 64 bytes). A secret
 * sealed by KMS directly (crypto/secret-cipher.ts, up to 4,096 bytes) is shorter: `kms:` and the base64 of KMS's
 * blob, the plaintext and a header of under 200 bytes (no context: KMS binds it without storing it).
 * test/unit/scheduled-tasks/service.test.ts checks the bound against real messages.
 */
export const sealedSizeBound: SecretCipher = {
  seal: async (plaintext, context) => {
    const contextBytes = Object.entries(context).reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value) + 4, 0);
    const plaintextBytes = Buffer.byteLength(plaintext);
    const bytes = plaintextBytes + contextBytes + 2048 + 64 * (Math.ceil(plaintextBytes / 4096) + 1);
    return 'x'.repeat(4 * Math.ceil(bytes / 3));
  },
  open: async () => {
    throw new Error('sealedSizeBound only sizes sealed secrets');
  },
};

export const createScheduledTaskService = ({
  repository,
  cipher,
  syncSchedule,
  requestSync,
  latestRuns,
  clock = () => new Date(),
}: ScheduledTaskServiceDependencies) => {
  // Its requestSync hands on an overdue one-off run it cannot fire (the save may not send task runs).
  const retrier = createScheduleSyncRetrier({ repository, syncSchedule, requestSync, clock });
  const require = async (tenantId: number, id: number): Promise<StoredTask> => {
    const stored = await repository.get(tenantId, id);
    if (!stored) throw new NotFound(`Scheduled task ${id} does not exist.`);
    return stored;
  };

  /** Every rule of a save's merged fields at once: the schedule (recurrence.ts), a name and a task type. */
  const check = (fields: Partial<TaskRecord>, previous: TaskRecord | undefined, now: Date): Recurrence => {
    const errors: FieldError[] = [];
    if (isBlankValue(fields.Name)) errors.push({ pointer: '/Name', detail: 'is required' });
    if (!fields.TaskTypeID) errors.push({ pointer: '/TaskTypeID', detail: 'is required: the workers of this task type run it' });
    // A changed schedule must have a run ahead; an unchanged one (a completed one-off task) is kept as it is.
    const outcome = readRecurrence(fields, sameSchedule(previous, fields) ? undefined : now);
    if (outcome.errors) errors.push(...outcome.errors);
    if (errors.length > 0 || !outcome.recurrence) throw new ValidationFailed(errors);
    return outcome.recurrence;
  };

  /** The task as it will be stored, and its recurrence. */
  const compose = (
    principal: Principal,
    id: number,
    input: ScheduledTaskXml,
    previous: TaskRecord | undefined,
    now: Date,
  ): { record: TaskRecord; recurrence: Recurrence; scheduleChanged: boolean } => {
    const fields = mergeClientFields(previous, input);
    const recurrence = check(fields, previous, now);
    const scheduleChanged = !sameSchedule(previous, fields);
    const enabled = fields.IsEnabled ?? true;
    const active = fields.IsActive ?? true;
    // A one-off task that ran stays Completed until its schedule changes (then it is scheduled again).
    const completedAt = scheduleChanged ? undefined : previous?.CompletedDateTime_utc;
    const status = !enabled || !active ? TaskStatus.Disabled : completedAt ? TaskStatus.Completed : TaskStatus.Scheduled;
    const next = status === TaskStatus.Scheduled ? nextRunAfter(recurrence, new Date(now.getTime() - 1)) : undefined;
    const timestamp = now.toISOString();
    const record: TaskRecord = {
      ...fields,
      ID: id,
      IsEnabled: enabled,
      IsActive: active,
      Status: status,
      ...(completedAt ? { CompletedDateTime_utc: completedAt } : {}),
      ...(next ? { NextRunDateTime_utc: next.toISOString() } : {}),
      ...(!scheduleChanged && previous?.LastRunDateTime_utc ? { LastRunDateTime_utc: previous.LastRunDateTime_utc } : {}),
      // What the sync below is expected to leave; corrected after it when the scheduler says otherwise or fails. A
      // completed one-off task's schedule deleted itself after its run.
      ScheduleState: status === TaskStatus.Completed ? 'Deleted' : next ? 'Enabled' : 'Disabled',
      Version: nextVersion(previous),
      CreatedDateTime_utc: previous?.CreatedDateTime_utc ?? timestamp,
      CreatedByUserID: previous?.CreatedByUserID ?? principal.userId,
      ModifiedDateTime_utc: timestamp,
      ModifiedByUserID: principal.userId,
    };
    return { record, recurrence, scheduleChanged };
  };

  /**
   * Records the schedule's state of a committed save, always, even when it is the state written: a state the
   * scheduler confirmed takes the task off the reconciler's index. With an Idempotency-Key, the claim's answer is
   * restated with the state in the same write, before it is sent. Bookkeeping only: the task and its schedule are in
   * place, so a write that fails (DynamoDB throttling) is logged and the save still answered (before: a 503 after the
   * task and its schedule were made, and a client's retry made them twice). The task stays on the reconciler's index.
   * `recorded` undefined: not known whether a newer save won.
   *
   * With a key, the answer must be the claim's: a failed record leaves it Pending (provisional), unless the write
   * landed all the same (an attempt timed out, then its resends failed), which restated it. So Pending is recorded once
   * more, with the claim restated Pending, whatever happened; the save answers Pending (before: the state it meant to
   * record, while its replay said Pending). When that fails too and either write may have landed, what the claim says
   * is unknown: `unknown` holds the error, which the save throws once the follow-ups of an unrecorded state are done
   * (the key's layer then answers what the claim holds, or asks the client to retry).
   */
  const recordState = async (
    tenantId: number,
    record: TaskRecord,
    state: ScheduleState,
    restate?: (state: ScheduleState) => KeyClaimItem,
  ): Promise<{ readonly recorded: boolean | undefined; readonly answered: ScheduleState; readonly unknown?: unknown }> => {
    const mayHaveApplied = (error: unknown) => mayHaveLanded(error) || error instanceof WriteOutcomeUnknown;
    try {
      return { recorded: await repository.setScheduleState(tenantId, record.ID, record.Version, state, restate?.(state)), answered: state };
    } catch (error) {
      logger.warn('the schedule state of a saved task could not be recorded; the reconciler will', { taskId: record.ID, version: record.Version, state, ...describeError(error) });
      if (!restate) return { recorded: undefined, answered: state };
      try {
        await repository.setScheduleState(tenantId, record.ID, record.Version, 'Pending', restate('Pending'));
        return { recorded: undefined, answered: 'Pending' };
      } catch (again) {
        return { recorded: undefined, answered: 'Pending', ...(mayHaveApplied(error) || mayHaveApplied(again) ? { unknown: again } : {}) };
      }
    }
  };

  /**
   * Brings the scheduler in line with a committed task. A scheduler that fails leaves the task `Pending` (if no newer
   * save has come since) with a retry on the schedule-sync queue: the caller still gets its stored task.
   */
  const synchronise = async (
    tenantId: number,
    record: TaskRecord,
    recurrence: Recurrence,
    now: Date,
    created: boolean,
    restate?: (state: ScheduleState) => KeyClaimItem,
  ): Promise<ScheduleState> => {
    const request = { tenantId, taskId: record.ID, version: record.Version };
    /** Queues a retry of the task's sync for `version`; false when the queue did not take it (logged). */
    const queueRetry = (version: number): Promise<boolean> =>
      requestSync({ ...request, version }).then(
        () => true,
        (queueError: unknown) => {
          logger.error('schedule sync retry could not be queued', { taskId: record.ID, version, ...describeError(queueError) });
          return false;
        },
      );
    let state: ScheduleState | undefined;
    // The scheduler call failed: its write may still land later (a request applied after both attempts timed out).
    let syncFailed = false;
    try {
      const synced = recordedScheduleState(record, await syncSchedule({ ...request, recurrence, enabled: isScheduled(record) }, now, { created }));
      // A one-off run that fell due while it was being saved (asked a moment ahead) may have no at() that fires (none
      // was left to write, or it reached the scheduler after its time): the retry, whose consumer may send task runs,
      // fires it (once: the runs consumer keys a run by its time, so a real firing as well changes nothing).
      state = isOverdueOnce(record, recurrence, clock()) ? undefined : synced;
    } catch (error) {
      syncFailed = true;
      logger.warn('schedule sync failed; the task is Pending and a retry is queued', { taskId: record.ID, version: record.Version, ...describeError(error) });
    }
    let retryQueued = false;
    if (state === undefined) {
      state = 'Pending';
      countMetric('scheduleSyncsPending');
      // Both the scheduler and the queue down: the task stays Pending, on the reconciler's index.
      retryQueued = await queueRetry(record.Version);
    }
    const { recorded, answered, unknown } = await recordState(tenantId, record, state, restate);
    // Not recorded: a newer save committed while this one synced (false), or the write failed (undefined: DynamoDB
    // throttled, so whether one did is not known). Either way this sync's schedule write may have landed after a newer
    // save's and replaced it, while that save's confirmed state took the task off the reconciler's index: the newest
    // version is synced again (retrier.syncNewerThan). Before, only a refused record (false) did so; one that threw
    // left the older schedule in place for good (a review of the overlapping paths). If the scheduler fails now, a
    // retry is queued for that version. This save's answer stays its own version's.
    if (recorded !== true) {
      const newerSynced = await retrier.syncNewerThan(tenantId, record.ID, record.Version).then(
        () => true,
        async (error: unknown) => {
          logger.warn('a newer version of the task could not be synced again after this save; a retry is queued', { taskId: record.ID, ...describeError(error) });
          const stored = await repository.get(tenantId, record.ID).catch(() => undefined);
          if (stored && (await queueRetry(stored.task.Version))) retryQueued = true;
          return false;
        },
      );
      // A state not recorded is asked again of the queue (a failed sync asked already): the retry comes back after its
      // delay and syncs the newest version (retrySync), so a write of this save that lands late is undone too.
      if (recorded === undefined && !retryQueued) retryQueued = await queueRetry(record.Version);
      // A retry was called for and the queue is down too: the newest version is listed for the reconciler instead.
      if ((syncFailed || !newerSynced || recorded === undefined) && !retryQueued) await retrier.relistNewer(tenantId, record.ID, record.Version);
    }
    if (unknown !== undefined) throw unknown;
    return answered;
  };

  /**
   * POST /ScheduledTasks/. With an Idempotency-Key (`claim`), the key's claim is read with the create's ID and written
   * in the task's own write (shared/data/idempotency.ts): its answer says `Pending` (a replay after a lost answer
   * finds the task out of line until the reconciler syncs it), restated with the schedule's state once that is known.
   */
  /**
   * A replay whose first run left its task `Pending` (its answer was never restated: the scheduler failed, or the
   * process died between the task's commit and its schedule) asks the schedule-sync queue again, so the client's
   * retry brings the task in line, not only the reconciler minutes later. A sync converges on the task's current
   * version, so asking again changes nothing when the first ask is still queued. Best effort: the replay is answered
   * whatever happens here, and the reconciler stays the backstop.
   */
  const resyncReplayedPending = async (tenantId: number, found: StoredClaim): Promise<void> => {
    try {
      const task = (JSON.parse(found.answer) as { body?: { Value?: Partial<ScheduledTask> } }).body?.Value;
      if (task?.ScheduleState !== 'Pending' || typeof task.ID !== 'number' || typeof task.Version !== 'number') return;
      await requestSync({ tenantId, taskId: task.ID, version: task.Version });
    } catch (error) {
      logger.warn('a replayed Pending task could not ask for its schedule sync; the reconciler will', describeError(error));
    }
  };

  const save = async (principal: Principal, input: ScheduledTask | ScheduledTaskXml, claim?: WriteClaim<SaveOutcome>): Promise<SaveOutcome> => {
    const tenantId = principal.tenantId;
    const isUpdate = Boolean(input.ID);
    const incomingDetails = 'AdaptorDetails' in input && input.AdaptorDetails ? withoutAnswerFlags(input.AdaptorDetails) : undefined;
    // Checked in full before anything is taken or written, so a refused save changes nothing, not even the sequence.
    const secretErrors = incomingDetails ? extractSecrets(incomingDetails).errors : [];
    if (secretErrors.length > 0) throw new ValidationFailed(secretErrors);
    if (!isUpdate) {
      // Composed and sealed with the largest ID (the real item can only be smaller) to refuse a task too large to
      // store (413) before an ID is taken.
      // Each secret is first sized by a bound of its sealed form (no encryption): only a task that may not fit is
      // really sealed here, so a create seals each secret once, not twice.
      const draft = compose(principal, maxSequenceValue, input, undefined, clock());
      const fitsWith = async (sealing: SecretCipher) => {
        const sealed = await sealAdaptorDetails({ incoming: incomingDetails, stored: undefined, owner: { tenantId, taskId: maxSequenceValue }, cipher: sealing });
        assertTaskFits(tenantId, { task: draft.record, ...(sealed ? { adaptor: sealed } : {}) });
      };
      if (!incomingDetails) assertTaskFits(tenantId, { task: draft.record });
      else await fitsWith(sealedSizeBound).catch((error: unknown) => (error instanceof ItemTooLarge ? fitsWith(cipher) : Promise.reject(error)));
    }
    // The key's claim is read in the round trip that takes the ID (none without a key).
    const [firstId, prior] = await Promise.all([isUpdate ? (input.ID as number) : repository.nextId(tenantId), claim?.read()]);
    // A create's ID found in use (the sequence behind its items) is stepped past: the save is made again with the next.
    let id = firstId;
    const expected = input.Version ? input.Version : undefined;

    // A create that writes nothing (its seal failed: KMS down or refused; a refusal; a replay of its key) gives its
    // ID back, so the tenant's items are as they were. Once a write was sent, the ID is kept unless it was refused.
    let writeSent = false;
    const giveBackUnwritten = async (error: unknown): Promise<never> => {
      if (!isUpdate && (!writeSent || wroteNothing(error))) await repository.giveBackId(tenantId, id).catch(() => false);
      throw error;
    };
    const attempt = () => withOptimisticRetry(async () => {
      if (prior) {
        await resyncReplayedPending(tenantId, prior);
        throw new KeyAlreadyClaimed(prior);
      }
      const previous = isUpdate ? await require(tenantId, id) : undefined;
      if (previous && expected !== undefined && expected !== previous.task.Version) throw new StaleVersion();
      const now = clock();
      const composed = compose(principal, id, input, previous?.task, now);
      // Sealed with the task's ID in each secret's context; secrets the body does not mention keep their ciphertext.
      const sealed: StoredAdaptorDetails | undefined = await sealAdaptorDetails({ incoming: incomingDetails, stored: previous?.adaptor, owner: { tenantId, taskId: id }, cipher });
      // A save that leaves the schedule as it was keeps its Version: firings already on their way are still runs.
      const scheduleVersion = composed.scheduleChanged || !previous ? composed.record.Version : scheduleVersionOf({ Version: previous.task.Version, ScheduleVersion: previous.scheduleVersion });
      const next: StoredTask = { task: composed.record, scheduleVersion, ...(sealed ? { adaptor: sealed } : {}) };
      writeSent = true;
      const pending = { created: !isUpdate, task: taskView({ ...composed.record, ScheduleState: 'Pending' }, sealed) };
      // Conditional on the task as read: a newer save, or a run recorded since the read (VersionConflict), has the
      // save decided again from a fresh read, where a client's Version that moved is a 409 (StaleVersion above).
      await repository.write(tenantId, next, previous && asRead(previous.task), composed.scheduleChanged, claim?.provisional(pending));
      return { record: composed.record, recurrence: composed.recurrence, adaptor: sealed, inLine: previous !== undefined && keepsSchedule(previous, composed) };
    });
    const { record, recurrence, adaptor, inLine } = await (isUpdate
      ? attempt()
      : pastValuesInUse(firstId, () => repository.nextId(tenantId), (taken) => {
          id = taken;
          // Each value tried is given back unless its own write was sent (and not refused).
          writeSent = false;
          return attempt();
        })
    ).catch(giveBackUnwritten);

    const outcome = (state: ScheduleState): SaveOutcome => ({ created: !isUpdate, task: taskView({ ...record, ScheduleState: state }, adaptor) });
    const restate = claim && ((settled: ScheduleState) => claim.restate(outcome(settled)));
    if (inLine) {
      // Nothing of the schedule changed and it was in line: it is left alone, only the state recorded (a newer save
      // that won records its own). Rewriting it would restart it at the first run after now, and lose a run whose
      // minute has begun but which the scheduler had not fired yet (found by a hostile client: a rename lost a run).
      const { answered, unknown } = await recordState(tenantId, record, record.ScheduleState as ScheduleState, restate);
      if (unknown !== undefined) throw unknown;
      return outcome(answered);
    }
    const state = await synchronise(tenantId, record, recurrence, clock(), !isUpdate, restate);
    return outcome(state);
  };

  return {
    save,
    get: createScheduledTaskReader({ repository, latestRuns }).get,
    retrySync: retrier.retrySync,
    reconcileTask: retrier.reconcileTask,
  };
};

export type ScheduledTaskService = ReturnType<typeof createScheduledTaskService>;
