// OpenAPI examples: scheduled tasks. The run saves a daily task with a credential (sealed, never returned), reads it,
// then moves its time of day.
import { envelope } from './envelopes';
import type { AreaExamples } from './types';

const created = '2026-03-02T01:15:00.000Z';
const modified = '2026-03-02T01:30:00.000Z';

const schedule = {
  Name: 'Nightly export',
  TaskTypeID: 7,
  IsRecurringSchedule: true,
  Interval: 1,
  IntervalType: 3,
  TimeOfDay: '2026-01-01T02:00:00+08:00',
  TimeZone: 'Australia/Perth',
};
const later = { ...schedule, TimeOfDay: '2026-01-01T03:00:00+08:00' };
/** The save example's body: a daily task with a credential (the test tiers send it too, e.g. the fault mode's KMS test). */
export const dailyTaskRequest = {
  ...schedule,
  AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', TokenKey: 'tk-example', TokenSecret: 'ts-example' } },
};

const task = {
  ID: 1,
  ...schedule,
  Status: 'Scheduled',
  IsEnabled: true,
  IsActive: true,
  Version: 1,
  NextRunDateTime_utc: '2026-03-02T18:00:00.000Z',
  ScheduleState: 'Enabled',
  CreatedDateTime_utc: created,
  ModifiedDateTime_utc: created,
  CreatedByUserID: 1,
  ModifiedByUserID: 1,
  AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', HasTokenKey: true, HasTokenSecret: true } },
};

export const scheduledTaskExamples: AreaExamples = {
  operations: {
    scheduledTaskSave: {
      requests: {
        daily: {
          summary: 'A daily task at 02:00 Perth time, with a credential',
          body: dailyTaskRequest,
        },
        move: { summary: 'Task 1 at 03:00 instead (its current Version)', body: { ID: 1, Version: 1, ...later } },
      },
      responses: {
        201: envelope(task),
        200: envelope({ ...task, ...later, Version: 2, NextRunDateTime_utc: '2026-03-02T19:00:00.000Z', ModifiedDateTime_utc: modified }),
      },
    },
    scheduledTaskGet: { parameters: { id: 1 }, responses: { 200: envelope({ ...task, Runs: [] }) } },
  },
  run: [
    { operationId: 'scheduledTaskSave', request: 'daily', status: 201 },
    { operationId: 'scheduledTaskGet', status: 200 },
    { operationId: 'scheduledTaskSave', request: 'move', status: 200 },
  ],
};
