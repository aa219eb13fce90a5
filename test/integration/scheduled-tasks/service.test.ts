// Integration: the scheduled-task service over the real repository on DynamoDB Local, the real task-runs recorder
// and latestRuns (contract C4), and a real SQS queue for the sync retries; the scheduler is a port the test makes
// succeed or fail. What is stored is read back from the table itself: secrets are never there in plaintext.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localSecretCipher } from '#shared/crypto/envelope';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { logger } from '#shared/observability/logger';
import { sequenceKey } from '#shared/data/sequence';
import { taskKey, taskSequence } from '#shared/scheduled-tasks/keys';
import { createScheduledTaskRepository, createTaskRunRepository } from '#shared/scheduled-tasks/repository';
import { createRunRecorder } from '#shared/scheduled-tasks/runs';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { syncScheduleWith, type TaskSchedule } from '#shared/scheduled-tasks/schedule-sync';
import { createScheduledTaskService } from '#shared/scheduled-tasks/service';
import { createScheduleSyncPublisher } from '#shared/scheduled-tasks/sync-requests';
import { localDynamoDbClient, localSqsClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { freshTenantId } from '#test/support/tenant-items';
import { scanPages } from '#test/support/table-scan';

logger.setLogLevel('SILENT');

const { tableName } = requireLocalEndpoints();
let raw: DynamoDBClient;
let table: TableContext;
let sqs: SQSClient;
let queueUrl: string;

beforeAll(async () => {
  raw = localDynamoDbClient();
  table = { client: createDocumentClient(raw), tableName };
  sqs = localSqsClient();
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `schedule-sync-${randomUUID().slice(0, 8)}` }))).QueueUrl as string;
});
afterAll(() => {
  raw.destroy();
  sqs.destroy();
});

const cipher = localSecretCipher(randomBytes(32));
const clock = { now: new Date('2026-03-02T08:00:00Z') };
const scheduler = { fails: false, calls: [] as TaskSchedule[] };

const service = () =>
  createScheduledTaskService({
    repository: createScheduledTaskRepository(table),
    cipher,
    syncSchedule: async (task) => {
      scheduler.calls.push(task);
      if (scheduler.fails) throw Object.assign(new Error('unreachable'), { name: 'ScheduleSyncFailed' });
      return task.enabled ? 'Enabled' : 'Disabled';
    },
    requestSync: createScheduleSyncPublisher(queueUrl, sqs),
    latestRuns: (tenantId, taskId) => createTaskRunRepository(table).latestRuns(tenantId, taskId),
    clock: () => clock.now,
  });

