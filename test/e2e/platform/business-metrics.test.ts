// End to end: the functions of the local stack write their business metrics as CloudWatch EMF lines on stdout, which
// the stack's log keeps (shared/observability/metrics.ts). After a refund (inline and queued), a task run and receipt
// completions (single and chunked), this run's stack log holds the lines those events write, in the service's
// namespace, and no EMF line carries anything but its metric, the `service` dimension and its own declared dimension.
// Test files share one stack, so counts are compared before and after (other files may add lines, never remove them);
// refunded amounts are chosen to be unique, so their lines are this file's own.
import { randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { taskRunsQueue } from '#shared/events/queues';
import { businessMetrics, metricsNamespace } from '#shared/observability/metrics';
import { taskKey } from '#shared/scheduled-tasks/keys';
import type { TaskRunMessage } from '#shared/scheduled-tasks/messages';
import { eventually } from '#test/support/document-events';
import { api, tokenFor } from '#test/support/http';
import { currentRunLogFile } from '#test/support/local-stack-process';
import { dailyTask } from '#test/support/task-runs';
import { localTaskStack } from '#test/support/task-runs-stack';
import { freshTenantId } from '#test/support/tenant-items';
import { postPayment, postRefund } from '#test/e2e/payments/support';

interface EmfLine {
  readonly _aws: { readonly Timestamp: number; readonly CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  readonly [key: string]: unknown;
}

/** Every EMF line of this run's stack log (a line the stack interleaved badly is skipped, never mistaken). */
const emfLines = async (): Promise<EmfLine[]> => {
  const text = await readFile(currentRunLogFile(), 'utf8').catch(() => '');
  return text.split('\n').flatMap((line) => {
    const start = line.indexOf('{"_aws":');
    if (start < 0) return [];
    try {
      return [JSON.parse(line.slice(start)) as EmfLine];
    } catch {
      return [];
    }
  });
};

/** Lines of one metric, with its dimension's value when it has one. */
const linesOf = (lines: readonly EmfLine[], name: string, dimension?: readonly [string, string]) =>
  lines.filter((line) => typeof line[name] === 'number' && (!dimension || line[dimension[0]] === dimension[1]));

const countOf = async (name: string, dimension?: readonly [string, string]) => linesOf(await emfLines(), name, dimension).length;

/** Waits until the log holds more lines of the metric than `before`; returns the lines. */
const moreThan = (before: number, name: string, dimension?: readonly [string, string]) =>
  eventually(
    async () => {
      const lines = linesOf(await emfLines(), name, dimension);
      return lines.length > before ? lines : undefined;
    },
    `an EMF line of ${name}${dimension ? ` ${dimension.join('=')}` : ''}`,
    { timeoutMs: 20_000, intervalMs: 200 },
  );

let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: freshTenantId(), user: 5 });
});

describe('refunds', () => {
  it('writes Refunds (Inline) and the refunded amount in minor units per currency', async () => {
    const refunds = await countOf('Refunds', ['Mode', 'Inline']);
    const payments = await countOf('PaymentsRecorded');
    // JPY has no minor unit: the amount is its own minor units, and unique to this file.
    const amount = randomInt(100_000, 999_999);
    const paid = await postPayment(token, { Object: { Amount: 2_000_000, Currency: 'JPY' } });
    expect(paid.status).toBe(201);
    expect((await postRefund(token, paid.json.Object.ID as number, { Object: { Amount: amount } })).status).toBe(201);

    await moreThan(refunds, 'Refunds', ['Mode', 'Inline']);
    await moreThan(payments, 'PaymentsRecorded');
    const [line, ...others] = await eventually(async () => {
      const found = linesOf(await emfLines(), 'RefundedAmountMinor', ['Currency', 'JPY']).filter((entry) => entry.RefundedAmountMinor === amount);
      return found.length > 0 ? found : undefined;
    }, 'the refunded amount');
    expect(others).toEqual([]);
    expect(line).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [{ Namespace: metricsNamespace, Dimensions: [['service', 'Currency']], Metrics: [{ Name: 'RefundedAmountMinor', Unit: 'None' }] }],
      },
      service: 'business-platform-api',
      Currency: 'JPY',
      RefundedAmountMinor: amount,
    });
  });

  it('writes Refunds (Queued) when the refund is queued, and its amount once the consumer completes it', async () => {
    const queued = await countOf('Refunds', ['Mode', 'Queued']);
    const cents = randomInt(100_000, 999_999);
    const paid = await postPayment(token, { Object: { Amount: 20_000 } });
    expect(paid.status).toBe(201);
    const refund = await postRefund(token, paid.json.Object.ID as number, { IsQueue: true, Object: { Amount: cents / 100 } });
    expect(refund.status).toBe(202);
    await moreThan(queued, 'Refunds', ['Mode', 'Queued']);
    await eventually(async () => {
      const found = linesOf(await emfLines(), 'RefundedAmountMinor', ['Currency', 'AUD']).filter((entry) => entry.RefundedAmountMinor === cents);
      return found.length === 1 ? found : undefined;
    }, 'the queued refund completed by the payments consumer');
  });
});

