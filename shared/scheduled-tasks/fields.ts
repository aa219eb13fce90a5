// Domain: the one table of the task item's own fields, with who writes each (README.md, "The fields and their
// owners"). Every list the area needs is read from it: the fields stored (the repository's codec), the fields a
// client writes (the save's merge), the fields that make the schedule (a change is a new schedule), the fields the
// run recorder reads, and those only it writes between saves. A unit test checks the table against the schema
// (test/unit/scheduled-tasks/fields.test.ts), with the mechanism tenant locations use (`fieldsOf`, shared/data/codec.ts).
import type { ScheduledTask } from '#shared/schemas/scheduled-task';

/**
 * Who writes a field: `client` (a save's body, merged), `server` (the save computes it), `scheduleSync` (the save's
 * sync, the retry and the reconciler record what the scheduler said), `runRecorder` (the task-runs consumer, between
 * saves; a save leaves it alone unless the schedule changed).
 */
export type FieldOwner = 'client' | 'server' | 'scheduleSync' | 'runRecorder';

export interface TaskField {
  readonly owner: FieldOwner;
  /** Part of the schedule: a change to it is a new schedule (checked against now, run state cleared). */
  readonly schedule?: true;
  /** Read by the run recorder (its projection of the task item: never the sealed secrets). */
  readonly readByRuns?: true;
}

/** The schema's fields the task item does not hold as own fields: the adaptor is stored sealed, the runs are items of their own. */
export const fieldsStoredElsewhere = ['AdaptorDetails', 'Runs'] as const;

type OwnField = Exclude<keyof ScheduledTask, (typeof fieldsStoredElsewhere)[number]>;

const client: TaskField = { owner: 'client' };
const server: TaskField = { owner: 'server' };
const scheduleField: TaskField = { owner: 'client', schedule: true, readByRuns: true };

/** Every own field of the task item, in the schema's order, with its owner. */
export const taskFieldTable = {
  ID: server,
  Name: client,
  NameFriendlyName: client,
  // The save sets it; the run recorder completes a one-off task (Completed) with CompletedDateTime_utc.
  Status: { owner: 'server', readByRuns: true },
  TimeOfDay: scheduleField,
  TimeZone: scheduleField,
  CompletedDateTime_utc: server,
  IsEnabled: { owner: 'client', readByRuns: true },
  IsActive: { owner: 'client', readByRuns: true },
  IsRecurringSchedule: scheduleField,
  Interval: scheduleField,
  IntervalType: scheduleField,
  RecurrenceType: scheduleField,
  TaskTypeID: { owner: 'client', readByRuns: true },
  DocumentID: client,
  DatTypeID: client,
  DatTypeFriendlyName: client,
  WorkflowID: client,
  IDs: client,
  Version: { owner: 'server', readByRuns: true },
  // The save computes it from the schedule; the run recorder advances it as runs are recorded (never backwards).
  NextRunDateTime_utc: { owner: 'server', readByRuns: true },
  LastRunDateTime_utc: { owner: 'runRecorder', readByRuns: true },
  ScheduleState: { owner: 'scheduleSync' },
  CreatedDateTime_utc: server,
  ModifiedDateTime_utc: server,
  CreatedByUserID: server,
  ModifiedByUserID: server,
} as const satisfies Record<OwnField, TaskField>;

export type TaskFieldName = keyof typeof taskFieldTable;

const fieldsWhere = (keep: (field: TaskField) => boolean): TaskFieldName[] =>
  (Object.keys(taskFieldTable) as TaskFieldName[]).filter((name) => keep(taskFieldTable[name]));

/** Every own field of the task item (what the repository stores and reads back). */
export const taskFields: readonly TaskFieldName[] = Object.keys(taskFieldTable) as TaskFieldName[];
/** The fields a save's body writes (merged with the stored task); the rest are ignored in a request. */
export const clientFields = fieldsWhere((field) => field.owner === 'client');
/** The fields that make the schedule. */
export const scheduleFields = fieldsWhere((field) => field.schedule === true);
/** The fields the run recorder reads. */
export const runReadFields = fieldsWhere((field) => field.readByRuns === true);
/** The fields only the run recorder writes between saves: a save's update leaves them unless the schedule changed. */
export const runOwnedFields = fieldsWhere((field) => field.owner === 'runRecorder');
