// Benchmark section "scheduled tasks": cold starts of the save and get functions (measured by section 1 with the
// requests below, against the 1.3x target), where the save's init goes (its import against the get's, which loads
// no Encryption SDK and no scheduler client), the warm save's p50 against a raw PutItem of the same task item in the
// same run (the handler also takes an ID, and brings the schedule in line on the local scheduler emulation), and the
// capacity one save consumes.
import { SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ensureQueues } from '../../infra/local/provision';
import { localSchedulerRoleArn, localScheduleGroupName } from '../../infra/local/stack';
import type { Principal } from '../../shared/auth/principal';
import { scheduleSyncQueue, taskRunsQueue } from '../../shared/events/queues';
import { schedulerEnvironment } from '../../shared/operations/grants';
import { scheduledTaskSave } from '../../shared/operations/scheduled-tasks';
import { toTaskItem } from '../../shared/scheduled-tasks/repository';
import { outputFileName } from './bundles';
import type { CapacityTotals } from './capacity';
import { coldStart } from './cold-start';
import { functionBundling } from '../../infra/constructs/operation-function';
import { benchTenantIds, principalOf, type BenchContext } from './context';
import { lambdaContext, proxyEvent, type HttpRequest } from './events';
import { runTarget, type ColdSection } from './section-cold';
import { interleave, type Comparison } from './section-warm';
import { median, ms, ratio, renderTable, summarise, units } from './stats';

const tenants = { warm: benchTenantIds.scheduledTasksWarm, capacity: benchTenantIds.scheduledTasksCapacity } as const;

