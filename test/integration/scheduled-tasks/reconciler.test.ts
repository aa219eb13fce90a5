// Integration: the schedule reconciler closes the gap between a save's commit and its schedule sync. The save
// function (functions/scheduled-tasks/save.ts) runs in a process of its own, as the local stack runs functions, with
// a scheduler that never answers; it is killed once its task item is committed, before its sync can finish. The task
// then says Enabled and has no schedule, and is listed on the sparse index (gsi6). A reconciler pass (the real
// index Query on DynamoDB Local, the real scheduler emulation with an injected clock) creates the schedule, records
// the state and takes the task off the index; the schedule then fires at the minute the task asked for, rounded up.
// The index is shared with the other test files that run at the same time: the pass acts on this file's tenant only.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startIsolatedFunctions, type IsolatedFunctions } from '#infra/local/function-host';
import { closeServer, listen, localAccountId, localCredentials, localRegion } from '#infra/local/local-aws';
import { startSchedulerEmulation, type RunningScheduler } from '#infra/local/scheduler';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { logger } from '#shared/observability/logger';
import { schedulerEnvironment } from '#shared/operations/grants';
import { taskKey, unsyncedTasksIndex } from '#shared/scheduled-tasks/keys';
import { createScheduleReconciler } from '#shared/scheduled-tasks/reconciler';
import { createScheduledTaskRepository } from '#shared/scheduled-tasks/repository';
import { scheduleNameOf, syncScheduleWith, type SchedulerSettings } from '#shared/scheduled-tasks/schedule-sync';
import { createScheduleSyncRetrier } from '#shared/scheduled-tasks/service';
import { asRead } from '#shared/scheduled-tasks/store';
import { proxyEvent } from '#test/support/lambda-events';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { freshTenantId } from '#test/support/tenant-items';

logger.setLogLevel('SILENT');
const { tableName, dynamodbEndpoint, sqsEndpoint } = requireLocalEndpoints();
const tenantId = freshTenantId();
const settings: SchedulerSettings = {
  groupName: 'reconciler-test-tasks',
  targetQueueArn: `arn:aws:sqs:${localRegion}:${localAccountId}:reconciler-test-runs`,
  deadLetterQueueArn: `arn:aws:sqs:${localRegion}:${localAccountId}:reconciler-test-runs-dlq`,
  executionRoleArn: `arn:aws:iam::${localAccountId}:role/reconciler-test-scheduler`,
};

let raw: DynamoDBClient;
let table: TableContext;
let clockMs = Date.now();
let scheduler: RunningScheduler;
let schedulerClient: SchedulerClient;
const delivered: string[] = [];
/** A scheduler that accepts connections and never answers: the save's sync hangs until the process is killed. */
let silent: Server;
let silentEndpoint: string;
const sockets = new Set<Socket>();
const running: IsolatedFunctions[] = [];

beforeAll(async () => {
  raw = localDynamoDbClient();
  table = { client: createDocumentClient(raw), tableName };
  scheduler = await startSchedulerEmulation({
    groups: [settings.groupName],
    roles: new Map([[settings.executionRoleArn, [{ actions: ['sqs:SendMessage'], resources: [settings.targetQueueArn, settings.deadLetterQueueArn] }]]]),
    deliver: async (_queueArn, body) => {
      delivered.push(body);
    },
    clock: () => clockMs,
    tickMs: 0,
    log: () => undefined,
  });
  schedulerClient = new SchedulerClient({ region: localRegion, credentials: localCredentials, endpoint: scheduler.endpoint });
  silent = createServer(() => undefined);
  silent.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  silentEndpoint = `http://127.0.0.1:${await listen(silent, 0, '127.0.0.1')}`;
});
afterAll(async () => {
  for (const functions of running) await functions.close();
  for (const socket of sockets) socket.destroy();
  await closeServer(silent);
  schedulerClient.destroy();
  await scheduler.close();
  raw.destroy();
});

