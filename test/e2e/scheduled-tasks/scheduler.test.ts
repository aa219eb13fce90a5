// End to end: a saved task's schedule in the local EventBridge Scheduler emulation (read directly through its admin
// endpoint, AWS_ENDPOINT_URL_SCHEDULER). An enabled task has one schedule named t<tenant>-task<id> in the stage's
// group, with the expression recurrence.ts derives and the task's version in its Input; an update replaces it; a
// disabled or inactive task has none; a refused save creates none.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetScheduleCommand, ListSchedulesCommand, ResourceNotFoundException, SchedulerClient } from '@aws-sdk/client-scheduler';
import { localScheduleGroupName } from '#infra/local/stack';
import { scheduleNameOf } from '#shared/scheduled-tasks/schedule-sync';
import { tokenFor } from '#test/support/http';
import { freshTenantId } from '#test/support/tenant-items';
import { quarterHourly, saveTask, tomorrow } from './support';

const tenant = freshTenantId();
let token: string;
let scheduler: SchedulerClient;

beforeAll(async () => {
  token = await tokenFor({ tenant });
  scheduler = new SchedulerClient({ region: process.env.AWS_REGION ?? 'us-east-1' });
});
afterAll(() => scheduler.destroy());

const scheduleOf = async (id: number) => {
  try {
    return await scheduler.send(new GetScheduleCommand({ Name: scheduleNameOf(tenant, id), GroupName: localScheduleGroupName }));
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
};
const tenantSchedules = async () => {
  const { Schedules = [] } = await scheduler.send(new ListSchedulesCommand({ GroupName: localScheduleGroupName, NamePrefix: `t${tenant}-` }));
  return Schedules.map((schedule) => schedule.Name).sort();
};

describe('the schedule of a saved task', () => {
  it('is a rate() for a minute interval, on the grid of TimeOfDay, with the task version in its Input', async () => {
    const saved = await saveTask(token, quarterHourly);
    expect(saved.status).toBe(201);
    const id = saved.json.Value.ID as number;
    expect(saved.json.Value.ScheduleState).toBe('Enabled');
    const schedule = await scheduleOf(id);
    expect(schedule).toMatchObject({ Name: `t${tenant}-task${id}`, GroupName: localScheduleGroupName, ScheduleExpression: 'rate(15 minutes)', ScheduleExpressionTimezone: 'UTC', State: 'ENABLED' });
    expect((schedule?.StartDate?.getTime() ?? 0) % (15 * 60_000)).toBe(0);
    expect(JSON.parse(schedule?.Target?.Input ?? '{}')).toMatchObject({ tenantId: tenant, taskId: id, version: 1 });

    // An update replaces the definition and names the new version.
    const updated = await saveTask(token, { ID: id, IsRecurringSchedule: true, Interval: 1, IntervalType: 3, TimeOfDay: '2026-01-05T09:00:00+11:00', TimeZone: 'Australia/Sydney' });
    expect(updated.status).toBe(200);
    expect(await scheduleOf(id)).toMatchObject({ ScheduleExpression: 'cron(0 9 * * ? *)', ScheduleExpressionTimezone: 'Australia/Sydney' });
    expect(JSON.parse((await scheduleOf(id))?.Target?.Input ?? '{}')).toMatchObject({ version: 2 });

    // Disabled: the schedule is deleted and the task says so.
    const disabled = await saveTask(token, { ID: id, IsEnabled: false });
    expect(disabled.json.Value).toMatchObject({ Status: 'Disabled', ScheduleState: 'Disabled' });
    expect(await scheduleOf(id)).toBeUndefined();
    // Enabled again, then inactive: back, then gone.
    expect((await saveTask(token, { ID: id, IsEnabled: true })).json.Value.ScheduleState).toBe('Enabled');
    expect(await scheduleOf(id)).toBeDefined();
    expect((await saveTask(token, { ID: id, IsActive: false })).json.Value.ScheduleState).toBe('Disabled');
    expect(await scheduleOf(id)).toBeUndefined();
  });

  it('is an at() in UTC that deletes itself after it fires, for a one-off task', async () => {
    const time = tomorrow();
    const saved = await saveTask(token, { Name: 'Once', TaskTypeID: 2, IsRecurringSchedule: false, TimeOfDay: time });
    const schedule = await scheduleOf(saved.json.Value.ID as number);
    expect(schedule).toMatchObject({ ScheduleExpression: `at(${time.slice(0, 16)}:00)`, ScheduleExpressionTimezone: 'UTC', ActionAfterCompletion: 'DELETE' });
  });

  it('is a monthly cron on the last day for day 31 (month ends run on the last day of shorter months)', async () => {
    const saved = await saveTask(token, { Name: 'Month end', TaskTypeID: 2, IsRecurringSchedule: true, Interval: 1, IntervalType: 5, TimeOfDay: '2026-01-31T18:00:00+10:00', TimeZone: 'Australia/Brisbane' });
    expect(await scheduleOf(saved.json.Value.ID as number)).toMatchObject({ ScheduleExpression: 'cron(0 18 L * ? *)', ScheduleExpressionTimezone: 'Australia/Brisbane' });
  });

  it('does not exist for a refused save', async () => {
    const before = await tenantSchedules();
    for (const body of [{ ...quarterHourly, Interval: 0 }, { ...quarterHourly, TimeZone: 'Nowhere/City' }, { ...quarterHourly, IntervalType: 7 }]) {
      expect((await saveTask(token, body)).status).toBe(400);
    }
    expect(await tenantSchedules()).toEqual(before);
  });
});
