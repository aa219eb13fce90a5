// Benchmark section "task runs": the task-runs consumer's throughput on 5,000 run messages of which 10 % are
// duplicates, through the real handler module (functions/scheduled-tasks/consume-task-runs.ts, one copy per container),
// the SQS server and the local event source mapping, against DynamoDB Local; then the check that no run was lost or
// recorded twice and that the work queue got exactly one message per run. Baseline, measured in the same run: raw
// PutItem of as many items, as many at once as the mapping has records in flight (batch size x concurrency).
import { performance } from 'node:perf_hooks';
import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureQueues } from '#infra/local/provision';
import { taskRunsQueue, taskWorkQueue } from '#shared/events/queues';
import { taskKey, taskPartition } from '#shared/scheduled-tasks/keys';
import type { TaskRunMessage, TaskWorkMessage } from '#shared/scheduled-tasks/messages';
import { dailyTask, takeMessages } from '#test/support/task-runs';
import type { CapacityTotals } from './capacity';
import type { BenchContext } from './context';
import { benchTenantIds } from './context';
import { drainThroughMapping, loadContainers } from './section-consumer';
import { batchWriteAll, inPool, range } from './seed';
import { seededRandom } from '#infra/local/seeded-random';
import { ms, ratio, renderTable, shuffle, units } from './stats';

export interface TaskRunsSection {
  readonly messages: number;
  readonly distinctRuns: number;
  readonly duplicates: number;
  readonly deliveries: number;
  readonly invocations: number;
  readonly wallMs: number;
  readonly messagesPerSecond: number;
  readonly baselineWallMs: number;
  readonly baselinePutsPerSecond: number;
  /** Consumer messages/s over baseline PutItems/s: the share of raw write throughput the consumer keeps. */
  readonly ratio: number;
  readonly capacity: CapacityTotals;
  readonly check: { readonly ok: boolean; readonly recorded: number; readonly lost: number; readonly doubled: number; readonly workMessages: number; readonly distinctWork: number; readonly deadLetters: number };
}

const tenantId = benchTenantIds.taskRuns;
const eventSource = taskRunsQueue.eventSource;
const consumer = taskRunsQueue.consumer;
/**
 * Retried deliveries (a duplicate whose twin was still publishing after 750 ms) come back after 10 s, not 181 s; long
 * enough that a batch slowed by the shared machine is not redelivered while it is still being processed.
 */
const benchVisibilitySeconds = 10;

/** One daily task per run, all due at the same minute: the burst a top-of-the-hour schedule brings. */
const taskItem = (taskId: number, timeOfDay: string) => ({
  ...taskKey(tenantId, taskId),
  entity: 'ScheduledTask',
  ID: taskId,
  Name: `Bench task ${taskId}`,
  ...dailyTask(timeOfDay, { TaskTypeID: 1 + (taskId % 5) }),
});

