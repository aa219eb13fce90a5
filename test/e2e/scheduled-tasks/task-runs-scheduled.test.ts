// End to end, the whole path of a run on the local stack: a task saved through POST /ScheduledTasks/ gets its
// schedule in the EventBridge Scheduler emulation, which fires it when due into the task-runs queue; the emulated
// event source mapping hands it to the task-runs consumer, which records the run (GET /ScheduledTasks/{id} lists it)
// and publishes its work message. The task's credentials never reach a log line.
//
// The scheduler's precision is a minute, so the task is due at the next whole minute at least 5 s away and the test
// polls for its run (no fixed sleep; at most about 65 s). The emulation's clock can be injected, but only in a stack
// started in-process; the shared test stack runs on the real clock, and a second stack (another DynamoDB Local) would
// cost more than the wait.
import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from '@jest/globals';
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { taskWorkQueue } from '#shared/events/queues';
import type { TaskWorkMessage } from '#shared/scheduled-tasks/messages';
import { eventually } from '#test/support/document-events';
import { readStackLog } from '#test/support/document-events-http';
import { tokenFor } from '#test/support/http';
import { takeMessages } from '#test/support/task-runs';
import { localTaskStack } from '#test/support/task-runs-stack';
import { freshTenantId } from '#test/support/tenant-items';
import { getTask, saveTask } from './support';

const { sqs } = localTaskStack();
const tenantId = freshTenantId();
let token: string;
let workQueueUrl: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: tenantId });
  workQueueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: taskWorkQueue.localQueueName }))).QueueUrl as string;
});

it('runs a task saved through POST /ScheduledTasks/ when it is due: GET lists the run and its work message is published once', async () => {
  const due = new Date(Math.ceil((Date.now() + 5_000) / 60_000) * 60_000);
  const secret = `token-secret-${randomUUID()}`;
  const saved = await saveTask(token, {
    Name: 'Due in a moment',
    TaskTypeID: 4,
    IsRecurringSchedule: false,
    TimeOfDay: due.toISOString().replace('.000Z', 'Z'),
    AdaptorDetails: { Name: 'Xero', TokenDetails: { Provider: 'Xero', TokenSecret: secret } },
  });
  expect(saved.status).toBe(201);
  expect(saved.json.Value).toMatchObject({ ScheduleState: 'Enabled', Status: 'Scheduled', Version: 1 });
  const id = saved.json.Value.ID as number;

  const answer = await eventually(
    async () => {
      const got = await getTask(token, id);
      return (got.json.Value.Runs?.length ?? 0) > 0 ? got : undefined;
    },
    'the run listed by GET /ScheduledTasks/{id}',
    { timeoutMs: 100_000, intervalMs: 500 },
  );
  expect(answer.status).toBe(200);
  expect(answer.json.Value.Runs).toEqual([{ ScheduledDateTime_utc: due.toISOString(), RecordedDateTime_utc: expect.any(String), Outcome: 'Run' }]);
  expect(answer.json.Value).toMatchObject({ Status: 'Completed', LastRunDateTime_utc: due.toISOString(), Version: 1 });
  expect(answer.json.Value.CompletedDateTime_utc).toEqual(expect.any(String));

  const mine = (work: TaskWorkMessage) => work.tenantId === tenantId;
  const work = await eventually(
    async () => {
      const taken = await takeMessages(sqs, workQueueUrl, mine, 1);
      return taken.length > 0 ? taken : undefined;
    },
    'the work message',
  );
  expect(work).toEqual([{ tenantId, taskId: id, taskTypeId: 4, version: 1, scheduledTime: due.toISOString(), runKey: `${tenantId}:${id}:${due.toISOString()}` }]);
  expect(await takeMessages(sqs, workQueueUrl, mine, 1)).toEqual([]);

  const { text } = await readStackLog([`"tenantId":${tenantId},"taskId":${id}`]);
  expect(text).not.toContain(secret);
}, 130_000);
