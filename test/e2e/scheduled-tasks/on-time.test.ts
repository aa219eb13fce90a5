// End to end on the local stack: a task runs when it is asked to. A one-off task asked for a time with seconds, less
// than a minute ahead, is accepted; its answer says the whole minute it really runs at (rounded up: the scheduler
// fires with one-minute precision); the scheduler emulation fires it then, never before the time asked, and once it
// ran its schedule is gone (ScheduleState Deleted). And the schedule reconciler: its own schedule is in the emulation,
// and its firing (a message on the schedule-sync queue, handled by the isolated consumer through the IAM edge with
// its gsi6 grant) restores the schedule of a task whose save died between its commit and its sync, and fires the run
// of a one-off task whose time passed meanwhile (its sendTaskRuns grant).
//
// The shared test stack runs on the real clock (the emulation's clock can be injected only in a stack started
// in-process), so the run is awaited by polling (at most about 90 s) and only relative times are asserted.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { GetScheduleCommand, ResourceNotFoundException, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { localScheduleGroupName } from '#infra/local/stack';
import { scheduleSyncQueue } from '#shared/events/queues';
import { taskKey, unsyncedTasksIndex } from '#shared/scheduled-tasks/keys';
import { reconcilerSchedule } from '#shared/schedules/service-schedules';
import { createScheduledTaskRepository } from '#shared/scheduled-tasks/repository';
import { scheduleNameOf } from '#shared/scheduled-tasks/schedule-sync';
import { eventually } from '#test/support/document-events';
import { tokenFor } from '#test/support/http';
import { localTaskStack } from '#test/support/task-runs-stack';
import { freshTenantId } from '#test/support/tenant-items';
import { getTask, openTable, saveTask } from './support';

const { sqs, table, tableName } = localTaskStack();
const tenantId = freshTenantId();
let token: string;
let scheduler: SchedulerClient;

beforeAll(async () => {
  token = await tokenFor({ tenant: tenantId });
  scheduler = new SchedulerClient({ region: process.env.AWS_REGION ?? 'us-east-1' });
});
afterAll(() => scheduler.destroy());