/** A task due every 15 minutes from a past instant; its credentials make the save seal (the cold path with the cipher). */
const taskBody = (run: number, withSecrets: boolean) => ({
  Name: `Bench task ${run}`,
  TaskTypeID: 7,
  IsRecurringSchedule: true,
  Interval: 15,
  IntervalType: 1,
  TimeOfDay: '2026-01-01T00:00:00Z',
  ...(withSecrets ? { AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', TokenKey: `tk-bench-${run}`, TokenSecret: `ts-bench-${run}` } } } : {}),
});

/** Section 1's requests for the scheduled-task functions: a create with credentials, and a read of task 1. */
export const scheduledTaskColdRequests = (principal: Principal): Record<string, (run: number) => HttpRequest> => ({
  scheduledTaskSave: (run) => ({ principal, body: JSON.stringify(taskBody(run, true)) }),
  scheduledTaskGet: () => ({ principal, pathParameters: { id: '1' } }),
});

let coldEnvironment: Record<string, string> = {};

/**
 * What the save function's grants add to its environment, as the local stack gives it (manageSchedules: the group,
 * the task-runs queue, the execution role and the scheduler emulation's endpoint; sealSecrets: the local key;
 * sendScheduleSync: the queue URL). Filled by `prepareScheduledTasks`, before section 1 runs.
 */
export const scheduledTaskColdEnvironment = (): Record<string, string> => coldEnvironment;

/** Seeds task 1 of the cold tenant (read by the get's cold starts) and sets the save's environment, here and for section 1. */
export const prepareScheduledTasks = async (ctx: BenchContext, coldTenant: Principal): Promise<void> => {
  // The in-process environment of the stack (AWS_ENDPOINT_URL_SQS) points the client at the SQS server.
  const sqs = new SQSClient({});
  try {
    const taskRuns = await ensureQueues(sqs, taskRunsQueue);
    coldEnvironment = {
      [schedulerEnvironment.groupName]: localScheduleGroupName,
      [schedulerEnvironment.targetQueueArn]: taskRuns.queueArn,
      [schedulerEnvironment.deadLetterQueueArn]: taskRuns.deadLetterQueueArn,
      [schedulerEnvironment.executionRoleArn]: localSchedulerRoleArn,
      [schedulerEnvironment.endpoint]: ctx.stack.schedulerEndpoint,
      [scheduleSyncQueue.urlVariable]: ctx.stack.queueUrls[scheduleSyncQueue.logicalName] ?? '',
      // The local KMS's key, as the stack's in-process environment names it (infra/local/stack.ts).
      SECRET_FIELDS_KEY_ARN: process.env.SECRET_FIELDS_KEY_ARN ?? '',
      AWS_ENDPOINT_URL_KMS: process.env.AWS_ENDPOINT_URL_KMS ?? '',
    };
  } finally {
    sqs.destroy();
  }
  // The handlers this process loads (the warm series) read the same settings.
  Object.assign(process.env, coldEnvironment);
  const handler = (await ctx.loadHandler(scheduledTaskSave.handler)) as unknown as HttpHandler;
  const saved = await handler(await proxyEvent(scheduledTaskSave, { principal: coldTenant, body: JSON.stringify(taskBody(0, true)) }), lambdaContext('scheduledTaskSave', 10_000));
  if (saved.statusCode !== 201) throw new Error(`seeding the cold task: expected 201, got ${saved.statusCode}: ${saved.body.slice(0, 300)}`);
};

/** Cold starts of the save with and without a credential to seal, each paired with a baseline (section 1's bundles). */
export interface CipherColdStarts {
  readonly runs: number;
  readonly withCredentials: { readonly medianMs: number; readonly ratio: number; readonly invokeMs: number };
  readonly withoutCredentials: { readonly medianMs: number; readonly ratio: number; readonly invokeMs: number };
  readonly baselineMedianMs: number;
}

const runCipherColdStarts = async (ctx: BenchContext): Promise<CipherColdStarts> => {
  const bundleOf = (module: string) => join(ctx.workDir, 'bundles', module.replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '-'), runTarget, outputFileName(functionBundling));
  const runner = join(ctx.workDir, 'cold-runner.mjs');
  // The function's settings are this process's (the stack's in-process environment plus the save's grants).
  const env = { ...(process.env as Record<string, string>), LOG_LEVEL: 'ERROR', POWERTOOLS_LOG_LEVEL: 'ERROR', NODE_OPTIONS: '--enable-source-maps' };
  const principal = principalOf(9504);
  const sample = async (withSecrets: boolean | 'baseline', run: number) =>
    withSecrets === 'baseline'
      ? coldStart({ runner, bundle: bundleOf('test/bench/baseline-handler.ts'), functionName: 'baseline', event: {}, env, functionTimeoutMs: 10_000 })
      : coldStart({
          runner,
          bundle: bundleOf(scheduledTaskSave.handler),
          functionName: scheduledTaskSave.operationId,
          event: await proxyEvent(scheduledTaskSave, { principal, body: JSON.stringify(taskBody(10_000 + run, withSecrets)) }),
          env,
          functionTimeoutMs: 10_000,
        });
  const pairs = { with: [] as { fn: number; invoke: number; baseline: number }[], without: [] as { fn: number; invoke: number; baseline: number }[] };
  for (let run = 0; run <= ctx.options.coldRuns; run += 1) {
    for (const withSecrets of run % 2 === 0 ? [true, false] : [false, true]) {
      const baseline = await sample('baseline', run);
      const measured = await sample(withSecrets, run);
      // Run 0 is the warm-up (file cache), discarded as in section 1.
      if (run > 0) (withSecrets ? pairs.with : pairs.without).push({ fn: measured.totalMs, invoke: measured.invokeMs, baseline: baseline.totalMs });
    }
  }
  const summary = (list: typeof pairs.with) => ({
    medianMs: median(list.map((pair) => pair.fn)),
    ratio: median(list.map((pair) => pair.fn / pair.baseline)),
    invokeMs: median(list.map((pair) => pair.invoke)),
  });
  return {
    runs: ctx.options.coldRuns,
    withCredentials: summary(pairs.with),
    withoutCredentials: summary(pairs.without),
    baselineMedianMs: median([...pairs.with, ...pairs.without].map((pair) => pair.baseline)),
  };
};

export interface ScheduledTasksSection {
  readonly cipherColdStarts: CipherColdStarts;
  readonly cold: readonly { name: string; medianMs: number; baselineMedianMs: number; ratio: number; verdict: string; importMs: number; invokeMs: number; bundleBytes: number; response: string }[];
  readonly baselineImportMs: number;
  readonly coldTarget: number;
  readonly saves: readonly Comparison[];
  readonly saveCapacity: CapacityTotals;
}

type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export const runScheduledTasksSection = async (ctx: BenchContext, coldStart: ColdSection): Promise<ScheduledTasksSection> => {
  const { rawTable, options, log } = ctx;
  log(`scheduled tasks: ${options.coldRuns} cold starts of the save with and without a credential, each paired with a baseline`);
  const cipherColdStarts = await runCipherColdStarts(ctx);
  const handler = (await ctx.loadHandler(scheduledTaskSave.handler)) as unknown as HttpHandler;
  let run = 0;
  const saveOnce = (principal: Principal, withSecrets: boolean) => async () => {
    run += 1;
    const event = await proxyEvent(scheduledTaskSave, { principal, body: JSON.stringify(taskBody(run, withSecrets)) });
    return async () => {
      const result = await handler(event, lambdaContext(scheduledTaskSave.operationId, 10_000));
      if (result.statusCode !== 201 || !result.body.includes('"ScheduleState":"Enabled"')) {
        throw new Error(`save: expected 201 and an Enabled schedule, got ${result.statusCode}: ${result.body.slice(0, 300)}`);
      }
    };
  };

  // The raw series puts the item a create stores (same attributes, as the repository builds it), once per ID.
  const raw = principalOf(9503);
  let rawId = 0;
  const rawOnce = async () => {
    rawId += 1;
    const timestamp = new Date().toISOString();
    const item = toTaskItem(raw.tenantId, {
      task: {
        ...taskBody(rawId, false),
        ID: rawId,
        IsEnabled: true,
        IsActive: true,
        Status: 'Scheduled',
        NextRunDateTime_utc: timestamp,
        ScheduleState: 'Enabled',
        Version: 1,
        CreatedDateTime_utc: timestamp,
        ModifiedDateTime_utc: timestamp,
        CreatedByUserID: 1,
        ModifiedByUserID: 1,
      },
    });
    const input = { TableName: rawTable.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' };
    return async () => {
      await rawTable.client.send(new PutCommand(input));
    };
  };

  const saves: Comparison[] = [];
  for (const withSecrets of [false, true]) {
    log(`scheduled tasks: ${options.warmIterations} warm saves (${withSecrets ? 'with' : 'without'} credentials) against raw PutItem`);
    const series = await interleave(saveOnce(principalOf(tenants.warm), withSecrets), rawOnce, options.warmIterations, options.warmupIterations);
    const handlerSummary = summarise(series.handler);
    const rawSummary = summarise(series.raw);
    saves.push({
      name: `scheduledTaskSave create${withSecrets ? ', 2 credentials sealed' : ''}`,
      handler: handlerSummary,
      raw: rawSummary,
      rawLabel: 'PutItem (the task item)',
      ratioP50: handlerSummary.p50 / rawSummary.p50,
      ratioP99: handlerSummary.p99 / rawSummary.p99,
      note: 'the handler also takes an ID (UpdateItem) and syncs the schedule (GetSchedule, CreateSchedule on the emulation): 4 round trips to 1',
    });
  }

  const saveCapacity = (await ctx.meter.measure(async () => (await saveOnce(principalOf(tenants.capacity), true)())())).capacity;

  const baselineImportMs = coldStart.baseline.medianImportMs;
  const cold = coldStart.functions
    .filter((fn) => fn.name.startsWith('scheduledTask'))
    .map((fn) => ({
      name: fn.name,
      medianMs: fn.medianMs,
      baselineMedianMs: fn.baselineMedianMs,
      ratio: fn.ratio,
      verdict: fn.verdict,
      importMs: fn.medianImportMs,
      invokeMs: fn.medianInvokeMs,
      bundleBytes: fn.bundle.bytes,
      response: fn.response,
    }));
  return { cipherColdStarts, cold, baselineImportMs, coldTarget: coldStart.target, saves, saveCapacity };
};

export const renderScheduledTasksSection = (section: ScheduledTasksSection): string => {
  const title = 'Scheduled tasks';
  return [
    `\n${title}\n${'='.repeat(title.length)}`,
    renderTable(
      ['Function', 'Cold ms p50', 'Baseline ms', 'Ratio', `<=${section.coldTarget}x`, 'Init ms', 'Baseline init', '1st call ms', 'Bundle KiB', 'Response'],
      section.cold.map((fn) => [
        fn.name,
        ms(fn.medianMs, 0),
        ms(fn.baselineMedianMs, 0),
        ratio(fn.ratio),
        fn.verdict,
        ms(fn.importMs, 1),
        ms(section.baselineImportMs, 1),
        ms(fn.invokeMs, 1),
        (fn.bundleBytes / 1024).toFixed(0),
        fn.response,
      ]),
    ),
    'Section 1 cold-starts the save with two credentials to seal. Init of the save against the get: what the scheduler client adds (the get loads neither it nor the Encryption SDK; the save loads the SDK only when it seals).',
    '',
    renderTable(
      ['Save cold start (fresh process)', 'runs', 'p50 ms', '1st call ms', 'Baseline ms', 'Ratio', `<=${section.coldTarget}x`],
      [
        ['without credentials (no Encryption SDK)', section.cipherColdStarts.withoutCredentials],
        ['with 2 credentials (loads the SDK, seals)', section.cipherColdStarts.withCredentials],
      ].map(([label, figures]) => {
        const row = figures as CipherColdStarts['withCredentials'];
        return [label as string, String(section.cipherColdStarts.runs), ms(row.medianMs, 0), ms(row.invokeMs, 0), ms(section.cipherColdStarts.baselineMedianMs, 0), ratio(row.ratio), row.ratio <= section.coldTarget ? 'PASS' : 'OVER'];
      }),
    ),
    '',
    renderTable(
      ['Warm (in process)', 'n', 'p50 ms', 'p99 ms', 'Raw call', 'raw p50', 'raw p99', 'p50 ratio'],
      section.saves.map((save) => [save.name, String(save.handler.n), ms(save.handler.p50), ms(save.handler.p99), save.rawLabel, ms(save.raw.p50), ms(save.raw.p99), ratio(save.ratioP50)]),
    ),
    section.saves[0]?.note ?? '',
    '',
    renderTable(
      ['Capacity of one save (create)', 'requests', 'RCU', 'WCU', 'by command'],
      [
        [
          'scheduledTaskSave handler',
          String(section.saveCapacity.requests),
          units(section.saveCapacity.readUnits),
          units(section.saveCapacity.writeUnits),
          Object.entries(section.saveCapacity.byCommand)
            .map(([command, counted]) => `${command.replace(/Command$/, '')} ${units(counted.units)}`)
            .join(', '),
        ],
      ],
    ),
  ].join('\n');
};
