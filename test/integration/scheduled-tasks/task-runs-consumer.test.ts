// Integration: the task-runs consumer (functions/scheduled-tasks/consume-task-runs.ts) invoked in-process with SQS batches,
// over the real recorder (DynamoDB Local, a work queue of the SQS server) with an injected clock. A record that is
// not a TaskRunMessage, or whose run another delivery is still publishing, is reported alone in the partial batch
// response; its batch-mates are recorded and published.
import { randomUUID } from 'node:crypto';
import { expect, it } from '@jest/globals';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { createTaskRunsConsumer } from '#functions/scheduled-tasks/consume-task-runs';
import { logger } from '#shared/observability/logger';
import { taskKey } from '#shared/scheduled-tasks/keys';
import type { TaskRunMessage, TaskWorkMessage } from '#shared/scheduled-tasks/messages';
import { createRunRecorder, createWorkPublisher } from '#shared/scheduled-tasks/runs';
import { createTaskRunRepository } from '#shared/scheduled-tasks/repository';
import { eventually } from '#test/support/document-events';
import { lambdaContext, sqsRecord } from '#test/support/lambda-events';
import { quarterHourlyTask, takeMessages } from '#test/support/task-runs';
import { localTaskStack } from '#test/support/task-runs-stack';
import { freshTenantId } from '#test/support/tenant-items';

const { tableName, table, sqs } = localTaskStack();
// The consumer logs one line per record (and an error per unreadable one): expected here, noise in the report.
logger.setLogLevel('SILENT');

const record = (body: string, receiveCount = 1): SQSRecord => sqsRecord(body, { receiveCount, queue: 'task-runs', senderId: 'scheduler' });

it('records and publishes the readable runs of a batch and reports only the records that failed', async () => {
  const tenantId = freshTenantId();
  for (const taskId of [1, 2]) {
    await table.client.send(new PutCommand({ TableName: tableName, Item: { ...taskKey(tenantId, taskId), entity: 'ScheduledTask', ID: taskId, ...quarterHourlyTask } }));
  }
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `task-work-${randomUUID().slice(0, 8)}` }));
  const workQueueUrl = QueueUrl as string;
  const recorder = createRunRecorder({ runs: createTaskRunRepository(table), publishWork: createWorkPublisher(workQueueUrl, sqs), now: () => new Date('2026-03-02T09:15:05Z') });
  const consume = createTaskRunsConsumer(() => recorder);
  const message = (taskId: number, version = 3): TaskRunMessage => ({ tenantId, taskId, version, scheduledTime: '2026-03-02T09:15:00Z' });

  const first = record(JSON.stringify(message(1)));
  const stale = record(JSON.stringify(message(2, 2)));
  const unreadable = record(JSON.stringify({ ...message(1), scheduledTime: 'tomorrow' }));
  const extraMember = record(JSON.stringify({ ...message(1), secret: 'x' }));
  const newerVersion = record(JSON.stringify(message(1, 4)));
  const event: SQSEvent = { Records: [first, stale, unreadable, extraMember, newerVersion] };
  expect(await consume(event, lambdaContext('scheduledTaskRunsConsumer'))).toEqual({
    batchItemFailures: [{ itemIdentifier: unreadable.messageId }, { itemIdentifier: extraMember.messageId }, { itemIdentifier: newerVersion.messageId }],
  });
  expect(await createTaskRunRepository(table).latestRuns(tenantId, 1)).toEqual([{ ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:05.000Z', Outcome: 'Run' }]);
  expect(await createTaskRunRepository(table).latestRuns(tenantId, 2)).toEqual([
    { ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:05.000Z', Outcome: 'Skipped', Reason: 'StaleVersion' },
  ]);
  expect(await takeMessages<TaskWorkMessage>(sqs, workQueueUrl)).toEqual([
    { tenantId, taskId: 1, taskTypeId: 7, version: 3, scheduledTime: '2026-03-02T09:15:00.000Z', runKey: `${tenantId}:1:2026-03-02T09:15:00.000Z` },
  ]);

  // A redelivery of the first run: recorded already, published already: success, nothing sent.
  expect(await consume({ Records: [record(first.body, 2)] }, lambdaContext('scheduledTaskRunsConsumer'))).toEqual({ batchItemFailures: [] });
  expect(await takeMessages(sqs, workQueueUrl)).toEqual([]);
});

/** One task (every 15 minutes, version 3), a work queue, and a gate the test opens to let the first send through. */
const taskWithHeldSend = async () => {
  const tenantId = freshTenantId();
  await table.client.send(new PutCommand({ TableName: tableName, Item: { ...taskKey(tenantId, 1), entity: 'ScheduledTask', ID: 1, ...quarterHourlyTask } }));
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `task-work-${randomUUID().slice(0, 8)}` }));
  const workQueueUrl = QueueUrl as string;
  let releaseSend: () => void = () => undefined;
  const sending = new Promise<void>((resolve) => {
    releaseSend = resolve;
  });
  return { tenantId, workQueueUrl, publish: createWorkPublisher(workQueueUrl, sqs), sending, releaseSend: () => releaseSend() };
};

