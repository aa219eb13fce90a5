// Domain: the ports the scheduled-task area declares for its storage (as aws-samples/serverless-typescript-demo's
// ProductStore), in its own terms: `ScheduledTaskStore` (the tasks: the service, the schedule sync and the
// reconciler) and `TaskRunStore` (a task's runs: the run recorder, runs.ts). repository.ts is the DynamoDB adapter of
// both; the unit tests hold them in memory. No other module of the area talks to the table.
import type { StoredAdaptorDetails } from '#shared/crypto/secret-fields';
import type { KeyClaimItem } from '#shared/data/idempotency';
import type { ScheduleState, ScheduledTask, ScheduledTaskRun } from '#shared/schemas/scheduled-task';

export type { KeyClaimItem };

/** The task's own fields as stored; ID, TenantID-free (the store is per tenant), Version set. */
export type TaskRecord = Omit<ScheduledTask, 'AdaptorDetails' | 'Runs'> & { readonly ID: number; readonly Version: number };

/** A task as stored: its own fields (no adaptor details, no runs) and, when it has one, its adaptor in stored form. */
export interface StoredTask {
  readonly task: TaskRecord;
  readonly adaptor?: StoredAdaptorDetails;
  /** Read only: a save committed it and no schedule sync has succeeded since (the reconciler lists it). */
  readonly scheduleOutOfLine?: boolean;
  /**
   * The Version whose save last changed the fields that make the schedule (`scheduleVersion`); absent on an item
   * written before it was kept, and then taken as the Version.
   */
  readonly scheduleVersion?: number;
}

/**
 * The oldest Version whose firings are still the task's runs: the Version of the save that last changed the fields
 * that make the schedule (fields.ts `scheduleFields`). A save that changes none of them (a rename, another task
 * type) keeps it, so a firing of the schedule already on its way (in the queue, or sent by the scheduler between the
 * save's commit and its schedule sync) is still run; a firing of a schedule that was changed since is stale. An item
 * without it (written before it was kept) has every older Version stale, as then.
 */
export const scheduleVersionOf = (stored: { readonly Version: number; readonly ScheduleVersion?: number }): number => stored.ScheduleVersion ?? stored.Version;

/** What a save read of the stored task and requires unchanged at its write (`LastRunDateTime_utc` undefined: no run recorded). */
export interface TaskAsRead {
  readonly Version: number;
  readonly LastRunDateTime_utc: string | undefined;
}

/** The part of a stored task a save's write requires unchanged. */
export const asRead = (task: Pick<TaskRecord, 'Version' | 'LastRunDateTime_utc'>): TaskAsRead => ({ Version: task.Version, LastRunDateTime_utc: task.LastRunDateTime_utc });

export interface ScheduledTaskStore {
  /** The next task ID of the tenant's sequence (taken before sealing: the ID is part of each secret's context). */
  nextId(tenantId: number): Promise<number>;
  /**
   * Gives back an ID a create took and wrote nothing with (its seal failed, or it was refused), so the sequence is as
   * it was; false when a later ID was taken meanwhile (the ID then stays a gap).
   */
  giveBackId(tenantId: number, id: number): Promise<boolean>;
  /** The task, strongly consistent, or undefined (another tenant's task is never found). */
  get(tenantId: number, id: number): Promise<StoredTask | undefined>;
  /**
   * The task with its latest runs, newest first, in one strongly consistent read, or undefined. Optional: a store
   * without it is read with `get` and the service's `latestRuns` port.
   */
  getWithRuns?(tenantId: number, id: number): Promise<{ readonly stored: StoredTask; readonly runs: readonly ScheduledTaskRun[] } | undefined>;
  /**
   * Writes a save: a create (`read` undefined) if no task has the ID; an update if the stored task is still as the
   * save read it, its Version and its LastRunDateTime_utc (else VersionConflict): the run recorder does not raise the
   * Version, so a run recorded between the save's read and its write fails the write, which the save decides again
   * from a fresh read, instead of undoing the run (a one-off task's Completed put back to Scheduled). Run-owned fields
   * are left alone unless `clearRunState`. The task is marked out of line (the reconciler's index) until
   * `setScheduleState` records a confirmed state. With an Idempotency-Key's claim, in the same transaction (a key
   * taken meanwhile is KeyAlreadyClaimed).
   */
  write(tenantId: number, next: StoredTask, read: TaskAsRead | undefined, clearRunState?: boolean, claim?: KeyClaimItem): Promise<void>;
  /**
   * Records the schedule's state if the task still has `version`; false when a newer save won. A confirmed state
   * takes the task off the reconciler's list; `Pending` keeps it there, or puts it back (listed from now). `restated`
   * (the key's claim with its final answer) is written with it, or alone when a newer save won.
   */
  setScheduleState(tenantId: number, id: number, version: number, state: ScheduleState, restated?: KeyClaimItem): Promise<boolean>;
  /**
   * The tasks whose schedule is not known to be in line (written by a save at or before `savedBefore`, no sync
   * confirmed since), oldest first per shard of the reconciler's index, read `pageSize` at a time. An entry that
   * names no task of ours is `undefined` (counted, never reconciled). The index may lag: a listed task may be in line
   * already, gone or saved again.
   */
  listOutOfLine(savedBefore: string, pageSize: number): AsyncIterable<{ readonly tenantId: number; readonly taskId: number } | undefined>;
}

