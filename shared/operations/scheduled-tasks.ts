// Operations manifest: scheduled tasks (issue 8). The save stores the task, seals its credentials and brings its
// EventBridge Scheduler schedule in line; the get (beyond the spec) reads it back with its latest runs.
import { ActionResults } from '#shared/schemas/envelopes';
import { ScheduledTask, ScheduledTaskXml } from '#shared/schemas/scheduled-task';
import { bodyProblems, idPath, defineOperation } from './operation';

const ScheduledTaskAnswer = ActionResults(ScheduledTask);

export const scheduledTaskSave = defineOperation({
  operationId: 'scheduledTaskSave',
  summary: 'Save a scheduled task',
  description:
    '`ID` 0 or absent creates (201 with a Location header); a positive `ID` updates (200; 404 when it is not the ' +
    "tenant's), merging: an absent field keeps its stored value, an empty one clears it. A stale `Version` answers 409. " +
    'Credentials in `AdaptorDetails.TokenDetails` and secret-looking `Instructions[].Value` are encrypted at rest and ' +
    'never returned (`Has<Field>: true`). After the task is stored its schedule is created, updated or deleted on ' +
    'EventBridge Scheduler; when the scheduler fails the task is still saved, with `ScheduleState: "Pending"`, and a ' +
    'retry brings the schedule in line. Server-owned fields (Status, run times, ScheduleState, Runs, audit) are ignored. ' +
    'Rules between fields, checked on the task as merged (400): Name (not blank), TaskTypeID (not 0) and TimeOfDay are ' +
    'required; IsRecurringSchedule is required when Interval or IntervalType is sent; a recurring task needs IntervalType ' +
    '1 to 5 and Interval from 1 to a year of its unit; RecurrenceType 2 (local time) needs a day, week or month interval ' +
    'and 1 (elapsed time) anything but months; a one-off task whose schedule changed runs in the future; TimeZone is an ' +
    'IANA zone name of the server\'s time zone database (case-sensitive); secret instruction KeyNames are unique. ' +
    '`Idempotency-Key` makes a retry safe (a create above all: nothing in a task is unique, so a create sent again ' +
    'without a key makes a second task): the same key with the same body replays the first answer, status, body and ' +
    'Location, and takes no ID; a replay after a lost answer may say `ScheduleState: "Pending"` (the task was stored ' +
    'and its schedule is brought in line by the reconciler). Credential values are not part of what the key compares.',
  area: 'scheduled-tasks',
  method: 'POST',
  path: '/ScheduledTasks/',
  module: 'save',
  requestBody: { schema: ScheduledTask, required: true, xmlSchema: ScheduledTaskXml },
  success: { status: 200, schema: ScheduledTaskAnswer, description: 'The task was updated (201 with Location when created).' , also: [{ status: 201, description: 'The task was created; Location is its URL.' }] },
  problems: [...bodyProblems, 404, 409, 422],
  idempotencyKey: true,
  /**
   * Read the stored task and the key's claim; the ID sequence and the update and schedule state (UpdateItem); a
   * create (PutItem); the key's claim and its restated answer (PutItem, UpdateItem, in the write's transaction); an
   * ID given back by a create that wrote nothing (DeleteItem of the sequence item its ID created, or UpdateItem).
   */
  tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  /** Sync the task's schedule, seal its credentials (GenerateDataKey only), queue a sync retry (SendMessage only). */
  grants: ['manageSchedules', 'sealSecrets', 'sendScheduleSync'],
});

export const scheduledTaskGet = defineOperation({
  operationId: 'scheduledTaskGet',
  summary: 'Get a scheduled task with its latest runs',
  description:
    'Beyond the spec: the task (strongly consistent), its next and last run, the state of its schedule, and its ' +
    "latest 20 runs newest first. Credentials are never returned (`Has<Field>: true`). Another tenant's task: 404.",
  area: 'scheduled-tasks',
  method: 'GET',
  path: '/ScheduledTasks/{id}',
  module: 'get',
  pathParameters: idPath,
  success: { status: 200, schema: ScheduledTaskAnswer, description: 'The task with its latest runs.' },
  problems: [400, 401, 404, 406],
  tableAccess: ['dynamodb:Query'],
});

export const scheduledTaskOperations = [scheduledTaskSave, scheduledTaskGet] as const;