it('reports a duplicate whose twin is still publishing, and succeeds with it once the twin is done', async () => {
  const { tenantId, workQueueUrl, publish, sending, releaseSend } = await taskWithHeldSend();
  let sends = 0;
  const recorder = createRunRecorder({
    runs: createTaskRunRepository(table),
    // The first send waits until the test lets it go: its twin arrives meanwhile.
    publishWork: async (work) => {
      sends += 1;
      if (sends === 1) await sending;
      await publish(work);
    },
    now: () => new Date('2026-03-02T09:15:05Z'),
  });
  const consume = createTaskRunsConsumer(() => recorder);
  const body = JSON.stringify({ tenantId, taskId: 1, version: 3, scheduledTime: '2026-03-02T09:15:00Z' } satisfies TaskRunMessage);
  const original = record(body);
  const twin = record(body);

  const first = consume({ Records: [original] }, lambdaContext('scheduledTaskRunsConsumer'));
  // The original has recorded the run and is sending.
  await eventually(async () => ((await createTaskRunRepository(table).latestRuns(tenantId, 1)).length > 0 ? true : undefined), 'the run recorded');
  expect(await consume({ Records: [twin] }, lambdaContext('scheduledTaskRunsConsumer'))).toEqual({ batchItemFailures: [{ itemIdentifier: twin.messageId }] });
  releaseSend();
  expect(await first).toEqual({ batchItemFailures: [] });
  expect(await consume({ Records: [record(body, 2)] }, lambdaContext('scheduledTaskRunsConsumer'))).toEqual({ batchItemFailures: [] });
  expect(await takeMessages(sqs, workQueueUrl)).toHaveLength(1);
  expect(sends).toBe(1);
});

it('lets a duplicate wait for its twin that is publishing: both succeed, one work message, no retry', async () => {
  const { tenantId, workQueueUrl, publish, sending, releaseSend } = await taskWithHeldSend();
  let original: Promise<unknown> | undefined;
  const recorder = createRunRecorder({
    runs: createTaskRunRepository(table),
    publishWork: async (work) => {
      await sending;
      await publish(work);
    },
    now: () => new Date('2026-03-02T09:15:05Z'),
    // The duplicate's first wait: the twin's send goes through meanwhile.
    sleep: async () => {
      releaseSend();
      await original;
    },
  });
  const consume = createTaskRunsConsumer(() => recorder);
  const body = JSON.stringify({ tenantId, taskId: 1, version: 3, scheduledTime: '2026-03-02T09:15:00Z' } satisfies TaskRunMessage);

  original = consume({ Records: [record(body)] }, lambdaContext('scheduledTaskRunsConsumer'));
  await eventually(async () => ((await createTaskRunRepository(table).latestRuns(tenantId, 1)).length > 0 ? true : undefined), 'the run recorded');
  expect(await consume({ Records: [record(body)] }, lambdaContext('scheduledTaskRunsConsumer'))).toEqual({ batchItemFailures: [] });
  expect(await original).toEqual({ batchItemFailures: [] });
  expect(await takeMessages(sqs, workQueueUrl)).toHaveLength(1);
});