/** One run as a task's answer lists it (C4). */
export interface TaskRun {
  readonly ScheduledDateTime_utc: string;
  readonly RecordedDateTime_utc: string;
  readonly Outcome: 'Run' | 'Skipped';
  readonly Reason?: 'Misfire' | 'StaleVersion' | 'Disabled';
}

/** A firing of a task's schedule: a TaskRunMessage (messages.ts) with its scheduled time read as an instant. */
export interface TaskFiring {
  readonly tenantId: number;
  readonly taskId: number;
  /** The task's `Version` when its schedule was written. */
  readonly version: number;
  /** `<aws.scheduler.scheduled-time>`: when the firing was due. */
  readonly scheduledTime: Date;
}

/** The task item's attributes the runs read (C4: sched-api stores them under these names). */
export interface StoredTaskState {
  readonly Version: number;
  /** `StoredTask.scheduleVersion` as the item holds it (`scheduleVersionOf`). */
  readonly ScheduleVersion?: number;
  readonly IsEnabled?: boolean;
  readonly IsActive?: boolean;
  readonly IsRecurringSchedule?: boolean;
  readonly Interval?: number;
  readonly IntervalType?: number;
  readonly RecurrenceType?: number;
  readonly TimeOfDay?: string;
  readonly TimeZone?: string;
  readonly TaskTypeID?: number;
  readonly LastRunDateTime_utc?: string;
  readonly NextRunDateTime_utc?: string;
  readonly Status?: string;
}

/** What the task item gets with a run: every attribute the runs write (and nothing else of the task). */
export interface TaskAdvance {
  readonly LastRunDateTime_utc?: string;
  /** `undefined`: no run remains (a one-off task's run, or the 2199 horizon): the attribute is removed. */
  readonly NextRunDateTime_utc: string | undefined;
  /** A one-off task's run: Completed, and its at() schedule deleted itself after firing (ActionAfterCompletion DELETE). */
  readonly completed?: { readonly Status: 'Completed'; readonly CompletedDateTime_utc: string; readonly ScheduleState: 'Deleted' };
}

/** A run as stored: the run and its publication bookkeeping. */
export interface StoredRun extends TaskRun {
  readonly Version: number;
  readonly TaskTypeID?: number;
  readonly PublishLeaseId?: string;
  readonly PublishLeaseUntil?: string;
  readonly PublishedDateTime_utc?: string;
}

/** The skips a firing of a newer Version may be recorded over (`recordsOver`). */
export const skipsRecordedOver: readonly NonNullable<StoredRun['Reason']>[] = ['StaleVersion', 'Disabled'];

/**
 * Whether a firing's run may be recorded where `stored` is: where nothing is, or over a StaleVersion or Disabled skip
 * of an older Version. A task edited while its schedule's firing was on its way has that firing skipped as stale; the
 * edit's own firing of the same time (its schedule rewritten, or a one-off task's run sent late by the schedule sync)
 * is the run, and must not find the time taken by the skip (before: a one-off task edited in the minute its firing
 * was late never ran). So too a one-off task whose firing found it disabled, then enabled again: the save fires its
 * overdue run at the new Version (before, the skip refused it, and the task stayed Scheduled with no run for ever; a
 * bad-day review). Anything else recorded stays: a firing is recorded once.
 */
export const recordsOver = (stored: Pick<StoredRun, 'Reason' | 'Version'> | undefined, run: Pick<StoredRun, 'Version'>): boolean =>
  stored === undefined || (stored.Reason !== undefined && skipsRecordedOver.includes(stored.Reason) && stored.Version < run.Version);

/** The run item exists: this firing was delivered before (`TaskRunStore.record`). */
export class RunAlreadyRecorded extends Error {
  override readonly name = 'RunAlreadyRecorded';
}

/** The runs of tasks: each firing recorded once, beside its task, and its publication noted. */
export interface TaskRunStore {
  /** The task's attributes the runs read (never its sealed secrets), strongly consistent, or undefined. */
  readTaskState(tenantId: number, taskId: number): Promise<StoredTaskState | undefined>;
  /** The run of a firing as stored, strongly consistent, or undefined. */
  readRun(firing: TaskFiring): Promise<StoredRun | undefined>;
  /**
   * Records a run, all or nothing: the run only if it is new or `recordsOver` the stored one (else
   * RunAlreadyRecorded), and with `advance` the task's new LastRun/NextRun, only if the task still has the Version
   * and the LastRun/NextRun of `read` (else ConcurrentModification: decide again from a fresh read, so a save that
   * came between, a disable or a new schedule, is judged).
   */
  record(firing: TaskFiring, run: StoredRun, advance?: { readonly read: StoredTaskState; readonly advance: TaskAdvance }): Promise<void>;
  /** Notes that the run was published, and drops its lease. */
  markPublished(firing: TaskFiring, at: string): Promise<void>;
  /**
   * Takes the publication lease of an unpublished run from the holder `theirs` (whose lease ran out): false when the
   * run was published or the lease changed hands meanwhile.
   */
  takePublishLease(firing: TaskFiring, theirs: string | undefined, leaseId: string, until: string): Promise<boolean>;
  /** A task's newest runs, newest first (strongly consistent), as its answer lists them. */
  latestRuns(tenantId: number, taskId: number, limit?: number): Promise<TaskRun[]>;
}