const scheduleNamed = async (name: string) => {
  try {
    return await scheduler.send(new GetScheduleCommand({ Name: name, GroupName: localScheduleGroupName }));
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
};

/** The task's answer once it is Completed (its run recorded), polled. */
const completed = (id: number, timeoutMs: number) =>
  eventually(
    async () => {
      const got = await getTask(token, id);
      return got.json.Value.Status === 'Completed' ? got : undefined;
    },
    `task ${id} completed`,
    { timeoutMs, intervalMs: 250 },
  );

it('runs a one-off task asked with seconds, less than a minute ahead, at the next whole minute and never before; its schedule is then Deleted', async () => {
  // The next whole minute at least 25 s away, and a time with seconds 1 to 30 s before it (at least 10 s ahead).
  const nowMs = Date.now();
  const runsAt = new Date(Math.ceil((nowMs + 25_000) / 60_000) * 60_000);
  const askedMs = runsAt.getTime() - Math.max(1_000, Math.floor(Math.random() * Math.min(30_000, runsAt.getTime() - nowMs - 10_000)));
  const asked = new Date(askedMs);

  const saved = await saveTask(token, { Name: 'Soon', TaskTypeID: 4, IsRecurringSchedule: false, TimeOfDay: asked.toISOString() });
  expect(saved.status).toBe(201);
  expect(saved.json.Value).toMatchObject({ Status: 'Scheduled', ScheduleState: 'Enabled', NextRunDateTime_utc: runsAt.toISOString() });
  const id = saved.json.Value.ID as number;
  expect((await scheduleNamed(scheduleNameOf(tenantId, id)))?.ScheduleExpression).toBe(`at(${runsAt.toISOString().slice(0, 19)})`);

  const answer = await completed(id, 120_000);
  const [run] = answer.json.Value.Runs ?? [];
  expect(run).toMatchObject({ ScheduledDateTime_utc: runsAt.toISOString(), Outcome: 'Run' });
  expect(Date.parse(run?.RecordedDateTime_utc ?? '')).toBeGreaterThanOrEqual(askedMs);
  expect(Date.parse(answer.json.Value.CompletedDateTime_utc ?? '')).toBeGreaterThanOrEqual(askedMs);
  expect(answer.json.Value).toMatchObject({ LastRunDateTime_utc: runsAt.toISOString(), ScheduleState: 'Deleted' });
  expect(answer.json.Value).not.toHaveProperty('NextRunDateTime_utc');
  expect(await scheduleNamed(scheduleNameOf(tenantId, id))).toBeUndefined();
}, 150_000);

it('refuses a one-off time that has just passed (seconds count), and changes nothing', async () => {
  const passed = new Date(Date.now() - 2_000).toISOString();
  const stored = openTable();
  const before = await stored.tenantItems(tenantId);
  const refused = await saveTask(token, { Name: 'Too late', TaskTypeID: 4, IsRecurringSchedule: false, TimeOfDay: passed });
  expect(refused.status).toBe(400);
  expect(JSON.stringify(refused.json)).toContain('must be in the future');
  expect(await stored.tenantItems(tenantId)).toEqual(before);
  await stored.expectNothingElsewhere();
  stored.close();
});

it('reconciles through the stack: its own schedule exists, and its firing restores the schedule of a task a dead save left out of line', async () => {
  expect(await scheduleNamed(reconcilerSchedule.name)).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });

  // What a save that died after its commit leaves: the task item, Enabled, on the index, two minutes old; no schedule.
  const id = 900_001;
  const savedAt = new Date(Date.now() - 120_000).toISOString();
  const task = { ID: id, Name: 'Left behind', TaskTypeID: 2, IsRecurringSchedule: true, Interval: 1, IntervalType: 2, TimeOfDay: '2026-01-01T00:00:00Z', IsEnabled: true, IsActive: true, Status: 'Scheduled', ScheduleState: 'Enabled' as const, Version: 1, ModifiedDateTime_utc: savedAt, CreatedDateTime_utc: savedAt };
  await createScheduledTaskRepository(table).write(tenantId, { task }, undefined);
  expect(await scheduleNamed(scheduleNameOf(tenantId, id))).toBeUndefined();

  // The reconciler's firing, as its schedule sends it.
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: scheduleSyncQueue.localQueueName }));
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ reconcile: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }) }));

  const item = await eventually(
    async () => {
      const { Item } = await table.client.send(new GetCommand({ TableName: tableName, Key: taskKey(tenantId, id), ConsistentRead: true }));
      return Item && !(unsyncedTasksIndex.partitionKey in Item) ? Item : undefined;
    },
    'the task off the reconciler index',
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  expect(item).toMatchObject({ ScheduleState: 'Enabled', Version: 1 });
  const schedule = await scheduleNamed(scheduleNameOf(tenantId, id));
  expect(schedule).toMatchObject({ ScheduleExpression: 'rate(1 hour)', State: 'ENABLED' });
  expect(JSON.parse(schedule?.Target?.Input ?? '{}')).toMatchObject({ tenantId, taskId: id, version: 1 });
}, 60_000);

it('reconciles a one-off task whose time passed while it was left out of line: its run is fired late, once, never lost', async () => {
  // A dead save's one-off task, due two minutes ago (asked with seconds), never scheduled.
  const id = 900_002;
  const savedAt = new Date(Date.now() - 240_000);
  const dueAt = new Date(Math.ceil((Date.now() - 120_000) / 60_000) * 60_000);
  const task = { ID: id, Name: 'Overdue', TaskTypeID: 3, IsRecurringSchedule: false, TimeOfDay: new Date(dueAt.getTime() - 41_000).toISOString(), IsEnabled: true, IsActive: true, Status: 'Scheduled', ScheduleState: 'Enabled' as const, NextRunDateTime_utc: dueAt.toISOString(), Version: 1, ModifiedDateTime_utc: savedAt.toISOString(), CreatedDateTime_utc: savedAt.toISOString() };
  await createScheduledTaskRepository(table).write(tenantId, { task }, undefined);

  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: scheduleSyncQueue.localQueueName }));
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ reconcile: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }) }));

  const answer = await completed(id, 30_000);
  expect(answer.json.Value.Runs).toEqual([{ ScheduledDateTime_utc: dueAt.toISOString(), RecordedDateTime_utc: expect.any(String), Outcome: 'Run' }]);
  expect(answer.json.Value).toMatchObject({ ScheduleState: 'Deleted', LastRunDateTime_utc: dueAt.toISOString() });
  expect(await scheduleNamed(scheduleNameOf(tenantId, id))).toBeUndefined();
}, 60_000);