describe('task runs', () => {
  const { tableName, table, sqs } = localTaskStack();

  it('writes TaskRuns (Run) when the task-runs consumer records a run', async () => {
    const tenantId = freshTenantId();
    const taskId = 1;
    const scheduledTime = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString().replace('.000Z', 'Z');
    await table.client.send(
      new PutCommand({ TableName: tableName, Item: { ...taskKey(tenantId, taskId), entity: 'ScheduledTask', ID: taskId, Name: 'Metrics', ...dailyTask(scheduledTime) } }),
    );
    const before = await countOf('TaskRuns', ['Outcome', 'Run']);
    const queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: taskRunsQueue.localQueueName }))).QueueUrl as string;
    const message: TaskRunMessage = { tenantId, taskId, version: 1, scheduledTime };
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
    const [line] = await moreThan(before, 'TaskRuns', ['Outcome', 'Run']);
    expect(line!._aws.CloudWatchMetrics).toEqual([
      { Namespace: metricsNamespace, Dimensions: [['service', 'Outcome']], Metrics: [{ Name: 'TaskRuns', Unit: 'Count' }] },
    ]);
  });
});

describe('receipt completions', () => {
  const save = (value: object) => api<{ Value: { ID: number; Version: number; Status: string } }>('/v2/DeliveryReceipt/', { token, body: { Value: value } });
  const complete = async (lines: readonly object[]) => {
    const created = await save({ Status: 'InProgress', WarehouseID: 3, SupplierName: 'Metrics', Lines: lines });
    expect(created.status).toBe(201);
    return save({ ID: created.json.Value.ID, Version: created.json.Value.Version, Status: 'Complete' });
  };

  it('writes ReceiptsCompleted (Single) and the lines received when a receipt completes at once', async () => {
    const completed = await countOf('ReceiptsCompleted', ['Mode', 'Single']);
    const received = await countOf('ReceiptLinesReceived');
    const answer = await complete([
      { InventoryID: 21, QuantityReceived: 2 },
      { InventoryID: 22, QuantityReceived: 1 },
      { InventoryID: 23, QuantityReceived: 0, QuantityFaulty: 1 },
    ]);
    expect(answer.status).toBe(200);
    await moreThan(completed, 'ReceiptsCompleted', ['Mode', 'Single']);
    const lines = await moreThan(received, 'ReceiptLinesReceived');
    expect(lines.map((line) => line.ReceiptLinesReceived)).toContain(2);
  });

  it('writes CompletionChunks and ReceiptsCompleted (Chunked) when the completions consumer finishes a large receipt', async () => {
    const completed = await countOf('ReceiptsCompleted', ['Mode', 'Chunked']);
    const chunks = await countOf('CompletionChunks');
    const answer = await complete(Array.from({ length: 300 }, (_, index) => ({ InventoryID: 5000 + index, QuantityReceived: 1 })));
    expect(answer.status).toBe(202);
    await moreThan(completed, 'ReceiptsCompleted', ['Mode', 'Chunked']);
    expect(await countOf('CompletionChunks')).toBeGreaterThan(chunks + 1);
  });
});

it('writes no EMF line with anything but its metrics, the service dimension and its declared dimension', async () => {
  const lines = await emfLines();
  expect(lines.length).toBeGreaterThan(0);
  const declared = new Map<string, string | undefined>(
    Object.values(businessMetrics).map((metric) => [metric.name, 'dimension' in metric ? metric.dimension.name : undefined]),
  );
  for (const line of lines) {
    const [directive, ...more] = line._aws.CloudWatchMetrics;
    expect(more).toEqual([]);
    expect(directive!.Namespace).toBe(metricsNamespace);
    const names = directive!.Metrics.map((metric) => metric.Name);
    const dimensions = names.map((name) => declared.get(name));
    expect(dimensions.every((dimension) => dimension === dimensions[0])).toBe(true);
    const allowed = ['_aws', 'service', ...names, ...(dimensions[0] ? [dimensions[0]] : [])];
    expect(Object.keys(line).sort()).toEqual([...allowed].sort());
    expect(directive!.Dimensions).toEqual([['service', ...(dimensions[0] ? [dimensions[0]] : [])]]);
  }
});
