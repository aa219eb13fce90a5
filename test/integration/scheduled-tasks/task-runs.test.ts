// Integration: the run recorder against DynamoDB Local and the SQS server, with an injected clock. A run is
// recorded once and published once, whatever the duplicates (sequential or concurrent); stale versions, misfires
// and disabled tasks are recorded Skipped and never published; a one-off task completes; a delivery that dies
// between the write and the send is published by the redelivery once its lease runs out; a save whose read comes
// before a run's commit and whose write after it is decided again, never undoing the run. Task items are seeded
// with the attribute names of contract C4 (as the save stores them).
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from '#shared/data/client';
import { runKey, taskKey, taskPartition } from '#shared/scheduled-tasks/keys';
import { createScheduledTaskRepository, createTaskRunRepository } from '#shared/scheduled-tasks/repository';
import {
  createRunRecorder,
  createWorkPublisher,
  RunPublicationInProgress,
  type TaskFiring,
} from '#shared/scheduled-tasks/runs';
import type { TaskWorkMessage } from '#shared/scheduled-tasks/messages';
import { createScheduledTaskService, type ScheduleSyncRequest } from '#shared/scheduled-tasks/service';
import { localSecretCipher } from '#shared/crypto/envelope';
import { quarterHourlyTask, takeMessages } from '#test/support/task-runs';
import { localTaskStack } from '#test/support/task-runs-stack';
import { freshTenantId } from '#test/support/tenant-items';

const { tableName, table, sqs } = localTaskStack();

const at = (iso: string) => new Date(iso);
/** Every 15 minutes from 09:00 UTC, version 3. */
const quarterHourly = { ...quarterHourlyTask, Name: 'Nightly export' };

/** A task of a fresh tenant, stored as the save stores it. */
const seedTask = async (fields: Record<string, unknown> = quarterHourly) => {
  const tenantId = freshTenantId();
  const taskId = 5;
  await table.client.send(new PutCommand({ TableName: tableName, Item: { ...taskKey(tenantId, taskId), entity: 'ScheduledTask', ID: taskId, ...fields } }));
  return { tenantId, taskId };
};
const readTask = async (tenantId: number, taskId: number) =>
  (await table.client.send(new GetCommand({ TableName: tableName, Key: taskKey(tenantId, taskId), ConsistentRead: true }))).Item;
const partition = async (tenantId: number, taskId: number) =>
  (
    await table.client.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': taskPartition(tenantId, taskId) }, ConsistentRead: true }),
    )
  ).Items ?? [];

/** A work queue of this test, and every message on it so far (received and deleted). */
const workQueue = async () => {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `task-work-${randomUUID().slice(0, 8)}` }));
  const queueUrl = QueueUrl as string;
  const drain = () => takeMessages<TaskWorkMessage>(sqs, queueUrl);
  return { queueUrl, drain, publishWork: createWorkPublisher(queueUrl, sqs) };
};

/** A recorder whose clock the test sets. */
const recorderAt = (clock: { now: Date }, publishWork: (work: TaskWorkMessage) => Promise<void>) => createRunRecorder({ runs: createTaskRunRepository(table), publishWork, now: () => clock.now });

const firing = (task: { tenantId: number; taskId: number }, scheduledTime: string, version = 3): TaskFiring => ({
  ...task,
  version,
  scheduledTime: at(scheduledTime),
});

/** The table as the run recorder sees it, with `save` committed just before the first transaction it sends. */
const savingBeforeTheRunsWrite = (save: () => Promise<void>) => {
  let saved = false;
  const racing: TableContext = {
    tableName,
    client: {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand && !saved) {
          saved = true;
          await save();
        }
        return table.client.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient,
  };
  return { table: racing, saved: () => saved };
};

