// Scheduled tasks: the runs of a task, recorded exactly once and published at least once. A firing of a task's
// schedule (a TaskRunMessage) becomes at most one run item, keyed by task and scheduled time and put only if new,
// in the same transaction as the task's LastRun/NextRun (conditional on the task as read); a recorded run is
// then published to the work queue, and its item remembers when. The rules are in README.md ("Runs and the work
// queue"); `planRun` decides, pure, and `createRunRecorder` records through the run store (store.ts `TaskRunStore`)
// and publishes.
import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { isConditionFailure } from '#shared/data/conditional-write';
import { withOptimisticRetry, type RetryPolicy } from '#shared/data/retry';
import { VersionConflict } from '#shared/errors';
import { consumerTimeoutSeconds, taskWorkQueue } from '#shared/events/queues';
import { createPublisher } from '#shared/messaging/publisher';
import { isMisfire, isRunTime, nextRunAfter, readRecurrence, type Recurrence } from './recurrence';
import type { TaskWorkMessage } from './messages';
import { RunAlreadyRecorded, scheduleVersionOf, type StoredRun, type StoredTaskState, type TaskAdvance, type TaskFiring, type TaskRun, type TaskRunStore } from './store';

export type { StoredTaskState, TaskAdvance, TaskFiring, TaskRun } from './store';

/** What one firing comes to. */
export type RunPlan =
  | { readonly kind: 'ignore'; readonly why: 'NoTask' | 'NotARun' }
  /** The firing came before its run is due (the scheduler's clock ahead of ours, or an at() written to the minute): not yet. */
  | { readonly kind: 'early'; readonly dueAt: Date }
  | {
      readonly kind: 'record';
      readonly run: Pick<TaskRun, 'Outcome' | 'Reason'>;
      /** The task's new LastRun/NextRun (written only if the task is still as the run read it). */
      readonly advance?: TaskAdvance;
      /** Whether the run goes to the work queue (only a run that is `Run`). */
      readonly publish: boolean;
    };

/** The message names a Version the task never had: a bug or a forged message, kept in the DLQ for a look. */
export class UnknownTaskVersion extends Error {
  override readonly name = 'UnknownTaskVersion';
  constructor() {
    super('The firing names a task Version newer than the stored one');
  }
}

/** The stored task's schedule fields no longer make a schedule: never written by a save, so a bug; kept in the DLQ. */
export class UnreadableTaskSchedule extends Error {
  override readonly name = 'UnreadableTaskSchedule';
  constructor() {
    super('The stored task has no valid schedule');
  }
}

/** The firing arrived before its run is due: it is retried later (never run early), by SQS after the visibility timeout. */
export class RunNotDue extends Error {
  override readonly name = 'RunNotDue';
  constructor(readonly dueAt: Date) {
    super(`The run is not due before ${dueAt.toISOString()}`);
  }
}

/** Another delivery of this run holds its publication lease: retry later (it is published by then, or its lease ran out). */
export class RunPublicationInProgress extends Error {
  override readonly name = 'RunPublicationInProgress';
  constructor() {
    super('Another delivery is publishing this run');
  }
}

const oneMinuteMs = 60_000;

const later = (a: string | undefined, b: string | undefined): string | undefined => (a === undefined ? b : b === undefined || a > b ? a : b);

/** The next run to store: none when none remains (it is removed), else never earlier than the stored one (runs arrive in any order). */
const laterRun = (stored: string | undefined, next: string | undefined): string | undefined => (next === undefined ? undefined : later(stored, next));

/**
 * Whether a firing at `firedAt` is a one-off task's run: its schedule fires at the run's start, or, an at() written
 * before rounding up (which dropped the seconds), in the minute before.
 */
const isOnceRunFiring = (recurrence: Recurrence, firedAt: number): recurrence is Extract<Recurrence, { kind: 'once' }> =>
  recurrence.kind === 'once' && firedAt <= recurrence.start && firedAt >= recurrence.start - oneMinuteMs;

const recurrenceOfTask = (task: StoredTaskState): Recurrence => {
  const outcome = readRecurrence(task);
  if (!outcome.recurrence) throw new UnreadableTaskSchedule();
  return outcome.recurrence;
};