/** The save function in a process of its own, with every setting its grants give it; its scheduler never answers. */
const saveFunction = () => {
  const functions = startIsolatedFunctions(
    [
      {
        functionName: 'scheduledTaskSave',
        handler: 'functions/scheduled-tasks/save.ts',
        environment: {
          TABLE_NAME: tableName,
          AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint,
          AWS_ENDPOINT_URL_SQS: sqsEndpoint,
          SCHEDULE_SYNC_QUEUE_URL: `${sqsEndpoint}/000000000000/reconciler-test-unused`,
          // Set as its grant sets it; this test saves no credential, so KMS is never called.
          SECRET_FIELDS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/00000000-0000-4000-8000-000000000009',
          [schedulerEnvironment.groupName]: settings.groupName,
          [schedulerEnvironment.targetQueueArn]: settings.targetQueueArn,
          [schedulerEnvironment.deadLetterQueueArn]: settings.deadLetterQueueArn,
          [schedulerEnvironment.executionRoleArn]: settings.executionRoleArn,
          [schedulerEnvironment.endpoint]: silentEndpoint,
          POWERTOOLS_SERVICE_NAME: 'business-platform-api',
          LOG_LEVEL: 'ERROR',
        },
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      },
    ],
    () => undefined,
  );
  running.push(functions);
  return functions;
};

