// Integration: the schedule-sync retry path through the real pieces. A save whose scheduler fails stores the task
// Pending and puts a retry on a queue of the local SQS server; the emulated event source mapping hands it to the
// schedule-sync consumer, which fails while the scheduler is down (the message comes back) and, once it is up,
// syncs the schedule and records Enabled. A message of an older version syncs the newest version, never its own (its
// failed write may have landed after the newer save's); one that keeps failing ends in the DLQ. The queue pairs are this test's own, with a 1 s visibility timeout and no delay.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { createScheduleSyncConsumer as CreateScheduleSyncConsumer } from '#functions/scheduled-tasks/consume-schedule-sync';
import { startEventSourceMapping, type RunningEventSourceMapping } from '#infra/local/event-source-mapping';
import { ensureQueues, type QueueDefinition } from '#infra/local/provision';
import { localSecretCipher } from '#shared/crypto/envelope';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { scheduleSyncQueue } from '#shared/events/queues';
import { schedulerEnvironment } from '#shared/operations/environment';
import { logger } from '#shared/observability/logger';
import { taskKey } from '#shared/scheduled-tasks/keys';
import { createScheduledTaskRepository } from '#shared/scheduled-tasks/repository';
import { ScheduleSyncFailed, type TaskSchedule } from '#shared/scheduled-tasks/schedule-sync';
import { createScheduledTaskService, createScheduleSyncRetrier } from '#shared/scheduled-tasks/service';
import { createScheduleSyncPublisher } from '#shared/scheduled-tasks/sync-requests';
import { eventually } from '#test/support/document-events';
import { localDynamoDbClient, localSqsClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { freshTenantId } from '#test/support/tenant-items';

logger.setLogLevel('SILENT');
const { tableName } = requireLocalEndpoints();

// The consumer's function checks its environment when it loads (shared/operations/environment.ts), the scheduler
// settings of its manageSchedules grant included. This test syncs through a scheduler of its own, so these name
// nothing it calls; they are put back after the file.
const schedulerSettings = {
  [schedulerEnvironment.groupName]: 'schedule-sync-test',
  [schedulerEnvironment.targetQueueArn]: 'arn:aws:sqs:us-east-1:000000000000:schedule-sync-test-runs',
  [schedulerEnvironment.deadLetterQueueArn]: 'arn:aws:sqs:us-east-1:000000000000:schedule-sync-test-runs-dlq',
  [schedulerEnvironment.executionRoleArn]: 'arn:aws:iam::000000000000:role/schedule-sync-test',
};
const savedSettings = Object.fromEntries(Object.keys(schedulerSettings).map((name) => [name, process.env[name]]));
Object.assign(process.env, schedulerSettings);
const { createScheduleSyncConsumer } = (await import('#functions/scheduled-tasks/consume-schedule-sync')) as { createScheduleSyncConsumer: typeof CreateScheduleSyncConsumer };
let raw: DynamoDBClient;
let table: TableContext;
let sqs: SQSClient;
const mappings: RunningEventSourceMapping[] = [];

beforeAll(() => {
  raw = localDynamoDbClient();
  table = { client: createDocumentClient(raw), tableName };
  sqs = localSqsClient();
});
afterAll(async () => {
  for (const [name, value] of Object.entries(savedSettings)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  for (const mapping of mappings) await mapping.stop();
  raw.destroy();
  sqs.destroy();
});

/** A scheduler that fails `failures` times, then works; it records every call. */
const flakyScheduler = (failures: number) => {
  const calls: TaskSchedule[] = [];
  let left = failures;
  const sync = async (task: TaskSchedule) => {
    calls.push(task);
    if (left > 0) {
      left -= 1;
      throw new ScheduleSyncFailed('the scheduler is unavailable (test)', { retryable: true });
    }
    return task.enabled ? ('Enabled' as const) : ('Disabled' as const);
  };
  return { calls, sync };
};

/** A schedule-sync queue pair of this test (3 receives before the DLQ), and the consumer running on it. */
const queueWith = async (scheduler: ReturnType<typeof flakyScheduler>, visibilityTimeoutSeconds = 1) => {
  const name = `sync-${randomUUID().slice(0, 8)}`;
  const definition: QueueDefinition = {
    ...scheduleSyncQueue,
    localQueueName: name,
    visibilityTimeoutSeconds,
    deadLetterQueue: { ...scheduleSyncQueue.deadLetterQueue, localQueueName: `${name}-dlq`, maxReceiveCount: 3 },
  };
  const queue = await ensureQueues(sqs, definition);
  const repository = createScheduledTaskRepository(table);
  const service = createScheduledTaskService({
    repository,
    cipher: localSecretCipher(randomBytes(32)),
    syncSchedule: scheduler.sync,
    requestSync: createScheduleSyncPublisher(queue.queueUrl, sqs, 0),
    latestRuns: async () => [],
  });
  const consumer = createScheduleSyncConsumer(createScheduleSyncRetrier({ repository, syncSchedule: scheduler.sync }).retrySync);
  mappings.push(
    startEventSourceMapping({
      sqs,
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      loadHandler: async () => consumer as never,
      functionName: scheduleSyncQueue.consumer.name,
      functionTimeoutMs: 5000,
      ...definition.eventSource,
      pollWaitSeconds: 0,
      log: () => undefined,
    }),
  );
  return { queue, service };
};

const principalOf = () => ({ tenantId: freshTenantId(), websiteId: 1, userId: 3 });
const hourly = { Name: 'Export', TaskTypeID: 7, IsRecurringSchedule: true, Interval: 1, IntervalType: 2, TimeOfDay: '2026-01-01T00:00:00Z' };
const stateOf = async (tenantId: number, id: number) =>
  (await table.client.send(new GetCommand({ TableName: tableName, Key: taskKey(tenantId, id), ConsistentRead: true }))).Item?.ScheduleState;

it('a Pending task is brought in line by the consumer once the scheduler is back, without a second save', async () => {
  // The save's call and the consumer's first attempt fail; the second attempt (after the visibility timeout) works.
  const scheduler = flakyScheduler(2);
  // A visibility timeout longer than an attempt takes on a loaded machine (the stack's is 181 s, past the function's
  // timeout): with 1 s, the successful attempt outlasted it under CI's load, the message came back, and a fourth call
  // was counted (at-least-once delivery, harmless to the product; the count is what this test asserts).
  const { service } = await queueWith(scheduler, 4);
  const principal = principalOf();
  const { task } = await service.save(principal, hourly);
  expect(task.ScheduleState).toBe('Pending');
  await eventually(async () => ((await stateOf(principal.tenantId, 1)) === 'Enabled' ? true : undefined), 'the schedule synced', { timeoutMs: 25_000, intervalMs: 100 });
  expect(scheduler.calls.map((call) => call.version)).toEqual([1, 1, 1]);
});

it('a retry of an older version syncs the newest version, never its own; a newer save owns the schedule', async () => {
  const scheduler = flakyScheduler(0);
  const { queue, service } = await queueWith(scheduler);
  const principal = principalOf();
  await service.save(principal, hourly);
  await service.save(principal, { ID: 1, IsEnabled: false });
  await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: JSON.stringify({ tenantId: principal.tenantId, taskId: 1, version: 1 }) }));
  await eventually(async () => (scheduler.calls.length >= 3 ? true : undefined), 'the retry handled', { timeoutMs: 10_000, intervalMs: 100 });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(scheduler.calls.map((call) => [call.version, call.enabled])).toEqual([
    [1, true],
    [2, false],
    [2, false],
  ]);
  expect(await stateOf(principal.tenantId, 1)).toBe('Disabled');
});

it('a retry that keeps failing, and an unreadable message, end in the DLQ', async () => {
  const scheduler = flakyScheduler(1_000);
  const { queue, service } = await queueWith(scheduler);
  const principal = principalOf();
  await service.save(principal, hourly);
  await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: '{"tenantId":"1"}' }));
  // A received message stays invisible for 30 s, so each poll's messages are kept: the unreadable one usually
  // reaches the DLQ several receives before the retried one.
  const received = new Map<string, { Body?: string }>();
  const dead = await eventually(
    async () => {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.deadLetterQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 30 }));
      for (const message of Messages) received.set(message.MessageId ?? '', message);
      return received.size >= 2 ? [...received.values()] : undefined;
    },
    'both messages in the DLQ',
    { timeoutMs: 20_000, intervalMs: 250 },
  );
  expect(dead.map((message) => message.Body).sort()).toEqual([JSON.stringify({ tenantId: principal.tenantId, taskId: 1, version: 1 }), '{"tenantId":"1"}'].sort());
  expect(await stateOf(principal.tenantId, 1)).toBe('Pending');
});
