// Integration: the EventBridge Scheduler emulation (infra/local/scheduler.ts) behind the IAM edge, with the real
// SDK client and the real SQS server. shared/scheduled-tasks/schedule-sync.ts brings schedules in line through it as a
// function holding the manageSchedules grant; an injected clock (never a sleep) makes them fire into a queue of
// this test's own, as the execution role. The edge enforces the grant; the emulation answers as the API does.
import { randomUUID } from 'node:crypto';
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { startIamEdge, type EdgeIdentity, type RunningIamEdge } from '#infra/local/iam-edge';
import { localAccountId, localRegion } from '#infra/local/local-aws';
import { ensureQueues, type ProvisionedQueue } from '#infra/local/provision';
import { startSchedulerEmulation, type RunningScheduler } from '#infra/local/scheduler';
import { taskRunsQueue } from '#shared/events/queues';
import { resourceGrants, schedulerExecutionStatements } from '#shared/operations/grants';
import { parseTaskRunMessage } from '#shared/scheduled-tasks/messages';
import { recurrenceOf } from '#shared/scheduled-tasks/recurrence';
import { scheduleNameOf, scheduleRequestOf, ScheduleSyncFailed, syncScheduleWith, type SchedulerSettings, type TaskSchedule } from '#shared/scheduled-tasks/schedule-sync';
import { localSqsClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { testGrantResources } from '#test/support/grant-resources';

const group = 'test-tasks';
const roleArn = `arn:aws:iam::${localAccountId}:role/test-task-scheduler`;
const start = Date.parse('2026-06-01T00:00:30Z');
let now = start;

let sqs: SQSClient;
let queue: ProvisionedQueue;
let other: ProvisionedQueue;
let scheduler: RunningScheduler;
let edge: RunningIamEdge;
let settings: SchedulerSettings;
const clients: SchedulerClient[] = [];

const clientAs = (accessKeyId: string): SchedulerClient => {
  const client = new SchedulerClient({ region: localRegion, endpoint: edge.endpoint, credentials: { accessKeyId, secretAccessKey: 'local' }, maxAttempts: 1 });
  clients.push(client);
  return client;
};
const admin = () => clientAs('local');
const manager = () => clientAs('LOCALmanager');

beforeAll(async () => {
  sqs = localSqsClient();
  const name = `sched-${randomUUID().slice(0, 8)}`;
  const provision = (suffix: string) =>
    ensureQueues(sqs, { ...taskRunsQueue, localQueueName: `${name}-${suffix}`, deadLetterQueue: { ...taskRunsQueue.deadLetterQueue, localQueueName: `${name}-${suffix}-dlq` } });
  queue = await provision('runs');
  other = await provision('other');
  const urls = new Map([
    [queue.queueArn, queue.queueUrl],
    [queue.deadLetterQueueArn, queue.deadLetterQueueUrl],
    [other.queueArn, other.queueUrl],
  ]);
  scheduler = await startSchedulerEmulation({
    groups: [group],
    roles: new Map([[roleArn, schedulerExecutionStatements({ arn: queue.queueArn, deadLetterQueueArn: queue.deadLetterQueueArn })]]),
    deliver: async (queueArn, body) => {
      await sqs.send(new SendMessageCommand({ QueueUrl: urls.get(queueArn)!, MessageBody: body }));
    },
    clock: () => now,
    tickMs: 0,
    log: () => undefined,
  });
  const resources = testGrantResources({
    table: { name: 't', arn: `arn:aws:dynamodb:${localRegion}:${localAccountId}:table/t` },
    queueHost: 'http://127.0.0.1:1',
    queues: { taskRuns: { url: queue.queueUrl, arn: queue.queueArn, deadLetterQueueArn: queue.deadLetterQueueArn } },
    overrides: {
      scheduler: { groupName: group, schedulesArn: `arn:aws:scheduler:${localRegion}:${localAccountId}:schedule/${group}/*`, executionRoleArn: roleArn },
    },
  });
  const granted = resourceGrants.manageSchedules(resources);
  settings = {
    groupName: granted.environment.SCHEDULE_GROUP_NAME!,
    targetQueueArn: granted.environment.SCHEDULE_TARGET_QUEUE_ARN!,
    deadLetterQueueArn: granted.environment.SCHEDULE_DEAD_LETTER_QUEUE_ARN!,
    executionRoleArn: granted.environment.SCHEDULE_ROLE_ARN!,
  };
  const identities = new Map<string, EdgeIdentity>([
    ['LOCALmanager', { functionName: 'manager', statements: granted.statements }],
    ['LOCALnobody', { functionName: 'nobody', statements: [] }],
  ]);
  const endpoints = requireLocalEndpoints();
  edge = await startIamEdge({
    upstreams: new Map([
      ['sqs', endpoints.sqsEndpoint],
      ['scheduler', scheduler.endpoint],
    ]),
    identities,
    adminAccessKeyId: 'local',
    log: () => undefined,
  });
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await edge?.close();
  await scheduler?.close();
  sqs?.destroy();
});

/** Every message on a queue now (the SQS server answers at once with what it has). */
const drain = async (queueUrl: string): Promise<string[]> => {
  const bodies: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 600 }));
    if (Messages.length === 0) return bodies;
    bodies.push(...Messages.map((message) => message.Body!));
  }
};