const saveEvent = (body: unknown) => {
  const event = proxyEvent({ method: 'POST', resource: '/ScheduledTasks/', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return {
    ...event,
    requestContext: { ...event.requestContext, authorizer: { tenantId: String(tenantId), websiteId: '1', userId: '3', exp: String(Math.floor(Date.now() / 1000) + 3600), principalId: `tenant-${tenantId}/user-3` } },
  };
};

const itemOf = async (taskId: number) =>
  (await table.client.send(new GetCommand({ TableName: tableName, Key: taskKey(tenantId, taskId), ConsistentRead: true }))).Item;

const scheduleOf = (taskId: number) => scheduler.schedules().find((schedule) => schedule.Name === scheduleNameOf(tenantId, taskId));

const reconcilerAt = (now: () => Date) => {
  const retrier = createScheduleSyncRetrier({
    repository: createScheduledTaskRepository(table),
    syncSchedule: (task, at) => syncScheduleWith({ client: schedulerClient, settings }, task, at),
    clock: now,
  });
  const touched: number[] = [];
  const reconciler = createScheduleReconciler({
    tasks: createScheduledTaskRepository(table),
    // Other test files' tasks share the index: this file's pass reconciles its own tenant only.
    reconcileTask: async (tenant, taskId) => {
      if (tenant !== tenantId) return 'inLine';
      touched.push(taskId);
      return retrier.reconcileTask(tenant, taskId);
    },
    clock: now,
  });
  return { reconciler, touched };
};

it('restores the schedule of a task whose save was killed between its commit and its schedule sync', async () => {
  // A one-off task a day ahead, asked with seconds: it runs at the next whole minute.
  const asked = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 24 * 60 * 60_000 + 19_000);
  const runsAt = new Date(asked.getTime() + 41_000);
  const TimeOfDay = asked.toISOString().replace('.000Z', 'Z');
  const name = `Killed mid-save ${randomUUID()}`;

  // Arrange: the save runs in its own process and is killed once its task item is committed.
  const save = saveFunction();
  const invocation = save
    .invoke({ functionName: 'scheduledTaskSave', handler: 'functions/scheduled-tasks/save.ts' }, saveEvent({ Name: name, TaskTypeID: 4, IsRecurringSchedule: false, TimeOfDay }), 60_000)
    .then(
      () => 'finished',
      (error: Error) => error.message,
    );
  const deadline = Date.now() + 50_000;
  while (!(await itemOf(1)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await save.close();
  expect(await invocation).toMatch(/Runtime exited|stopped/);

  // The task says what the save expected to leave, but no schedule exists: it is on the reconciler's index.
  const committed = await itemOf(1);
  expect(committed).toMatchObject({ Name: name, Version: 1, Status: 'Scheduled', ScheduleState: 'Enabled', NextRunDateTime_utc: runsAt.toISOString() });
  expect(committed?.[unsyncedTasksIndex.partitionKey]).toEqual(expect.stringMatching(/^TASKSYNC#\d$/));
  expect(scheduleOf(1)).toBeUndefined();

  // A pass within the grace period leaves it to its save (which may still be syncing).
  const early = reconcilerAt(() => new Date(Date.now() + 5_000));
  expect((await early.reconciler.reconcile()).unfinished).toBe(false);
  expect(early.touched).toEqual([]);
  expect(scheduleOf(1)).toBeUndefined();

  // Act: the next pass, two minutes later.
  const later = reconcilerAt(() => new Date(Date.now() + 120_000));
  const report = await later.reconciler.reconcile();

  // Assess: the schedule exists, of the committed version, at the rounded-up minute; the task is off the index.
  expect(later.touched).toEqual([1]);
  expect(report.synced).toBeGreaterThanOrEqual(1);
  expect(scheduleOf(1)).toMatchObject({
    ScheduleExpression: `at(${runsAt.toISOString().slice(0, 19)})`,
    ScheduleExpressionTimezone: 'UTC',
    ActionAfterCompletion: 'DELETE',
    State: 'ENABLED',
  });
  expect(JSON.parse(scheduleOf(1)?.Target.Input ?? '{}')).toMatchObject({ tenantId, taskId: 1, version: 1 });
  const reconciled = await itemOf(1);
  expect(reconciled).toMatchObject({ ScheduleState: 'Enabled', Version: 1 });
  expect(reconciled).not.toHaveProperty(unsyncedTasksIndex.partitionKey);
  expect(reconciled).not.toHaveProperty(unsyncedTasksIndex.sortKey);

  // A further pass finds nothing of this tenant to do.
  const again = reconcilerAt(() => new Date(Date.now() + 240_000));
  await again.reconciler.reconcile();
  expect(again.touched).toEqual([]);

  // The restored schedule fires at the minute asked for, rounded up, never before the time asked.
  clockMs = asked.getTime();
  await scheduler.fireDue();
  expect(delivered.filter((body) => body.includes(`"tenantId":${tenantId},`))).toEqual([]);
  clockMs = runsAt.getTime();
  await scheduler.fireDue();
  expect(delivered.filter((body) => body.includes(`"tenantId":${tenantId},`)).map((body) => JSON.parse(body))).toEqual([
    { tenantId, taskId: 1, version: 1, scheduledTime: runsAt.toISOString().replace('.000Z', 'Z') },
  ]);
  expect(scheduleOf(1)).toBeUndefined();
}, 120_000);

it('never puts back an older schedule: a pass that read a task before a newer save synced records nothing; a stale or dangling entry is left alone', async () => {
  clockMs = Date.now();
  const repository = createScheduledTaskRepository(table);
  const syncSchedule = (task: Parameters<typeof syncScheduleWith>[1], at: Date) => syncScheduleWith({ client: schedulerClient, settings }, task, at);
  const retrier = createScheduleSyncRetrier({ repository, syncSchedule });
  const task = { ID: 2, Name: 'Raced', TaskTypeID: 1, IsRecurringSchedule: true, Interval: 1, IntervalType: 2, TimeOfDay: '2026-01-01T00:00:00Z', Version: 1, IsEnabled: true, IsActive: true, ModifiedDateTime_utc: new Date().toISOString() };
  await repository.write(tenantId, { task }, undefined);
  // The pass reads version 1 (out of line); then a newer save commits version 2 and syncs it.
  const readByThePass = await repository.get(tenantId, 2);
  expect(readByThePass?.scheduleOutOfLine).toBe(true);
  await repository.write(tenantId, { task: { ...task, Interval: 2, Version: 2 } }, asRead(task));
  expect(await retrier.retrySync({ tenantId, taskId: 2, version: 2 })).toBe('synced');
  expect(scheduleOf(2)).toMatchObject({ ScheduleExpression: 'rate(2 hours)' });

  // The pass goes on with what it read: the schedule of version 2 stays, and nothing is recorded for version 1.
  const slowPass = createScheduleSyncRetrier({ repository: { ...repository, get: async () => readByThePass }, syncSchedule });
  expect(await slowPass.reconcileTask(tenantId, 2)).toBe('stale');
  expect(scheduleOf(2)).toMatchObject({ ScheduleExpression: 'rate(2 hours)' });
  expect(JSON.parse(scheduleOf(2)?.Target.Input ?? '{}')).toMatchObject({ version: 2 });
  expect(await itemOf(2)).toMatchObject({ Version: 2, ScheduleState: 'Enabled' });

  // An index entry that no longer says anything (read again, strongly consistent): in line already, or gone.
  expect(await itemOf(2)).not.toHaveProperty(unsyncedTasksIndex.partitionKey);
  expect(await retrier.reconcileTask(tenantId, 2)).toBe('inLine');
  expect(await retrier.reconcileTask(tenantId, 99)).toBe('gone');
});
