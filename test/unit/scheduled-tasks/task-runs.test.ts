// Unit tests of the run rules (`planRun`): what one firing of a task's schedule comes to, with an injected clock:
// stale versions, firings that are not runs, disabled tasks, misfires, one-off completion, and LastRun/NextRun that
// never move backwards.
import { describe, expect, it } from '@jest/globals';
import { quarterHourlyTask } from '#test/support/task-runs';
import { planRun, UnknownTaskVersion, UnreadableTaskSchedule, workRunKey, type StoredTaskState, type TaskFiring } from '#shared/scheduled-tasks/runs';

const at = (iso: string) => new Date(iso);
/** Every 15 minutes from 09:00 UTC, version 3. */
const quarterHourly: StoredTaskState = quarterHourlyTask;
const firing = (scheduledTime: string, version = 3): TaskFiring => ({ tenantId: 1, taskId: 5, version, scheduledTime: at(scheduledTime) });

describe('a run', () => {
  it('records Run, sets LastRun, advances NextRun by one interval and publishes', () => {
    expect(planRun(quarterHourly, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:15:02Z'))).toEqual({
      kind: 'record',
      run: { Outcome: 'Run' },
      advance: { LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' },
      publish: true,
    });
  });

  it('is still a run when late by less than one interval', () => {
    const plan = planRun(quarterHourly, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:29:59Z'));
    expect(plan).toMatchObject({ run: { Outcome: 'Run' }, publish: true });
  });

  it('never moves LastRun or NextRun backwards when an earlier run arrives after a later one', () => {
    const after = { ...quarterHourly, LastRunDateTime_utc: '2026-03-02T09:30:00.000Z', NextRunDateTime_utc: '2026-03-02T09:45:00.000Z' };
    expect(planRun(after, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:16:00Z'))).toMatchObject({
      run: { Outcome: 'Run' },
      advance: { LastRunDateTime_utc: '2026-03-02T09:30:00.000Z', NextRunDateTime_utc: '2026-03-02T09:45:00.000Z' },
    });
  });

  it('completes a one-off task: Status Completed, CompletedDateTime_utc the recording time, no NextRun left', () => {
    const once: StoredTaskState = { Version: 1, IsEnabled: true, IsActive: true, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T09:00:00+10:00', TaskTypeID: 2 };
    expect(planRun(once, firing('2026-03-01T23:00:00Z', 1), at('2026-03-01T23:00:01Z'))).toEqual({
      kind: 'record',
      run: { Outcome: 'Run' },
      advance: {
        LastRunDateTime_utc: '2026-03-01T23:00:00.000Z',
        NextRunDateTime_utc: undefined,
        completed: { Status: 'Completed', CompletedDateTime_utc: '2026-03-01T23:00:01.000Z', ScheduleState: 'Deleted' },
      },
      publish: true,
    });
  });

  it('runs a one-off task however late (it never misfires)', () => {
    const once: StoredTaskState = { Version: 1, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T09:00:00Z' };
    expect(planRun(once, firing('2026-03-02T09:00:00Z', 1), at('2026-03-09T09:00:00Z'))).toMatchObject({ run: { Outcome: 'Run' }, publish: true });
  });

  it('keeps the local time across a DST change: the next daily run of a Sydney task after the April change', () => {
    const sydney: StoredTaskState = { Version: 1, IsRecurringSchedule: true, Interval: 1, IntervalType: 3, TimeOfDay: '2026-04-03T09:00:00+11:00', TimeZone: 'Australia/Sydney' };
    // 4 April 09:00 AEDT (22:00Z on the 3rd); clocks go back on the 5th, so the 5th's 09:00 AEST is 23:00Z on the 4th.
    expect(planRun(sydney, firing('2026-04-03T22:00:00Z', 1), at('2026-04-03T22:00:01Z'))).toMatchObject({
      advance: { NextRunDateTime_utc: '2026-04-04T23:00:00.000Z' },
    });
  });
});

describe('skipped runs', () => {
  it('records a firing of an older Version as Skipped (StaleVersion): task untouched, never published', () => {
    expect(planRun(quarterHourly, firing('2026-03-02T09:15:00Z', 2), at('2026-03-02T09:15:01Z'))).toEqual({
      kind: 'record',
      run: { Outcome: 'Skipped', Reason: 'StaleVersion' },
      publish: false,
    });
  });

  it('runs a firing of an older Version when no save changed the schedule since (a rename): judged on the task as it is', () => {
    // Version 3 renamed the task; its schedule is Version 2's, so Version 2's firing is still the task's run.
    const renamed: StoredTaskState = { ...quarterHourly, ScheduleVersion: 2 };
    expect(planRun(renamed, firing('2026-03-02T09:15:00Z', 2), at('2026-03-02T09:15:01Z'))).toMatchObject({ run: { Outcome: 'Run' }, publish: true });
    // Older than the save that changed the schedule: stale. Disabled since: skipped as Disabled, not run.
    expect(planRun(renamed, firing('2026-03-02T09:15:00Z', 1), at('2026-03-02T09:15:01Z'))).toMatchObject({ run: { Outcome: 'Skipped', Reason: 'StaleVersion' } });
    expect(planRun({ ...renamed, IsEnabled: false }, firing('2026-03-02T09:15:00Z', 2), at('2026-03-02T09:15:01Z'))).toMatchObject({ run: { Outcome: 'Skipped', Reason: 'Disabled' } });
    // A firing of a time the schedule has no run is still not a run.
    expect(planRun(renamed, firing('2026-03-02T09:07:00Z', 2), at('2026-03-02T09:07:01Z'))).toEqual({ kind: 'ignore', why: 'NotARun' });
  });

  it('takes an item without the schedule’s Version (written before it was kept) as changed by its last save: every older Version is stale', () => {
    expect(planRun(quarterHourly, firing('2026-03-02T09:15:00Z', 2), at('2026-03-02T09:15:01Z'))).toMatchObject({ run: { Reason: 'StaleVersion' } });
  });

  it('records a stale firing even at a time the current schedule has no run', () => {
    expect(planRun(quarterHourly, firing('2026-03-02T09:07:00Z', 1), at('2026-03-02T09:07:01Z'))).toMatchObject({ run: { Reason: 'StaleVersion' } });
  });

  it('refuses a Version newer than the stored one (no save ever wrote it)', () => {
    expect(() => planRun(quarterHourly, firing('2026-03-02T09:15:00Z', 4), at('2026-03-02T09:15:01Z'))).toThrow(UnknownTaskVersion);
  });

  it('records a run older than one interval as Skipped (Misfire), NextRun advanced past now, LastRun kept', () => {
    const withLast = { ...quarterHourly, LastRunDateTime_utc: '2026-03-02T09:00:00.000Z', NextRunDateTime_utc: '2026-03-02T09:15:00.000Z' };
    expect(planRun(withLast, firing('2026-03-02T09:15:00Z'), at('2026-03-02T10:02:00Z'))).toEqual({
      kind: 'record',
      run: { Outcome: 'Skipped', Reason: 'Misfire' },
      advance: { NextRunDateTime_utc: '2026-03-02T10:15:00.000Z' },
      publish: false,
    });
  });

  it('is a misfire exactly when the next run is due', () => {
    expect(planRun(quarterHourly, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:30:00Z'))).toMatchObject({ run: { Reason: 'Misfire' } });
    expect(planRun(quarterHourly, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:29:59.999Z'))).toMatchObject({ run: { Outcome: 'Run' } });
  });

  it.each([
    ['disabled', { IsEnabled: false }],
    ['inactive', { IsActive: false }],
    ['disabled and inactive', { IsEnabled: false, IsActive: false }],
  ])('records a run of a %s task as Skipped (Disabled), task untouched', (_, flags) => {
    expect(planRun({ ...quarterHourly, ...flags }, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:15:01Z'))).toEqual({
      kind: 'record',
      run: { Outcome: 'Skipped', Reason: 'Disabled' },
      publish: false,
    });
  });
});

describe('nothing recorded', () => {
  it('ignores a firing of a task that does not exist', () => {
    expect(planRun(undefined, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:15:01Z'))).toEqual({ kind: 'ignore', why: 'NoTask' });
  });

  it('ignores the firings of a local-time schedule that are not runs (every 3 days: the cron fires daily)', () => {
    const everyThirdDay: StoredTaskState = { Version: 1, IsRecurringSchedule: true, Interval: 3, IntervalType: 3, TimeOfDay: '2026-03-02T09:00:00+10:00', TimeZone: 'Australia/Brisbane' };
    const day = (n: number) => firing(`2026-03-${String(n).padStart(2, '0')}T23:00:00Z`, 1);
    const plans = [1, 2, 3, 4, 5, 6, 7].map((n) => planRun(everyThirdDay, day(n), at(`2026-03-${String(n).padStart(2, '0')}T23:00:01Z`)).kind);
    expect(plans).toEqual(['record', 'ignore', 'ignore', 'record', 'ignore', 'ignore', 'record']);
  });

  it('ignores a firing off the grid of a minute schedule', () => {
    expect(planRun(quarterHourly, firing('2026-03-02T09:16:00Z'), at('2026-03-02T09:16:01Z'))).toEqual({ kind: 'ignore', why: 'NotARun' });
  });

  it('refuses a stored task whose schedule fields make no schedule', () => {
    expect(() => planRun({ Version: 1, IsRecurringSchedule: true, TimeOfDay: 'soon' }, firing('2026-03-02T09:15:00Z', 1), at('2026-03-02T09:15:01Z'))).toThrow(
      UnreadableTaskSchedule,
    );
  });
});

describe('never before the time asked', () => {
  const once: StoredTaskState = { Version: 1, IsEnabled: true, IsActive: true, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T23:02:19Z', TaskTypeID: 2 };

  it('runs a one-off task asked with seconds at the next whole minute, the time its schedule fires', () => {
    expect(planRun(once, firing('2026-03-02T23:03:00Z', 1), at('2026-03-02T23:03:02Z'))).toMatchObject({
      kind: 'record',
      run: { Outcome: 'Run' },
      advance: { LastRunDateTime_utc: '2026-03-02T23:03:00.000Z', completed: { Status: 'Completed', ScheduleState: 'Deleted' } },
      publish: true,
    });
  });

  it('does not run a firing of an at() written to the minute (seconds dropped) before the time asked: not due until the next whole minute', () => {
    // The defect: at(23:02:00) fired at 23:02:02 for a task asked for 23:02:19.
    expect(planRun(once, firing('2026-03-02T23:02:00Z', 1), at('2026-03-02T23:02:02Z'))).toEqual({ kind: 'early', dueAt: at('2026-03-02T23:03:00Z') });
    expect(planRun(once, firing('2026-03-02T23:02:00Z', 1), at('2026-03-02T23:02:59.999Z'))).toEqual({ kind: 'early', dueAt: at('2026-03-02T23:03:00Z') });
    // Redelivered once it is due, it is the task's run (the recorder records it under the time it is due: firingOfRun), never lost.
    expect(planRun(once, firing('2026-03-02T23:02:00Z', 1), at('2026-03-02T23:05:01Z'))).toMatchObject({
      run: { Outcome: 'Run' },
      advance: { LastRunDateTime_utc: '2026-03-02T23:03:00.000Z' },
    });
    // Any other time is not this task's run.
    expect(planRun(once, firing('2026-03-02T23:01:00Z', 1), at('2026-03-02T23:05:00Z'))).toEqual({ kind: 'ignore', why: 'NotARun' });
  });

  it('does not run a firing that arrives before its scheduled time (the scheduler\'s clock ahead of ours)', () => {
    expect(planRun(quarterHourly, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:14:59.500Z'))).toEqual({ kind: 'early', dueAt: at('2026-03-02T09:15:00Z') });
    expect(planRun(quarterHourly, firing('2026-03-02T09:15:00Z'), at('2026-03-02T09:15:00.000Z'))).toMatchObject({ run: { Outcome: 'Run' } });
  });
});

it('names a run for workers by tenant, task and scheduled time', () => {
  expect(workRunKey(firing('2026-03-02T09:15:00Z'))).toBe('1:5:2026-03-02T09:15:00.000Z');
});