describe('a run', () => {
  it('is recorded once, advances the task and publishes one work message; a duplicate changes nothing', async () => {
    const task = await seedTask();
    const queue = await workQueue();
    const clock = { now: at('2026-03-02T09:15:01Z') };
    const recorder = recorderAt(clock, queue.publishWork);

    expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z'))).toEqual({
      outcome: 'Recorded',
      run: { ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Run' },
      published: true,
    });
    expect(await readTask(task.tenantId, task.taskId)).toEqual({
      ...taskKey(task.tenantId, task.taskId),
      entity: 'ScheduledTask',
      ID: task.taskId,
      ...quarterHourly,
      LastRunDateTime_utc: '2026-03-02T09:15:00.000Z',
      NextRunDateTime_utc: '2026-03-02T09:30:00.000Z',
    });
    const run = (await table.client.send(new GetCommand({ TableName: tableName, Key: runKey(task.tenantId, task.taskId, at('2026-03-02T09:15:00Z')) }))).Item;
    expect(run).toEqual({
      ...runKey(task.tenantId, task.taskId, at('2026-03-02T09:15:00Z')),
      entity: 'TaskRun',
      ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z',
      RecordedDateTime_utc: '2026-03-02T09:15:01.000Z',
      Outcome: 'Run',
      Version: 3,
      TaskTypeID: 7,
      PublishedDateTime_utc: '2026-03-02T09:15:01.000Z',
    });
    expect(await queue.drain()).toEqual([
      { tenantId: task.tenantId, taskId: 5, taskTypeId: 7, version: 3, scheduledTime: '2026-03-02T09:15:00.000Z', runKey: `${task.tenantId}:5:2026-03-02T09:15:00.000Z` },
    ]);

    const before = await partition(task.tenantId, task.taskId);
    clock.now = at('2026-03-02T09:16:00Z');
    expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z'))).toMatchObject({ outcome: 'Duplicate', published: false });
    expect(await partition(task.tenantId, task.taskId)).toEqual(before);
    expect(await queue.drain()).toEqual([]);
  });

  it('is recorded and published once when ten deliveries of it arrive at once', async () => {
    const task = await seedTask();
    const queue = await workQueue();
    const clock = { now: at('2026-03-02T09:15:01Z') };
    const recorder = recorderAt(clock, queue.publishWork);

    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => recorder.record(firing(task, '2026-03-02T09:15:00Z'))));
    const fulfilled = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.outcome] : []));
    const rejected = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(fulfilled.filter((outcome) => outcome === 'Recorded')).toHaveLength(1);
    // The others found it recorded: done, or (while the first was still sending) to be retried later.
    for (const reason of rejected) expect(reason).toBeInstanceOf(RunPublicationInProgress);
    expect((await partition(task.tenantId, task.taskId)).filter((item) => item.entity === 'TaskRun')).toHaveLength(1);
    expect(await queue.drain()).toHaveLength(1);
    // The retries of those that were told to come back later change nothing.
    for (const _ of rejected) expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z'))).toMatchObject({ outcome: 'Duplicate', published: false });
    expect(await queue.drain()).toEqual([]);
  });

  it('records concurrent runs of one task each once, and LastRun/NextRun end at the latest', async () => {
    const task = await seedTask();
    const queue = await workQueue();
    const clock = { now: at('2026-03-02T10:14:00Z') };
    const recorder = recorderAt(clock, queue.publishWork);
    // At 10:14, 09:30 and 09:45 are misfires (their next run is already due); 10:00 is late but still runs.
    const times = ['2026-03-02T09:30:00Z', '2026-03-02T09:45:00Z', '2026-03-02T10:00:00Z'];
    const outcomes = await Promise.all(times.map((time) => recorder.record(firing(task, time))));
    expect(outcomes.map((outcome) => (outcome.outcome === 'Recorded' ? [outcome.run.Outcome, outcome.run.Reason] : outcome.outcome))).toEqual([
      ['Skipped', 'Misfire'],
      ['Skipped', 'Misfire'],
      ['Run', undefined],
    ]);
    expect(await readTask(task.tenantId, task.taskId)).toMatchObject({ LastRunDateTime_utc: '2026-03-02T10:00:00.000Z', NextRunDateTime_utc: '2026-03-02T10:15:00.000Z', Version: 3 });
    expect((await queue.drain()).map((work) => work.scheduledTime)).toEqual(['2026-03-02T10:00:00.000Z']);
  });

  it('completes a one-off task: Status Completed, CompletedDateTime_utc set, NextRun removed', async () => {
    const task = await seedTask({ Version: 1, IsEnabled: true, IsActive: true, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T09:00:00+10:00', TaskTypeID: 2, NextRunDateTime_utc: '2026-03-01T23:00:00.000Z', Status: 'Scheduled' });
    const queue = await workQueue();
    const recorder = recorderAt({ now: at('2026-03-01T23:00:02Z') }, queue.publishWork);
    expect(await recorder.record(firing(task, '2026-03-01T23:00:00Z', 1))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Run' } });
    const stored = await readTask(task.tenantId, task.taskId);
    expect(stored).toMatchObject({ Status: 'Completed', CompletedDateTime_utc: '2026-03-01T23:00:02.000Z', LastRunDateTime_utc: '2026-03-01T23:00:00.000Z', Version: 1 });
    expect(stored).not.toHaveProperty('NextRunDateTime_utc');
    expect(await queue.drain()).toMatchObject([{ taskTypeId: 2, version: 1 }]);
  });
});

describe('a firing late past an edit of its task', () => {
  it('is skipped as stale, and the edit’s own firing of that time still runs a one-off task and completes it, once', async () => {
    // Version 1's firing at 23:00 was held up; the task was edited meanwhile (Version 2, its run unchanged), and the
    // schedule sync sent the edit's firing of the overdue run. The stale one arrives first.
    const task = await seedTask({ Version: 2, IsEnabled: true, IsActive: true, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T09:00:00+10:00', TaskTypeID: 2, NextRunDateTime_utc: '2026-03-01T23:00:00.000Z', Status: 'Scheduled' });
    const queue = await workQueue();
    const recorder = recorderAt({ now: at('2026-03-01T23:00:22Z') }, queue.publishWork);
    expect(await recorder.record(firing(task, '2026-03-01T23:00:00Z', 1))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Skipped', Reason: 'StaleVersion' } });
    expect(await recorder.record(firing(task, '2026-03-01T23:00:00Z', 2))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Run' }, published: true });
    // Either delivered again (SQS delivers at least once): nothing more.
    expect(await recorder.record(firing(task, '2026-03-01T23:00:00Z', 1))).toMatchObject({ outcome: 'Duplicate', run: { Outcome: 'Run' }, published: false });
    expect(await recorder.record(firing(task, '2026-03-01T23:00:00Z', 2))).toMatchObject({ outcome: 'Duplicate', run: { Outcome: 'Run' }, published: false });

    expect(await readTask(task.tenantId, task.taskId)).toMatchObject({ Status: 'Completed', LastRunDateTime_utc: '2026-03-01T23:00:00.000Z', Version: 2 });
    const runs = (await partition(task.tenantId, task.taskId)).filter((item) => String(item.sk).startsWith('RUN#'));
    expect(runs).toEqual([expect.objectContaining({ Outcome: 'Run', Version: 2 })]);
    expect(runs[0]).not.toHaveProperty('Reason');
    expect(await queue.drain()).toMatchObject([{ taskTypeId: 2, version: 2 }]);
  });
});

describe('a one-off firing that found its task disabled', () => {
  // Bad-day review: the one-off task's firing arrived while it was disabled (the disable could not delete its schedule
  // yet, or the firing was already queued) and was recorded Skipped (Disabled). Enabled again, the save found the run
  // overdue and fired it at the new Version; the skip refused it as a duplicate, and the task stayed Scheduled with no
  // run for ever.
  it('still runs once the task is enabled again: the save’s firing at the new Version is recorded over the skip, once', async () => {
    const oneOff = { IsActive: true, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T09:00:00+10:00', TaskTypeID: 2, NextRunDateTime_utc: '2026-03-01T23:00:00.000Z', Status: 'Scheduled' };
    const task = await seedTask({ ...oneOff, Version: 1, IsEnabled: false });
    const queue = await workQueue();
    const recorder = recorderAt({ now: at('2026-03-01T23:00:10Z') }, queue.publishWork);
    expect(await recorder.record(firing(task, '2026-03-01T23:00:00Z', 1))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Skipped', Reason: 'Disabled' }, published: false });
    // Enabled again (Version 2): the save fires the overdue run at its Version.
    await table.client.send(new PutCommand({ TableName: tableName, Item: { ...taskKey(task.tenantId, task.taskId), entity: 'ScheduledTask', ID: task.taskId, ...oneOff, Version: 2, IsEnabled: true } }));
    const later = recorderAt({ now: at('2026-03-01T23:02:00Z') }, queue.publishWork);
    expect(await later.record(firing(task, '2026-03-01T23:00:00Z', 2))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Run' }, published: true });
    // Either delivered again: nothing more.
    expect(await later.record(firing(task, '2026-03-01T23:00:00Z', 1))).toMatchObject({ outcome: 'Duplicate', published: false });
    expect(await later.record(firing(task, '2026-03-01T23:00:00Z', 2))).toMatchObject({ outcome: 'Duplicate', published: false });

    expect(await readTask(task.tenantId, task.taskId)).toMatchObject({ Status: 'Completed', LastRunDateTime_utc: '2026-03-01T23:00:00.000Z', Version: 2 });
    const runs = (await partition(task.tenantId, task.taskId)).filter((item) => String(item.sk).startsWith('RUN#'));
    expect(runs).toEqual([expect.objectContaining({ Outcome: 'Run', Version: 2 })]);
    expect(await queue.drain()).toMatchObject([{ taskTypeId: 2, version: 2 }]);
  });
});

describe('skipped and ignored firings', () => {
  it('records a stale version Skipped (StaleVersion), leaves the task untouched and publishes nothing', async () => {
    const task = await seedTask();
    const queue = await workQueue();
    const before = await readTask(task.tenantId, task.taskId);
    const recorder = recorderAt({ now: at('2026-03-02T09:15:01Z') }, queue.publishWork);
    expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z', 2))).toMatchObject({
      outcome: 'Recorded',
      run: { Outcome: 'Skipped', Reason: 'StaleVersion' },
      published: false,
    });
    expect(await readTask(task.tenantId, task.taskId)).toEqual(before);
    expect(await queue.drain()).toEqual([]);
  });

  it('records a misfire Skipped (Misfire) and advances NextRun past now, without LastRun or a message', async () => {
    const task = await seedTask();
    const queue = await workQueue();
    const recorder = recorderAt({ now: at('2026-03-02T11:01:00Z') }, queue.publishWork);
    expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z'))).toMatchObject({ run: { Outcome: 'Skipped', Reason: 'Misfire' }, published: false });
    const stored = await readTask(task.tenantId, task.taskId);
    expect(stored).toMatchObject({ NextRunDateTime_utc: '2026-03-02T11:15:00.000Z' });
    expect(stored).not.toHaveProperty('LastRunDateTime_utc');
    expect(await queue.drain()).toEqual([]);
  });

  it('records a run of a disabled task Skipped (Disabled), task untouched', async () => {
    const task = await seedTask({ ...quarterHourly, IsEnabled: false });
    const queue = await workQueue();
    const before = await readTask(task.tenantId, task.taskId);
    const recorder = recorderAt({ now: at('2026-03-02T09:15:01Z') }, queue.publishWork);
    expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z'))).toMatchObject({ run: { Outcome: 'Skipped', Reason: 'Disabled' } });
    expect(await readTask(task.tenantId, task.taskId)).toEqual(before);
    expect(await queue.drain()).toEqual([]);
  });

  it('records nothing for a firing that is not a run, or of a task that does not exist', async () => {
    const task = await seedTask();
    const queue = await workQueue();
    const recorder = recorderAt({ now: at('2026-03-02T09:16:01Z') }, queue.publishWork);
    const before = await partition(task.tenantId, task.taskId);
    expect(await recorder.record(firing(task, '2026-03-02T09:16:00Z'))).toEqual({ outcome: 'Ignored', why: 'NotARun' });
    expect(await recorder.record(firing({ tenantId: task.tenantId, taskId: 6 }, '2026-03-02T09:15:00Z'))).toEqual({ outcome: 'Ignored', why: 'NoTask' });
    expect(await partition(task.tenantId, task.taskId)).toEqual(before);
    expect(await partition(task.tenantId, 6)).toEqual([]);
    expect(await queue.drain()).toEqual([]);
  });

  it('treats a save that lands between the read and the write as a newer Version: the firing becomes stale', async () => {
    const task = await seedTask();
    const queue = await workQueue();
    // The save commits just before the run's transaction is sent, once.
    const racing = savingBeforeTheRunsWrite(async () => {
      await table.client.send(
        new UpdateCommand({ TableName: tableName, Key: taskKey(task.tenantId, task.taskId), UpdateExpression: 'SET Version = :v', ExpressionAttributeValues: { ':v': 4 } }),
      );
    });
    const recorder = createRunRecorder({ runs: createTaskRunRepository(racing.table), publishWork: queue.publishWork, now: () => at('2026-03-02T09:15:01Z') });
    expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z'))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Skipped', Reason: 'StaleVersion' } });
    expect(racing.saved()).toBe(true);
    const stored = await readTask(task.tenantId, task.taskId);
    expect(stored).toMatchObject({ Version: 4, NextRunDateTime_utc: '2026-03-02T09:00:00.000Z' });
    expect(stored).not.toHaveProperty('LastRunDateTime_utc');
    expect(await queue.drain()).toEqual([]);
  });
});

describe('a delivery that dies between the write and the send', () => {
  it('leaves the run recorded and unpublished; the redelivery publishes it once the lease ran out, then duplicates stop', async () => {
    const task = await seedTask();
    const queue = await workQueue();
    const clock = { now: at('2026-03-02T09:15:01Z') };
    const dying = recorderAt(clock, async () => {
      throw Object.assign(new Error('the process died'), { name: 'Crash' });
    });
    await expect(dying.record(firing(task, '2026-03-02T09:15:00Z'))).rejects.toMatchObject({ name: 'Crash' });
    const runItem = async () =>
      (await table.client.send(new GetCommand({ TableName: tableName, Key: runKey(task.tenantId, task.taskId, at('2026-03-02T09:15:00Z')), ConsistentRead: true }))).Item;
    expect(await runItem()).toMatchObject({ Outcome: 'Run', PublishLeaseUntil: '2026-03-02T09:15:31.000Z' });
    expect(await runItem()).not.toHaveProperty('PublishedDateTime_utc');
    expect(await readTask(task.tenantId, task.taskId)).toMatchObject({ LastRunDateTime_utc: '2026-03-02T09:15:00.000Z' });

    const recorder = recorderAt(clock, queue.publishWork);
    // Within the lease the dead delivery might still be sending: come back later.
    clock.now = at('2026-03-02T09:15:20Z');
    await expect(recorder.record(firing(task, '2026-03-02T09:15:00Z'))).rejects.toBeInstanceOf(RunPublicationInProgress);
    expect(await queue.drain()).toEqual([]);
    // The redelivery comes after the visibility timeout (181 s), long after the lease (30 s).
    clock.now = at('2026-03-02T09:18:02Z');
    expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z'))).toMatchObject({ outcome: 'Duplicate', published: true, run: { Outcome: 'Run' } });
    expect(await queue.drain()).toMatchObject([{ scheduledTime: '2026-03-02T09:15:00.000Z', taskTypeId: 7, version: 3 }]);
    expect(await runItem()).toMatchObject({ PublishedDateTime_utc: '2026-03-02T09:18:02.000Z' });
    expect(await runItem()).not.toHaveProperty('PublishLeaseId');

    expect(await recorder.record(firing(task, '2026-03-02T09:15:00Z'))).toMatchObject({ outcome: 'Duplicate', published: false });
    expect(await queue.drain()).toEqual([]);
    // Recorded once: the task's fields were written by the first delivery only.
    expect(await readTask(task.tenantId, task.taskId)).toMatchObject({ LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' });
  });
});

it('lists the newest 20 runs, newest first, with only their public fields', async () => {
  const task = await seedTask();
  const times = Array.from({ length: 25 }, (_, i) => new Date(Date.parse('2026-03-02T09:00:00Z') + i * 15 * 60_000));
  // Runs recorded as they came, on time.
  for (const time of times) {
    await createRunRecorder({ runs: createTaskRunRepository(table), publishWork: async () => undefined, now: () => new Date(time.getTime() + 1000) }).record({ ...task, version: 3, scheduledTime: time });
  }
  const runs = await createTaskRunRepository(table).latestRuns(task.tenantId, task.taskId);
  expect(runs).toHaveLength(20);
  expect(runs[0]).toEqual({ ScheduledDateTime_utc: '2026-03-02T15:00:00.000Z', RecordedDateTime_utc: '2026-03-02T15:00:01.000Z', Outcome: 'Run' });
  expect(runs.map((run) => run.ScheduledDateTime_utc)).toEqual(times.slice(5).reverse().map((time) => time.toISOString()));
  expect(await createTaskRunRepository(table).latestRuns(task.tenantId, task.taskId, 3)).toHaveLength(3);
  expect(await createTaskRunRepository(table).latestRuns(task.tenantId, 99)).toEqual([]);
});

it("reads the task and its newest 20 runs in one Query of the task's partition (the get's read), and no other tenant's task", async () => {
  const task = await seedTask({ ...quarterHourly, Version: 3 });
  const times = Array.from({ length: 25 }, (_, i) => new Date(Date.parse('2026-03-02T09:00:00Z') + i * 15 * 60_000));
  for (const time of times) {
    await createRunRecorder({ runs: createTaskRunRepository(table), publishWork: async () => undefined, now: () => new Date(time.getTime() + 1000) }).record({ ...task, version: 3, scheduledTime: time });
  }
  const sent: string[] = [];
  const counting: TableContext = { tableName, client: { send: (command: { constructor: { name: string } }) => (sent.push(command.constructor.name), table.client.send(command as never)) } as unknown as DynamoDBDocumentClient };
  const repository = createScheduledTaskRepository(counting);
  const found = await repository.getWithRuns?.(task.tenantId, task.taskId);
  expect(sent).toEqual(['QueryCommand']);
  expect(found?.stored.task).toMatchObject({ ID: task.taskId, Version: 3, LastRunDateTime_utc: '2026-03-02T15:00:00.000Z' });
  expect(found?.runs).toEqual(await createTaskRunRepository(table).latestRuns(task.tenantId, task.taskId));
  expect(found?.runs.map((run) => run.ScheduledDateTime_utc)).toEqual(times.slice(5).reverse().map((time) => time.toISOString()));
  // A task without runs; a task that does not exist (only runs, or nothing), and the same ID of another tenant.
  const bare = await seedTask({ ...quarterHourly, Version: 3 });
  expect(await repository.getWithRuns?.(bare.tenantId, bare.taskId)).toEqual({ stored: expect.objectContaining({ task: expect.objectContaining({ ID: bare.taskId }) }), runs: [] });
  await table.client.send(new PutCommand({ TableName: tableName, Item: { ...runKey(bare.tenantId, 77, at('2026-03-02T09:00:00Z')), entity: 'TaskRun', Outcome: 'Run' } }));
  expect(await repository.getWithRuns?.(bare.tenantId, 77)).toBeUndefined();
  expect(await repository.getWithRuns?.(freshTenantId(), task.taskId)).toBeUndefined();
});

describe('never before the time asked', () => {
  it('waits out a firing a moment early, then runs it; one further ahead records nothing and comes back later; its schedule state is Deleted once it ran', async () => {
    const task = await seedTask({ Version: 1, IsEnabled: true, IsActive: true, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T23:02:19Z', TaskTypeID: 2, ScheduleState: 'Enabled', NextRunDateTime_utc: '2026-03-02T23:03:00.000Z' });
    const queue = await workQueue();
    const clock = { now: at('2026-03-02T23:02:02Z') };
    const slept: number[] = [];
    const recorder = createRunRecorder({
      runs: createTaskRunRepository(table),
      publishWork: queue.publishWork,
      now: () => clock.now,
      sleep: async (ms) => {
        slept.push(ms);
        clock.now = new Date(clock.now.getTime() + ms);
      },
    });

    // An at() written to the minute (seconds dropped) fires at 23:02 for a task asked for 23:02:19: not yet.
    await expect(recorder.record(firing(task, '2026-03-02T23:02:00Z', 1))).rejects.toMatchObject({ name: 'RunNotDue', dueAt: at('2026-03-02T23:03:00Z') });
    expect(await partition(task.tenantId, task.taskId)).toHaveLength(1);
    expect(await queue.drain()).toEqual([]);
    expect(slept).toEqual([]);

    // The right firing, a scheduler clock 2 s ahead of ours: waited for, then run at its minute.
    clock.now = at('2026-03-02T23:02:58Z');
    expect(await recorder.record(firing(task, '2026-03-02T23:03:00Z', 1))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Run', RecordedDateTime_utc: '2026-03-02T23:03:00.000Z' }, published: true });
    expect(slept).toEqual([2_000]);
    expect(await readTask(task.tenantId, task.taskId)).toMatchObject({ Status: 'Completed', ScheduleState: 'Deleted', LastRunDateTime_utc: '2026-03-02T23:03:00.000Z' });
    expect(await queue.drain()).toHaveLength(1);
  });
});

describe('a save that overlaps a run', () => {
  it('is decided again from a fresh read when the run is recorded between its read and its write: a renamed one-off task stays Completed, its Version the client’s', async () => {
    const clock = { now: at('2026-03-02T08:00:00Z') };
    const tenantId = freshTenantId();
    const repository = createScheduledTaskRepository(table);
    const queue = await workQueue();
    const recorder = recorderAt(clock, queue.publishWork);
    // The run is recorded right after the save's first read of the task (the at() firing at 09:00 while a user renames it).
    let betweenReadAndWrite: (() => Promise<void>) | undefined;
    const racing = {
      ...repository,
      get: async (tenant: number, id: number) => {
        const found = await repository.get(tenant, id);
        const hook = betweenReadAndWrite;
        betweenReadAndWrite = undefined;
        await hook?.();
        return found;
      },
    };
    const syncRequests: ScheduleSyncRequest[] = [];
    const service = createScheduledTaskService({
      repository: racing,
      cipher: localSecretCipher(randomBytes(32)),
      syncSchedule: async (task) => (task.enabled && task.recurrence.start > clock.now.getTime() ? 'Enabled' : 'Disabled'),
      requestSync: async (request) => void syncRequests.push(request),
      clock: () => clock.now,
    });
    const principal = { tenantId, websiteId: 1, userId: 3 };
    const { task } = await service.save(principal, { Name: 'Once', TaskTypeID: 4, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T09:00:00Z' });
    const taskId = task.ID as number;
    const version = task.Version as number;

    clock.now = at('2026-03-02T09:00:02Z');
    betweenReadAndWrite = async () => {
      expect(await recorder.record(firing({ tenantId, taskId: taskId }, '2026-03-02T09:00:00Z', version))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Run' } });
    };
    const renamed = await service.save(principal, { ID: taskId, Version: version, Name: 'Once renamed' });

    expect(renamed.task).toMatchObject({ Name: 'Once renamed', Status: 'Completed', Version: version + 1 });
    expect(syncRequests).toEqual([]);
    expect(await readTask(tenantId, taskId)).toMatchObject({
      Name: 'Once renamed',
      Status: 'Completed',
      CompletedDateTime_utc: '2026-03-02T09:00:02.000Z',
      LastRunDateTime_utc: '2026-03-02T09:00:00.000Z',
      Version: version + 1,
    });
    const runs = (await partition(tenantId, taskId)).filter((item) => String(item.sk).startsWith('RUN#'));
    expect(runs).toEqual([expect.objectContaining({ Outcome: 'Run', Version: version })]);
    expect(await queue.drain()).toHaveLength(1);
  });
});

describe('a firing on its way when its task is saved', () => {
  /** A quarter-hourly task saved through the service on DynamoDB Local (its schedule sync answers as the scheduler would). */
  const savedTask = async (clock: { now: Date }) => {
    const tenantId = freshTenantId();
    const service = createScheduledTaskService({
      repository: createScheduledTaskRepository(table),
      cipher: localSecretCipher(randomBytes(32)),
      syncSchedule: async (task) => (task.enabled ? 'Enabled' : 'Disabled'),
      requestSync: async () => undefined,
      clock: () => clock.now,
    });
    const principal = { tenantId, websiteId: 1, userId: 3 };
    const { task } = await service.save(principal, { Name: 'Export', TaskTypeID: 4, IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2026-03-02T09:00:00Z' });
    return { service, principal, tenantId, taskId: task.ID as number, version: task.Version as number };
  };

  it('still runs, once, when the save changed nothing of the schedule (a rename, another task type): the run is not lost', async () => {
    const clock = { now: at('2026-03-02T09:10:00Z') };
    const { service, principal, tenantId, taskId, version } = await savedTask(clock);
    const queue = await workQueue();
    // 09:15's firing (Version 1) is in the queue while the task is renamed and given another task type.
    clock.now = at('2026-03-02T09:15:01Z');
    const renamed = await service.save(principal, { ID: taskId, Name: 'Export renamed', TaskTypeID: 9 });
    expect(renamed.task.Version).toBe(version + 1);
    clock.now = at('2026-03-02T09:15:03Z');
    const recorder = recorderAt(clock, queue.publishWork);
    expect(await recorder.record(firing({ tenantId, taskId }, '2026-03-02T09:15:00Z', version))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Run' }, published: true });
    // Delivered again: nothing more.
    expect(await recorder.record(firing({ tenantId, taskId }, '2026-03-02T09:15:00Z', version))).toMatchObject({ outcome: 'Duplicate', published: false });

    expect(await readTask(tenantId, taskId)).toMatchObject({ Name: 'Export renamed', Version: version + 1, LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' });
    // The work goes to the workers of the task's type as it is now.
    expect(await queue.drain()).toMatchObject([{ taskId, taskTypeId: 9, version, scheduledTime: '2026-03-02T09:15:00.000Z' }]);
    expect((await service.get(principal, taskId)).Runs).toEqual([expect.objectContaining({ ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', Outcome: 'Run' })]);
    expect(await service.get(principal, taskId)).not.toHaveProperty('ScheduleVersion');
  });

  it('still runs when the rename commits between the run’s read and its write: decided again on the task as it is', async () => {
    const clock = { now: at('2026-03-02T09:10:00Z') };
    const { service, principal, tenantId, taskId, version } = await savedTask(clock);
    const queue = await workQueue();
    clock.now = at('2026-03-02T09:15:01Z');
    const racing = savingBeforeTheRunsWrite(async () => void (await service.save(principal, { ID: taskId, Name: 'Export renamed' })));
    const recorder = createRunRecorder({ runs: createTaskRunRepository(racing.table), publishWork: queue.publishWork, now: () => clock.now });
    expect(await recorder.record(firing({ tenantId, taskId }, '2026-03-02T09:15:00Z', version))).toMatchObject({ outcome: 'Recorded', run: { Outcome: 'Run' }, published: true });
    expect(racing.saved()).toBe(true);
    expect(await readTask(tenantId, taskId)).toMatchObject({ Name: 'Export renamed', Version: version + 1, LastRunDateTime_utc: '2026-03-02T09:15:00.000Z' });
    expect(await queue.drain()).toHaveLength(1);
  });

  it('is skipped as stale when the save changed the schedule, or as Disabled when it disabled the task; nothing published', async () => {
    const clock = { now: at('2026-03-02T09:10:00Z') };
    const rescheduled = await savedTask(clock);
    const disabled = await savedTask(clock);
    const queue = await workQueue();
    clock.now = at('2026-03-02T09:15:01Z');
    await rescheduled.service.save(rescheduled.principal, { ID: rescheduled.taskId, Interval: 30 });
    await disabled.service.save(disabled.principal, { ID: disabled.taskId, IsEnabled: false });
    const recorder = recorderAt(clock, queue.publishWork);

    expect(await recorder.record(firing(rescheduled, '2026-03-02T09:15:00Z', rescheduled.version))).toMatchObject({ run: { Outcome: 'Skipped', Reason: 'StaleVersion' }, published: false });
    expect(await recorder.record(firing(disabled, '2026-03-02T09:15:00Z', disabled.version))).toMatchObject({ run: { Outcome: 'Skipped', Reason: 'Disabled' }, published: false });
    expect(await queue.drain()).toEqual([]);
  });
});