const principalOf = () => ({ tenantId: freshTenantId(), websiteId: 1, userId: 3 });
const quarterHourly = { Name: 'Export', TaskTypeID: 7, IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2026-03-02T09:00:00Z' };
const storedTask = async (tenantId: number, id: number) =>
  (await table.client.send(new GetCommand({ TableName: tableName, Key: taskKey(tenantId, id), ConsistentRead: true }))).Item;

const secrets = {
  TokenKey: `tk-${randomUUID()}`,
  TokenSecret: `ts-${randomUUID()}`,
  ConsumerKey: `ck-${randomUUID()}`,
  ConsumerSecret: `cs-${randomUUID()}`,
  Session: `sess-${randomUUID()}`,
  Verifier: `ver-${randomUUID()}`,
  Username: `user-${randomUUID()}@example.com`,
  ApiPassword: `pw-${randomUUID()}`,
};

describe('scheduled-task service on DynamoDB Local', () => {
  it('creates, reads back and updates with a merge; the item holds the C4 attribute names', async () => {
    const principal = principalOf();
    const { task } = await service().save(principal, quarterHourly);
    expect(task).toMatchObject({ ID: 1, Version: 1, Status: 'Scheduled', ScheduleState: 'Enabled', NextRunDateTime_utc: '2026-03-02T09:00:00.000Z' });
    expect(await storedTask(principal.tenantId, 1)).toMatchObject({
      entity: 'ScheduledTask',
      Version: 1,
      IsEnabled: true,
      IsActive: true,
      IsRecurringSchedule: true,
      Interval: 15,
      IntervalType: 1,
      TimeOfDay: '2026-03-02T09:00:00Z',
      TaskTypeID: 7,
      NextRunDateTime_utc: '2026-03-02T09:00:00.000Z',
      Status: 'Scheduled',
    });
    const { task: updated } = await service().save(principal, { ID: 1, Name: 'Export v2', Version: 1 });
    expect(updated).toMatchObject({ Name: 'Export v2', Version: 2, Interval: 15 });
    expect(await service().get(principal, 1)).toEqual({ ...updated, Runs: [] });
  });

  it('answers 404 to another tenant, and 409 to a stale Version, and changes nothing', async () => {
    const principal = principalOf();
    await service().save(principal, quarterHourly);
    const before = await storedTask(principal.tenantId, 1);
    await expect(service().get(principalOf(), 1)).rejects.toMatchObject({ status: 404 });
    await expect(service().save({ ...principalOf(), tenantId: principal.tenantId + 1 }, { ...quarterHourly, ID: 1 })).rejects.toMatchObject({ status: 404 });
    await service().save(principal, { ID: 1, Name: 'Second' });
    await expect(service().save(principal, { ID: 1, Name: 'Stale', Version: 1 })).rejects.toMatchObject({ status: 409 });
    expect(await storedTask(principal.tenantId, 1)).toMatchObject({ Name: 'Second', Version: before!.Version + 1 });
  });

  it('takes no ID for a refused create', async () => {
    const principal = principalOf();
    await expect(service().save(principal, { ...quarterHourly, Interval: 0 })).rejects.toMatchObject({ status: 400 });
    const sequence = await table.client.send(new GetCommand({ TableName: tableName, Key: sequenceKey(principal.tenantId, taskSequence), ConsistentRead: true }));
    expect(sequence.Item).toBeUndefined();
  });

  it('ten concurrent saves without a Version all land, one Version each', async () => {
    const principal = principalOf();
    await service().save(principal, quarterHourly);
    await Promise.all(Array.from({ length: 10 }, (_, index) => service().save(principal, { ID: 1, NameFriendlyName: `writer ${index}` })));
    expect(await storedTask(principal.tenantId, 1)).toMatchObject({ Version: 11 });
  });

  it('shows the runs the task-runs consumer records, and a save never undoes a recorded LastRun', async () => {
    const principal = principalOf();
    await service().save(principal, quarterHourly);
    const recorder = createRunRecorder({ runs: createTaskRunRepository(table), publishWork: async () => undefined, now: () => new Date('2026-03-02T09:15:02Z') });
    await recorder.record({ tenantId: principal.tenantId, taskId: 1, version: 1, scheduledTime: new Date('2026-03-02T09:15:00Z') });
    const { task } = await service().save(principal, { ID: 1, Name: 'Renamed' });
    expect(task.LastRunDateTime_utc).toBe('2026-03-02T09:15:00.000Z');
    expect(await service().get(principal, 1)).toMatchObject({
      Name: 'Renamed',
      LastRunDateTime_utc: '2026-03-02T09:15:00.000Z',
      Runs: [{ ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:02.000Z', Outcome: 'Run' }],
    });
  });

  it('stores secrets only as ciphertext: no table item holds a plaintext; omitted keeps, "" clears', async () => {
    const principal = principalOf();
    const AdaptorDetails = {
      Name: 'Ledger',
      TokenDetails: { Provider: 'Xero', ...Object.fromEntries(Object.entries(secrets).filter(([name]) => name !== 'ApiPassword')) },
      Instructions: [{ KeyName: 'ApiPassword', Value: secrets.ApiPassword }],
    };
    const { task } = await service().save(principal, { ...quarterHourly, AdaptorDetails });
    expect(task.AdaptorDetails?.TokenDetails).toEqual({
      Provider: 'Xero',
      HasTokenKey: true,
      HasTokenSecret: true,
      HasConsumerKey: true,
      HasConsumerSecret: true,
      HasSession: true,
      HasVerifier: true,
      HasUsername: true,
    });
    await service().save(principal, { ID: 1, AdaptorDetails: { TokenDetails: { Session: '' } } });
    const item = await storedTask(principal.tenantId, 1);
    expect((item?.AdaptorSecrets as { Field: string }[]).map((secret) => secret.Field)).toEqual([
      'Instructions/ApiPassword/Value',
      'TokenDetails/ConsumerKey',
      'TokenDetails/ConsumerSecret',
      'TokenDetails/TokenKey',
      'TokenDetails/TokenSecret',
      'TokenDetails/Username',
      'TokenDetails/Verifier',
    ]);
    // Every item of the table (every test file's too): none holds any of the plaintexts.
    for await (const page of scanPages(table.client, { TableName: tableName })) {
      const text = JSON.stringify(page);
      for (const secret of Object.values(secrets)) expect(text).not.toContain(secret);
    }
  });

  it('a failing scheduler leaves the stored task Pending with a delayed retry on the queue; the retry brings it in line', async () => {
    const principal = principalOf();
    scheduler.fails = true;
    try {
      const { task } = await service().save(principal, quarterHourly);
      expect(task).toMatchObject({ ID: 1, Version: 1, ScheduleState: 'Pending' });
    } finally {
      scheduler.fails = false;
    }
    expect(await storedTask(principal.tenantId, 1)).toMatchObject({ Version: 1, ScheduleState: 'Pending' });
    // The message is delayed (30 s): not visible at once.
    const early = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 }));
    expect(early.Messages ?? []).toEqual([]);

    expect(await service().retrySync({ tenantId: principal.tenantId, taskId: 1, version: 1 })).toBe('synced');
    expect(await storedTask(principal.tenantId, 1)).toMatchObject({ Version: 1, ScheduleState: 'Enabled' });
    expect(scheduler.calls.at(-1)).toMatchObject({ tenantId: principal.tenantId, taskId: 1, version: 1, enabled: true });
  });

  it('with the real scheduler client and nothing listening at its endpoint: Pending, stored, retry queued', async () => {
    const principal = principalOf();
    const unreachable = new SchedulerClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', maxAttempts: 1, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      const real = createScheduledTaskService({
        repository: createScheduledTaskRepository(table),
        cipher,
        syncSchedule: (task, now) =>
          syncScheduleWith(
            { client: unreachable, settings: { groupName: 'tasks', targetQueueArn: 'arn:aws:sqs:us-east-1:000000000000:task-runs', deadLetterQueueArn: 'arn:aws:sqs:us-east-1:000000000000:task-runs-dlq', executionRoleArn: 'arn:aws:iam::000000000000:role/scheduler' } },
            task,
            now,
          ),
        requestSync: createScheduleSyncPublisher(queueUrl, sqs, 0),
        latestRuns: (tenantId, taskId) => createTaskRunRepository(table).latestRuns(tenantId, taskId),
        clock: () => clock.now,
      });
      const { created, task } = await real.save(principal, quarterHourly);
      expect({ created, state: task.ScheduleState }).toEqual({ created: true, state: 'Pending' });
      expect(await storedTask(principal.tenantId, 1)).toMatchObject({ Version: 1, ScheduleState: 'Pending' });
      const bodies: unknown[] = [];
      for (let attempt = 0; attempt < 20 && !bodies.some((body) => JSON.stringify(body).includes(`"tenantId":${principal.tenantId}`)); attempt += 1) {
        const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
        bodies.push(...Messages.map((message) => JSON.parse(message.Body ?? '{}') as unknown));
      }
      expect(bodies).toContainEqual({ tenantId: principal.tenantId, taskId: 1, version: 1 });
    } finally {
      unreachable.destroy();
    }
  });
});