let nextTask = 1;
const task = (fields: Parameters<typeof recurrenceOf>[0], version = 1): TaskSchedule => ({
  tenantId: 7,
  taskId: nextTask++,
  version,
  enabled: true,
  recurrence: recurrenceOf(fields),
});

describe('schedule-sync.ts through the emulation', () => {
  it('creates a task\'s schedule, which fires its run message into the task-runs queue at each run, and only then', async () => {
    const every15 = task({ IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2026-06-01T00:10:00Z' }, 3);
    await expect(syncScheduleWith({ client: manager(), settings }, every15, new Date(now))).resolves.toBe('Enabled');

    const stored = await admin().send(new GetScheduleCommand({ Name: scheduleNameOf(7, every15.taskId), GroupName: group }));
    expect(stored).toMatchObject({
      ScheduleExpression: 'rate(15 minutes)',
      StartDate: new Date('2026-06-01T00:10:00Z'),
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: queue.queueArn, RoleArn: roleArn, DeadLetterConfig: { Arn: queue.deadLetterQueueArn } },
    });

    now = Date.parse('2026-06-01T00:09:59Z');
    expect(await scheduler.fireDue()).toBe(0);
    now = Date.parse('2026-06-01T00:40:00Z');
    expect(await scheduler.fireDue()).toBe(3);
    const runs = (await drain(queue.queueUrl)).map(parseTaskRunMessage);
    expect(runs).toEqual(
      ['2026-06-01T00:10:00Z', '2026-06-01T00:25:00Z', '2026-06-01T00:40:00Z'].map((scheduledTime) => ({ tenantId: 7, taskId: every15.taskId, version: 3, scheduledTime })),
    );
    expect(await scheduler.fireDue()).toBe(0);
    await expect(syncScheduleWith({ client: manager(), settings }, { ...every15, version: 4, enabled: false }, new Date(now))).resolves.toBe('Disabled');
  });

  it('fires a one-off task once and lets its schedule delete itself', async () => {
    now = start;
    const once = task({ IsRecurringSchedule: false, TimeOfDay: '2026-06-01T03:00:00+02:00' });
    await syncScheduleWith({ client: manager(), settings }, once, new Date(now));
    now = Date.parse('2026-06-01T01:00:00Z');
    await scheduler.fireDue();
    expect((await drain(queue.queueUrl)).map(parseTaskRunMessage)).toEqual([{ tenantId: 7, taskId: once.taskId, version: 1, scheduledTime: '2026-06-01T01:00:00Z' }]);
    await expect(admin().send(new GetScheduleCommand({ Name: scheduleNameOf(7, once.taskId), GroupName: group }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    now = Date.parse('2026-06-02T00:00:00Z');
    await scheduler.fireDue();
    expect(await drain(queue.queueUrl)).toEqual([]);
  });

  it('replaces the whole definition on a new version, and deletes the schedule of a disabled task', async () => {
    now = start;
    const daily = task({ IsRecurringSchedule: true, Interval: 1, IntervalType: 3, TimeOfDay: '2026-06-01T09:00:00+10:00', TimeZone: 'Australia/Sydney' });
    const name = scheduleNameOf(7, daily.taskId);
    await syncScheduleWith({ client: manager(), settings }, daily, new Date(now));
    const weekly = { ...daily, version: 2, recurrence: recurrenceOf({ IsRecurringSchedule: true, Interval: 1, IntervalType: 4, TimeOfDay: '2026-06-03T18:30:00+10:00', TimeZone: 'Australia/Sydney' }) };
    await syncScheduleWith({ client: manager(), settings }, weekly, new Date(now));
    const stored = await admin().send(new GetScheduleCommand({ Name: name, GroupName: group }));
    expect(stored.ScheduleExpression).toBe('cron(30 18 ? * WED *)');
    expect(JSON.parse(stored.Target!.Input!).version).toBe(2);
    // An older version's sync arriving late changes nothing.
    await expect(syncScheduleWith({ client: manager(), settings }, { ...daily, enabled: false }, new Date(now))).resolves.toBe('Enabled');
    await expect(syncScheduleWith({ client: manager(), settings }, { ...weekly, version: 3, enabled: false }, new Date(now))).resolves.toBe('Disabled');
    const listed = await admin().send(new ListSchedulesCommand({ GroupName: group, NamePrefix: name }));
    expect(listed.Schedules?.filter((schedule) => schedule.Name === name)).toEqual([]);
  });

  it('writes a version again when a sync of it follows an older version\'s write that landed after its first (the scheduler honours ClientTokens)', async () => {
    now = start;
    const every15 = task({ IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2026-06-01T00:10:00Z' }, 2);
    const every45 = { ...every15, version: 3, recurrence: recurrenceOf({ IsRecurringSchedule: true, Interval: 45, IntervalType: 1, TimeOfDay: '2026-06-01T00:10:00Z' }) };
    const name = scheduleNameOf(7, every15.taskId);
    await syncScheduleWith({ client: manager(), settings }, { ...every15, version: 1 }, new Date(now));
    // Version 3's sync lands first; version 2's UpdateSchedule (read before 3 was written, retried by the SDK after a
    // timeout) lands after it: the scheduler has no conditional write.
    await syncScheduleWith({ client: manager(), settings }, every45, new Date(now));
    const older = scheduleRequestOf(every15, settings, new Date(now));
    await admin().send(new UpdateScheduleCommand({ ...older!, ClientToken: 'older-save-sync' }));
    expect(JSON.parse((await admin().send(new GetScheduleCommand({ Name: name, GroupName: group }))).Target!.Input!).version).toBe(2);

    // The newer version synced again (syncNewerThan, the retry, the reconciler): written, not answered as a replay.
    await expect(syncScheduleWith({ client: manager(), settings }, every45, new Date(now))).resolves.toBe('Enabled');
    const stored = await admin().send(new GetScheduleCommand({ Name: name, GroupName: group }));
    expect({ version: JSON.parse(stored.Target!.Input!).version, expression: stored.ScheduleExpression }).toEqual({ version: 3, expression: 'rate(45 minutes)' });
    // Gone before the next case moves the clock (its firings would land in that case's queue).
    await expect(syncScheduleWith({ client: manager(), settings }, { ...every45, version: 4, enabled: false }, new Date(now))).resolves.toBe('Disabled');
  });
});

describe('the manageSchedules grant, enforced by the edge', () => {
  const request = (name: string, overrides: Partial<CreateScheduleCommandInput> = {}): CreateScheduleCommandInput => ({
    Name: name,
    GroupName: group,
    ScheduleExpression: 'rate(1 hour)',
    FlexibleTimeWindow: { Mode: 'OFF' },
    Target: { Arn: queue.queueArn, RoleArn: roleArn, Input: '{}' },
    ...overrides,
  });

  it('lets the function manage its group\'s schedules only, passing only the scheduler role, and never list', async () => {
    const name = `grant-${randomUUID().slice(0, 8)}`;
    await manager().send(new CreateScheduleCommand(request(name)));
    await manager().send(new UpdateScheduleCommand(request(name, { ScheduleExpression: 'rate(2 hours)' })));
    await manager().send(new GetScheduleCommand({ Name: name, GroupName: group }));
    await expect(manager().send(new ListSchedulesCommand({ GroupName: group }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(manager().send(new CreateScheduleCommand(request(`${name}-x`, { GroupName: 'default' })))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining(`scheduler:CreateSchedule on resource: arn:aws:scheduler:${localRegion}:${localAccountId}:schedule/default/${name}-x`),
    });
    const otherRole = `arn:aws:iam::${localAccountId}:role/admin`;
    await expect(manager().send(new CreateScheduleCommand(request(`${name}-y`, { Target: { Arn: queue.queueArn, RoleArn: otherRole } })))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining(`iam:PassRole on resource: ${otherRole}`),
    });
    await expect(clientAs('LOCALnobody').send(new GetScheduleCommand({ Name: name, GroupName: group }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await manager().send(new DeleteScheduleCommand({ Name: name, GroupName: group }));
  });

  it('turns a refusal into a ScheduleSyncFailed that is not retryable, and an unreachable scheduler into a retryable one', async () => {
    const refused = await syncScheduleWith({ client: clientAs('LOCALnobody'), settings }, task({ IsRecurringSchedule: false, TimeOfDay: '2026-07-01T00:00:00Z' }), new Date(now)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ScheduleSyncFailed);
    expect((refused as ScheduleSyncFailed).retryable).toBe(false);
    const down = new SchedulerClient({ region: localRegion, endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'LOCALmanager', secretAccessKey: 'local' }, maxAttempts: 1 });
    clients.push(down);
    const unreachable = await syncScheduleWith({ client: down, settings }, task({ IsRecurringSchedule: false, TimeOfDay: '2026-07-01T00:00:00Z' }), new Date(now)).catch((error: unknown) => error);
    expect(unreachable).toBeInstanceOf(ScheduleSyncFailed);
    expect((unreachable as ScheduleSyncFailed).retryable).toBe(true);
  });
});

describe('the API, as the SDK sees it', () => {
  const base = (name: string): CreateScheduleCommandInput => ({
    Name: name,
    GroupName: group,
    ScheduleExpression: 'cron(0 9 * * ? *)',
    FlexibleTimeWindow: { Mode: 'OFF' },
    Target: { Arn: queue.queueArn, RoleArn: roleArn },
  });

  it('answers Conflict, ResourceNotFound and Validation as the service does', async () => {
    now = start;
    const name = `api-${randomUUID().slice(0, 8)}`;
    await admin().send(new CreateScheduleCommand(base(name)));
    await expect(admin().send(new CreateScheduleCommand(base(name)))).rejects.toMatchObject({ name: 'ConflictException' });
    await expect(admin().send(new GetScheduleCommand({ Name: `${name}-none`, GroupName: group }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(admin().send(new UpdateScheduleCommand(base(`${name}-none`)))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(admin().send(new CreateScheduleCommand({ ...base(`${name}-g`), GroupName: 'nope' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    for (const invalid of [
      { ScheduleExpression: 'cron(0 9 * * * *)' },
      { ScheduleExpression: 'rate(1 minutes)' },
      { ScheduleExpressionTimezone: 'Mars/Olympus' },
      { StartDate: new Date(now - 6 * 60_000) },
      { FlexibleTimeWindow: { Mode: 'SOMETIMES' as 'OFF' } },
      { Target: { Arn: queue.queueArn, RoleArn: roleArn, Input: 'x'.repeat(8193) } },
      { Name: 'bad/name' },
    ]) {
      await expect(admin().send(new CreateScheduleCommand({ ...base(`${name}-v`), ...invalid }))).rejects.toMatchObject({ name: 'ValidationException' });
    }
  });

  it('applies a ClientToken once, and refuses it for another request', async () => {
    const name = `token-${randomUUID().slice(0, 8)}`;
    await admin().send(new CreateScheduleCommand({ ...base(name), ClientToken: `${name}-1` }));
    await admin().send(new CreateScheduleCommand({ ...base(name), ClientToken: `${name}-1` }));
    await expect(admin().send(new CreateScheduleCommand({ ...base(`${name}-b`), ClientToken: `${name}-1` }))).rejects.toMatchObject({ name: 'ConflictException' });
  });

  it('delivers only where the execution role may send; a firing it cannot deliver ends in the DLQ after the retry policy', async () => {
    now = start;
    const name = `role-${randomUUID().slice(0, 8)}`;
    await admin().send(
      new CreateScheduleCommand({
        ...base(name),
        ScheduleExpression: 'at(2026-06-01T01:00:00)',
        Target: {
          Arn: other.queueArn,
          RoleArn: roleArn,
          Input: '{"at":"<aws.scheduler.scheduled-time>"}',
          RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 5 },
          DeadLetterConfig: { Arn: queue.deadLetterQueueArn },
        },
      }),
    );
    now = Date.parse('2026-06-01T01:00:00Z');
    expect(await scheduler.fireDue()).toBe(0);
    now = Date.parse('2026-06-01T01:05:00Z');
    expect(await scheduler.fireDue()).toBe(0);
    expect(await drain(other.queueUrl)).toEqual([]);
    expect(await drain(queue.deadLetterQueueUrl)).toEqual(['{"at":"2026-06-01T01:00:00Z"}']);
  });
});
