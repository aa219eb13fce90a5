// End to end: a TaskRunMessage sent to the local stack's task-runs queue is carried by the emulated event source
// mapping to the real consumer (in its own process, with its own grants), which records the run once and publishes
// one work message on the local work queue; a duplicate changes nothing. The stack's log never shows the task's
// sealed secrets.
import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from '@jest/globals';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { taskRunsQueue, taskWorkQueue } from '#shared/events/queues';
import { runKey, taskKey, taskPartition } from '#shared/scheduled-tasks/keys';
import type { TaskRunMessage, TaskWorkMessage } from '#shared/scheduled-tasks/messages';
import { eventually } from '#test/support/document-events';
import { readStackLog } from '#test/support/document-events-http';
import { dailyTask, takeMessages } from '#test/support/task-runs';
import { localTaskStack } from '#test/support/task-runs-stack';
import { freshTenantId } from '#test/support/tenant-items';

const { tableName, table, sqs } = localTaskStack();
let runsQueueUrl: string;
let workQueueUrl: string;

beforeAll(async () => {
  runsQueueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: taskRunsQueue.localQueueName }))).QueueUrl as string;
  workQueueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: taskWorkQueue.localQueueName }))).QueueUrl as string;
});

const partition = async (tenantId: number, taskId: number) =>
  (
    await table.client.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': taskPartition(tenantId, taskId) }, ConsistentRead: true }),
    )
  ).Items ?? [];

it('records a run sent to the task-runs queue once, publishes one work message, and a duplicate changes nothing', async () => {
  const tenantId = freshTenantId();
  const taskId = 1;
  // Due at the last whole minute: a run, well within its day's interval.
  const due = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  const scheduledTime = due.toISOString().replace('.000Z', 'Z');
  const canary = `sealed-${randomUUID()}`;
  await table.client.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...taskKey(tenantId, taskId),
        entity: 'ScheduledTask',
        ID: taskId,
        Name: 'Stock export',
        ...dailyTask(scheduledTime),
        AdaptorDetails: { Name: 'Xero', TokenDetails: {} },
        AdaptorSecrets: [{ Field: 'TokenDetails/TokenSecret', Ciphertext: canary }],
      },
    }),
  );
  const message: TaskRunMessage = { tenantId, taskId, version: 1, scheduledTime };
  const mine = (work: TaskWorkMessage) => work.tenantId === tenantId;

  await sqs.send(new SendMessageCommand({ QueueUrl: runsQueueUrl, MessageBody: JSON.stringify(message) }));
  const run = await eventually(
    async () => {
      const { Item } = await table.client.send(new GetCommand({ TableName: tableName, Key: runKey(tenantId, taskId, due), ConsistentRead: true }));
      return Item?.PublishedDateTime_utc ? Item : undefined;
    },
    'the run recorded and published',
  );
  expect(run).toMatchObject({ Outcome: 'Run', ScheduledDateTime_utc: due.toISOString(), Version: 1, TaskTypeID: 3 });
  const task = (await table.client.send(new GetCommand({ TableName: tableName, Key: taskKey(tenantId, taskId), ConsistentRead: true }))).Item;
  expect(task).toMatchObject({ LastRunDateTime_utc: due.toISOString(), NextRunDateTime_utc: new Date(due.getTime() + 86_400_000).toISOString(), Version: 1 });
  const work = await eventually(async () => {
    const taken = await takeMessages(sqs, workQueueUrl, mine, 1);
    return taken.length > 0 ? taken : undefined;
  }, 'the work message');
  expect(work).toEqual([{ tenantId, taskId, taskTypeId: 3, version: 1, scheduledTime: due.toISOString(), runKey: `${tenantId}:${taskId}:${due.toISOString()}` }]);

  const before = await partition(tenantId, taskId);
  const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl: runsQueueUrl, MessageBody: JSON.stringify(message) }));
  // The consumer's log line for the duplicate says what it did.
  const { text, ours } = await readStackLog([`"messageId":"${MessageId}"`]);
  if (ours) {
    const line = text.split('\n').find((entry) => entry.includes(`"messageId":"${MessageId}"`));
    expect(line).toContain('"outcome":"Duplicate"');
    expect(line).toContain('"published":false');
  }
  expect(await partition(tenantId, taskId)).toEqual(before);
  expect(await takeMessages(sqs, workQueueUrl, mine, 1)).toEqual([]);
  // Nothing of the task's sealed secrets reaches a log line (the consumer never even reads them).
  expect(text).not.toContain(canary);
});