/**
 * The rules, in order (README.md, "Runs and the work queue"):
 * 1. No task item: nothing is recorded (there is no task to record it on).
 * 2. A Version newer than the stored one: UnknownTaskVersion. One older than the save that last changed the
 *    schedule (`scheduleVersionOf`): a stale schedule, `Skipped` (StaleVersion), the task untouched, never
 *    published. An older Version whose schedule no save has changed since (a rename) is the task's firing: the
 *    rules below judge it on the task as it is now.
 * 3. A firing that is not one of the task's runs (a local-time schedule with Interval > 1 fires every period):
 *    nothing is recorded. A one-off task's run is due at TimeOfDay rounded up to the minute; a firing of its schedule
 *    in the minute before (an at() written before rounding up, which dropped the seconds) is that run too.
 * 3a. A firing before its run is due (`now` earlier than the run): `early`, nothing recorded; never run early.
 * 4. A disabled or inactive task: `Skipped` (Disabled), the task untouched.
 * 5. A run older than one interval (its next run is already due): `Skipped` (Misfire), NextRun advanced past now.
 * 6. Otherwise `Run`: LastRun and NextRun advance (never backwards), a one-off task is `Completed`, and it is published.
 */
export const planRun = (task: StoredTaskState | undefined, firing: TaskFiring, now: Date): RunPlan => {
  if (!task) return { kind: 'ignore', why: 'NoTask' };
  if (firing.version > task.Version) throw new UnknownTaskVersion();
  if (firing.version < scheduleVersionOf(task)) return { kind: 'record', run: { Outcome: 'Skipped', Reason: 'StaleVersion' }, publish: false };
  const recurrence = recurrenceOfTask(task);
  if (!isOnceRunFiring(recurrence, firing.scheduledTime.getTime()) && !isRunTime(recurrence, firing.scheduledTime)) return { kind: 'ignore', why: 'NotARun' };
  const dueAt = recurrence.kind === 'once' ? new Date(recurrence.start) : firing.scheduledTime;
  if (now.getTime() < dueAt.getTime()) return { kind: 'early', dueAt };
  if (task.IsEnabled === false || task.IsActive === false) {
    return { kind: 'record', run: { Outcome: 'Skipped', Reason: 'Disabled' }, publish: false };
  }
  const next = (after: Date) => nextRunAfter(recurrence, after)?.toISOString();
  if (isMisfire(recurrence, firing.scheduledTime, now)) {
    return {
      kind: 'record',
      run: { Outcome: 'Skipped', Reason: 'Misfire' },
      advance: { NextRunDateTime_utc: laterRun(task.NextRunDateTime_utc, next(now)) },
      publish: false,
    };
  }
  const scheduled = dueAt.toISOString();
  const nextRun = next(dueAt);
  return {
    kind: 'record',
    run: { Outcome: 'Run' },
    advance: {
      LastRunDateTime_utc: later(task.LastRunDateTime_utc, scheduled),
      NextRunDateTime_utc: laterRun(task.NextRunDateTime_utc, nextRun),
      ...(recurrence.kind === 'once' ? { completed: { Status: 'Completed', CompletedDateTime_utc: now.toISOString(), ScheduleState: 'Deleted' } } : {}),
    },
    publish: true,
  };
};

/**
 * The firing as its run is known (its item's key, its work message's `runKey`). A one-off task has one run, due at
 * its start; a firing of its schedule in the minute before (an at() written to the minute) is that run, and so is the
 * overdue run a sync sends at the start itself: each is recorded and published under the start, so two of them are
 * one run, recorded and published once. Before, each was keyed by its own time, and a task whose at() fired early
 * (sent back until due) while a sync fired its overdue run ran twice (found by a review of the consumers). A stale
 * firing (an older schedule's) keeps its own time: it must never take the key of the task's run.
 */
export const firingOfRun = (task: StoredTaskState | undefined, firing: TaskFiring): TaskFiring => {
  if (!task || firing.version > task.Version || firing.version < scheduleVersionOf(task)) return firing;
  const recurrence = readRecurrence(task).recurrence;
  const firedAt = firing.scheduledTime.getTime();
  return recurrence && isOnceRunFiring(recurrence, firedAt) && firedAt !== recurrence.start ? { ...firing, scheduledTime: new Date(recurrence.start) } : firing;
};

export type RunRecorder = ReturnType<typeof createRunRecorder>;