export const runTaskRunsSection = async (ctx: BenchContext): Promise<TaskRunsSection> => {
  const { options, log, meter, stack, rawTable } = ctx;
  const messages = options.quick ? 500 : 5000;
  const duplicates = Math.round(messages * options.duplicateShare);
  const distinctRuns = messages - duplicates;
  const sqs = new SQSClient({ endpoint: stack.sqsEndpoint });
  try {
    const runsQueue = await ensureQueues(sqs, {
      ...taskRunsQueue,
      localQueueName: 'bench-task-runs',
      visibilityTimeoutSeconds: benchVisibilitySeconds,
      deadLetterQueue: { ...taskRunsQueue.deadLetterQueue, localQueueName: 'bench-task-runs-dlq' },
    });
    const workQueue = await ensureQueues(sqs, {
      ...taskWorkQueue,
      localQueueName: 'bench-task-work',
      deadLetterQueue: { ...taskWorkQueue.deadLetterQueue, localQueueName: 'bench-task-work-dlq' },
    });

    // Due a minute ago: every firing is a run (a day's interval is far from a misfire).
    const due = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000);
    const scheduledTime = due.toISOString().replace('.000Z', 'Z');
    const taskIds = range(1, distinctRuns);
    log(`task runs: seeding ${distinctRuns.toLocaleString('en')} tasks`);
    await batchWriteAll(rawTable, taskIds.map((taskId) => taskItem(taskId, scheduledTime)));

    const random = seededRandom(23);
    const body = (taskId: number) => JSON.stringify({ tenantId, taskId, version: 1, scheduledTime } satisfies TaskRunMessage);
    const twins = range(1, duplicates).map(() => taskIds[Math.floor(random() * taskIds.length)] as number);
    const bodies = shuffle([...taskIds, ...twins].map(body), random);
    const batches: string[][] = [];
    for (let start = 0; start < bodies.length; start += 10) batches.push(bodies.slice(start, start + 10));
    await inPool(batches, 4, async (batch) => {
      const { Failed } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: runsQueue.queueUrl, Entries: batch.map((MessageBody, index) => ({ Id: String(index), MessageBody })) }));
      if (Failed?.length) throw new Error(`SendMessageBatch: ${Failed.length} failed`);
    });
    log(`task runs: ${bodies.length.toLocaleString('en')} messages queued (${duplicates} duplicates); starting the event source mapping`);

    // The handler reads the work queue's URL (its sendTaskWork grant's variable) on its first record.
    process.env[taskWorkQueue.urlVariable] = workQueue.queueUrl;
    const containers = await loadContainers(eventSource.maximumConcurrency, consumer.handler);
    meter.start();
    let drained: Awaited<ReturnType<typeof drainThroughMapping>>;
    let capacity: CapacityTotals;
    try {
      // 5,000 messages take minutes on a loaded 2-core machine: a generous deadline, only against a hang.
      drained = await drainThroughMapping({ sqs, queue: runsQueue, containers, functionName: consumer.name, timeoutMs: consumer.timeoutSeconds * 1000, eventSource, drainTimeoutMs: 900_000, log });
    } finally {
      capacity = meter.stop();
    }

    log('task runs: baseline, raw PutItem of as many items');
    const inFlight = eventSource.batchSize * eventSource.maximumConcurrency;
    const baselineStarted = performance.now();
    await inPool(range(1, messages), inFlight, async (index) => {
      await rawTable.client.send(
        new PutCommand({ TableName: rawTable.tableName, Item: { pk: `BENCH#TASKRUNS`, sk: `PUT#${String(index).padStart(6, '0')}`, entity: 'BenchBaseline', at: scheduledTime } }),
      );
    });
    const baselineWallMs = performance.now() - baselineStarted;

    log('task runs: checking every task and the work queue');
    let recorded = 0;
    let lost = 0;
    let doubled = 0;
    await inPool(taskIds, 16, async (taskId) => {
      const { Items = [] } = await rawTable.client.send(
        new QueryCommand({
          TableName: rawTable.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :runs)',
          ExpressionAttributeValues: { ':pk': taskPartition(tenantId, taskId), ':runs': 'RUN#' },
          ConsistentRead: true,
        }),
      );
      const runs = Items.filter((item) => item.Outcome === 'Run' && item.PublishedDateTime_utc !== undefined);
      if (Items.length === 0 || runs.length === 0) lost += 1;
      else if (Items.length > 1) doubled += 1;
      else recorded += 1;
    });
    // Long polls until one finds nothing: a short receive of the SQS server may come back empty with messages left.
    const work: TaskWorkMessage[] = [];
    for (let taken = await takeMessages<TaskWorkMessage>(sqs, workQueue.queueUrl, () => true, 1); taken.length > 0; taken = await takeMessages<TaskWorkMessage>(sqs, workQueue.queueUrl, () => true, 1)) {
      work.push(...taken);
    }
    const distinctWork = new Set(work.map((message) => message.runKey)).size;
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: runsQueue.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
    const deadLetters = Number(Attributes?.ApproximateNumberOfMessages ?? 0);
    const ok = recorded === distinctRuns && lost === 0 && doubled === 0 && work.length === distinctRuns && distinctWork === distinctRuns && deadLetters === 0;

    const messagesPerSecond = messages / (drained.wallMs / 1000);
    const baselinePutsPerSecond = messages / (baselineWallMs / 1000);
    return {
      messages,
      distinctRuns,
      duplicates,
      deliveries: drained.deliveries,
      invocations: drained.invocations,
      wallMs: drained.wallMs,
      messagesPerSecond,
      baselineWallMs,
      baselinePutsPerSecond,
      ratio: messagesPerSecond / baselinePutsPerSecond,
      capacity,
      check: { ok, recorded, lost, doubled, workMessages: work.length, distinctWork, deadLetters },
    };
  } finally {
    delete process.env[taskWorkQueue.urlVariable];
    sqs.destroy();
  }
};

export const renderTaskRunsSection = (section: TaskRunsSection): string => {
  const title = 'Task runs (consumer through the SQS server and the local event source mapping)';
  const { check } = section;
  return [
    `\n${title}\n${'='.repeat(title.length)}`,
    renderTable(
      ['Messages', 'distinct runs', 'duplicates', 'deliveries', 'invocations', 'wall ms', 'messages/s', 'raw PutItem/s', 'ratio'],
      [
        [
          String(section.messages),
          String(section.distinctRuns),
          String(section.duplicates),
          String(section.deliveries),
          String(section.invocations),
          ms(section.wallMs, 0),
          section.messagesPerSecond.toFixed(0),
          section.baselinePutsPerSecond.toFixed(0),
          ratio(section.ratio),
        ],
      ],
    ),
    `Check: ${check.ok ? 'PASS' : 'FAIL'}: ${check.recorded} runs recorded once and published, ${check.lost} lost, ${check.doubled} doubled; ` +
      `${check.workMessages} work messages (${check.distinctWork} distinct runKeys), ${check.deadLetters} in the DLQ.`,
    `Capacity: ${units(section.capacity.writeUnits / section.messages)} WCU and ${units(section.capacity.readUnits / section.messages)} RCU per message. ` +
      `Deliveries above the messages are retries (a duplicate whose twin was still publishing, or a batch slower than the visibility timeout) (bench visibility timeout ${benchVisibilitySeconds} s).`,
  ].join('\n');
};