/** A run's identity for workers: `<tenant>:<task>:<scheduled time, UTC ISO 8601>`, the same on every publication. */
export const workRunKey = (firing: Pick<TaskFiring, 'tenantId' | 'taskId' | 'scheduledTime'>): string =>
  `${firing.tenantId}:${firing.taskId}:${firing.scheduledTime.toISOString()}`;

/** Sends due runs to the work queue, one message each (JSON of TaskWorkMessage); by default to the `sendTaskWork` grant's URL. */
export const createWorkPublisher = (queueUrl?: string, client?: SQSClient) =>
  createPublisher<TaskWorkMessage>({ queue: taskWorkQueue, what: 'task work', ...(queueUrl ? { queueUrl } : {}), ...(client ? { client } : {}) });

/** How a firing ended. */
export type RunOutcome =
  | { readonly outcome: 'Ignored'; readonly why: 'NoTask' | 'NotARun' }
  | { readonly outcome: 'Recorded'; readonly run: TaskRun; readonly published: boolean }
  | { readonly outcome: 'Duplicate'; readonly run: TaskRun; readonly published: boolean };

export interface RunRecorderOptions {
  /** Where runs are recorded (repository.ts `createTaskRunRepository` on AWS). */
  readonly runs: TaskRunStore;
  /** Sends one due run to the work queue; throws when the queue did not take it. */
  readonly publishWork: (work: TaskWorkMessage) => Promise<void>;
  readonly now?: () => Date;
  /**
   * How long a delivery that recorded a run holds the right to publish it: the consumer's timeout, after which
   * the invocation holding it is surely gone. Shorter than the queue's visibility timeout, so a redelivery after a
   * crash always finds it expired.
   */
  readonly publishLeaseMs?: number;
  /** How long a duplicate waits for its twin's publication before it fails and comes back later (default 750 ms). */
  readonly publicationWaitMs?: number;
  /**
   * How long a firing that arrived before its run is due waits for it in the invocation (default 5 s: a scheduler
   * clock a little ahead). Earlier than that, it fails (RunNotDue) and SQS brings it back after the visibility timeout.
   */
  readonly earlyWaitMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A run item as the task's answer lists it (without the publication bookkeeping). */
export const publicRun = ({ ScheduledDateTime_utc, RecordedDateTime_utc, Outcome, Reason }: TaskRun): TaskRun => ({
  ScheduledDateTime_utc,
  RecordedDateTime_utc,
  Outcome,
  ...(Reason !== undefined ? { Reason } : {}),
});

/** The note of a publication, sent again when it fails: five sends (each with the SDK's own attempts) over about 2 s. */
const notePolicy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
/** No send of the note starts later than this after the first (a stalled DynamoDB: each send may take 9 s). */
const noteBudgetMs = 5_000;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Records firings exactly once and publishes each recorded `Run` at least once. */
export const createRunRecorder = ({
  runs,
  publishWork,
  now = () => new Date(),
  publishLeaseMs = consumerTimeoutSeconds * 1000,
  publicationWaitMs = 750,
  earlyWaitMs = 5_000,
  sleep = sleepFor,
}: RunRecorderOptions) => {
  const dueWork = (firing: TaskFiring, run: Pick<StoredRun, 'Version' | 'TaskTypeID'>): TaskWorkMessage => ({
    tenantId: firing.tenantId,
    taskId: firing.taskId,
    taskTypeId: run.TaskTypeID ?? 0,
    version: run.Version,
    scheduledTime: firing.scheduledTime.toISOString(),
    runKey: workRunKey(firing),
  });

  /**
   * Publishes, then notes it on the run item, so a later duplicate stops there. Once sent, the note must not fail the
   * delivery for a moment's trouble (a throttle past the SDK's attempts, a 500): its redelivery, the lease run out by
   * then, would publish the run again (a chaos run: the note throttled three times in a row, and the run was published
   * twice). It is an idempotent write, so it is sent again under `notePolicy`; past that the delivery fails, and the
   * run may be published twice (at least once, as the work queue's contract says).
   */
  const publish = async (firing: TaskFiring, run: Pick<StoredRun, 'Version' | 'TaskTypeID'>): Promise<void> => {
    await publishWork(dueWork(firing, run));
    // Sent again for a moment's trouble only: never a refused condition (the run item gone), and not past `noteBudgetMs`
    // (sends that hang for the SDK's whole timeout would take the consumer past its own, and every record with it).
    const giveUpAt = now().getTime() + noteBudgetMs;
    await withOptimisticRetry(() => runs.markPublished(firing, now().toISOString()), {
      policy: notePolicy,
      isRetryable: (error) => !isConditionFailure(error) && now().getTime() < giveUpAt,
      sleep,
    });
  };

  const leaseUntil = () => new Date(now().getTime() + publishLeaseMs).toISOString();

  /**
   * A run that is already recorded: published, or not a `Run`, means nothing to do. Otherwise the delivery that
   * recorded it died between the write and the send (or is still sending): once its lease has run out, take the
   * lease and publish.
   */
  const resumeDuplicate = async (firing: TaskFiring, leaseId: string): Promise<RunOutcome> => {
    // A twin delivered at the same moment publishes within milliseconds: wait for it a little (50, 100, 200, 400 ms)
    // rather than fail and come back after a whole visibility timeout.
    let stored: StoredRun | undefined;
    for (let waitMs = 50, waited = 0; ; waited += waitMs, waitMs *= 2) {
      stored = await runs.readRun(firing);
      if (!stored) throw new VersionConflict();
      if (stored.Outcome !== 'Run' || stored.PublishedDateTime_utc !== undefined) return { outcome: 'Duplicate', run: publicRun(stored), published: false };
      const leased = stored.PublishLeaseId !== leaseId && stored.PublishLeaseUntil !== undefined && stored.PublishLeaseUntil > now().toISOString();
      if (!leased) break;
      if (waited + waitMs > publicationWaitMs) throw new RunPublicationInProgress();
      await sleep(waitMs);
    }
    if (stored.PublishLeaseId !== leaseId && !(await runs.takePublishLease(firing, stored.PublishLeaseId, leaseId, leaseUntil()))) {
      throw new RunPublicationInProgress();
    }
    await publish(firing, stored);
    return { outcome: 'Duplicate', run: publicRun(stored), published: true };
  };

  const record = async (delivered: TaskFiring): Promise<RunOutcome> => {
    // One lease id per delivery: an SDK retry of our own write finds it ours and goes on publishing.
    const leaseId = randomUUID();
    let waited = false;
    const attempt = async (): Promise<RunOutcome> => {
      const task = await runs.readTaskState(delivered.tenantId, delivered.taskId);
      const firing = firingOfRun(task, delivered);
      // A one-off run recorded before runs were known by their due time is under its firing's own time: that firing,
      // delivered again, resumes it (published once), never records the task's run a second time under the due time.
      if (firing !== delivered && task?.Status === 'Completed' && (await runs.readRun(delivered))) return resumeDuplicate(delivered, leaseId);
      const recordedAt = now();
      const plan = planRun(task, firing, recordedAt);
      if (plan.kind === 'ignore') return { outcome: 'Ignored', why: plan.why };
      if (plan.kind === 'early') {
        // Never run before the run is due: wait a moment in the invocation, or come back later.
        const earlyMs = plan.dueAt.getTime() - recordedAt.getTime();
        if (waited || earlyMs > earlyWaitMs) throw new RunNotDue(plan.dueAt);
        waited = true;
        await sleep(earlyMs);
        return attempt();
      }
      const run: TaskRun = {
        ScheduledDateTime_utc: firing.scheduledTime.toISOString(),
        RecordedDateTime_utc: recordedAt.toISOString(),
        ...plan.run,
      };
      const stored: StoredRun = {
        ...run,
        Version: firing.version,
        ...(task?.TaskTypeID !== undefined ? { TaskTypeID: task.TaskTypeID } : {}),
        ...(plan.publish ? { PublishLeaseId: leaseId, PublishLeaseUntil: leaseUntil() } : {}),
      };
      try {
        await runs.record(firing, stored, plan.advance && task ? { read: task, advance: plan.advance } : undefined);
      } catch (error) {
        if (error instanceof RunAlreadyRecorded) return resumeDuplicate(firing, leaseId);
        throw error;
      }
      if (plan.publish) await publish(firing, stored);
      return { outcome: 'Recorded', run, published: plan.publish };
    };
    return withOptimisticRetry(attempt);
  };

  return { record };
};
