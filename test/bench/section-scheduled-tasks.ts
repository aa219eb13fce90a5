// Benchmark section "scheduled tasks": cold starts of the save and get functions (measured by section 1 with the
// requests below, against the 1.3x target), where the save's init goes (its import against the get's, which loads
// no Encryption SDK and no scheduler client), the round trips of every operation, the warm save's and get's p50 and
// p99 against the raw calls each needs, measured in the same run (the save's on the local scheduler emulation), and
// the capacity one save consumes.
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, Handler } from 'aws-lambda';
import { ensureQueues } from '#infra/local/provision';
import { localSchedulerRoleArn, localScheduleGroupName } from '#infra/local/stack';
import type { Principal } from '#shared/auth/principal';
import { scheduleSyncQueue, taskRunsQueue, taskWorkQueue } from '#shared/events/queues';
import { schedulerEnvironment } from '#shared/operations/grants';
import { sequenceKey } from '#shared/data/sequence';
import { scheduledTaskGet, scheduledTaskSave } from '#shared/operations/scheduled-tasks';
import { latestRunsShown, runKey, taskKey, taskPartition, taskSequence, unsyncedKeys, unsyncedTasksIndex } from '#shared/scheduled-tasks/keys';
import { readRecurrence } from '#shared/scheduled-tasks/recurrence';
import { runReadFields } from '#shared/scheduled-tasks/fields';
import { createTaskRunRepository, toTaskItem } from '#shared/scheduled-tasks/repository';
import { createRunRecorder, createWorkPublisher } from '#shared/scheduled-tasks/runs';
import { scheduleRequestOf, schedulerSettingsFromEnvironment } from '#shared/scheduled-tasks/schedule-sync';
import { comparisonTable } from './section-warm';
import { outputFileName } from './bundles';
import type { CapacityTotals } from './capacity';
import { coldStart } from './cold-start';
import { functionBundling } from '#infra/constructs/operation-function';
import { commonFunctionEnvironment } from '#shared/operations/grants';
import { benchTenantIds, principalOf, type BenchContext } from './context';
import { lambdaContext, proxyEvent, type HttpRequest } from './events';
import { runTarget, type ColdSection } from './section-cold';
import { compare, httpCall, interleave, type Comparison } from './section-warm';
import { median, ms, ratio, renderTable, units } from './stats';

const tenants = { warm: benchTenantIds.scheduledTasksWarm, capacity: benchTenantIds.scheduledTasksCapacity, recorder: benchTenantIds.scheduledTasksRecorder } as const;

/**
 * What a bench task carries to seal: nothing, two short credentials (each one KMS Encrypt: crypto/secret-cipher.ts),
 * or a credential over 4 KiB (the Encryption SDK's message, its chunk loaded: the path every credential took before).
 */
type Credentials = 'none' | 'short' | 'long';

/** A task due every 15 minutes from a past instant; its credentials make the save seal (the cold path with the cipher). */
const taskBody = (run: number, kind: Credentials) => {
  const tokenSecret = kind === 'long' ? `ts-bench-${run}-${'x'.repeat(5_000)}` : `ts-bench-${run}`;
  return {
    Name: `Bench task ${run}`,
    TaskTypeID: 7,
    IsRecurringSchedule: true,
    Interval: 15,
    IntervalType: 1,
    TimeOfDay: '2026-01-01T00:00:00Z',
    ...(kind === 'none' ? {} : { AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', TokenKey: `tk-bench-${run}`, TokenSecret: tokenSecret } } }),
  };
};

/** Section 1's requests for the scheduled-task functions: a create with credentials, and a read of task 1. */
export const scheduledTaskColdRequests = (principal: Principal): Record<string, (run: number) => HttpRequest> => ({
  scheduledTaskSave: (run) => ({ principal, body: JSON.stringify(taskBody(run, 'short')) }),
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
  const saved = await handler(await proxyEvent(scheduledTaskSave, { principal: coldTenant, body: JSON.stringify(taskBody(0, 'short')) }), lambdaContext('scheduledTaskSave', 10_000));
  if (saved.statusCode !== 201) throw new Error(`seeding the cold task: expected 201, got ${saved.statusCode}: ${saved.body.slice(0, 300)}`);
};

/** Cold starts of the save with and without a credential to seal, each paired with a baseline (section 1's bundles). */
interface CipherColdStart {
  readonly medianMs: number;
  readonly ratio: number;
  readonly invokeMs: number;
}

export interface CipherColdStarts {
  readonly runs: number;
  readonly withCredentials: CipherColdStart;
  readonly withLongCredential: CipherColdStart;
  readonly withoutCredentials: CipherColdStart;
  readonly baselineMedianMs: number;
}

const runCipherColdStarts = async (ctx: BenchContext): Promise<CipherColdStarts> => {
  const bundleOf = (module: string) => join(ctx.workDir, 'bundles', module.replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '-'), runTarget, outputFileName(functionBundling));
  const runner = join(ctx.workDir, 'cold-runner.mjs');
  // The function's settings are this process's (the stack's in-process environment plus the save's grants).
  // No NODE_OPTIONS of the bench's own: the functions run without --enable-source-maps, as the construct deploys them.
  // The log level the stack deploys (INFO), as section 1 runs them.
  const { NODE_OPTIONS: _benchNodeOptions, POWERTOOLS_LOG_LEVEL: _benchPowertoolsLevel, ...inherited } = process.env as Record<string, string>;
  const env = { ...inherited, ...commonFunctionEnvironment() };
  const principal = principalOf(9504);
  const sample = async (withSecrets: Credentials | 'baseline', run: number) =>
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
  type Pair = { fn: number; invoke: number; baseline: number };
  const pairs: Record<Credentials, Pair[]> = { short: [], long: [], none: [] };
  const kinds: Credentials[] = ['short', 'long', 'none'];
  for (let run = 0; run <= ctx.options.coldRuns; run += 1) {
    // Each run in another order, so no kind always follows the same one.
    for (const withSecrets of kinds.map((_, index) => kinds[(index + run) % kinds.length] as Credentials)) {
      const baseline = await sample('baseline', run);
      const measured = await sample(withSecrets, run);
      // Run 0 is the warm-up (file cache), discarded as in section 1.
      if (run > 0) pairs[withSecrets].push({ fn: measured.totalMs, invoke: measured.invokeMs, baseline: baseline.totalMs });
    }
  }
  const summary = (list: Pair[]) => ({
    medianMs: median(list.map((pair) => pair.fn)),
    ratio: median(list.map((pair) => pair.fn / pair.baseline)),
    invokeMs: median(list.map((pair) => pair.invoke)),
  });
  return {
    runs: ctx.options.coldRuns,
    withCredentials: summary(pairs.short),
    withLongCredential: summary(pairs.long),
    withoutCredentials: summary(pairs.none),
    baselineMedianMs: median([...pairs.short, ...pairs.long, ...pairs.none].map((pair) => pair.baseline)),
  };
};

export interface ScheduledTasksSection {
  readonly cipherColdStarts: CipherColdStarts;
  readonly cold: readonly { name: string; medianMs: number; baselineMedianMs: number; ratio: number; verdict: string; importMs: number; invokeMs: number; bundleBytes: number; response: string }[];
  readonly baselineImportMs: number;
  readonly coldTarget: number;
  /** The warm save, get and run recorder against the raw calls each needs. */
  readonly warm: readonly Comparison[];
  readonly saveCapacity: CapacityTotals;
}

type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** What every scheduled-task operation makes now and what its consistency needs (test/bench/README.md says why). */
export const scheduledTaskRoundTrips = [
  { operation: 'save (create)', now: 'UpdateItem (ID) + PutItem + CreateSchedule + UpdateItem (state)', before: 5, calls: 4, needed: 4 },
  { operation: 'save (update)', now: 'GetItem + UpdateItem + GetSchedule + UpdateSchedule + UpdateItem (state)', before: 5, calls: 5, needed: 5 },
  { operation: 'get', now: 'Query (the task and its 20 latest runs)', before: 2, calls: 1, needed: 1 },
  { operation: 'run recorder', now: 'GetItem (projected) + TransactWriteItems + SendMessage + UpdateItem (published)', before: 4, calls: 4, needed: 4 },
  { operation: 'schedule sync (retry)', now: 'GetItem + GetSchedule + Create/UpdateSchedule + UpdateItem (state)', before: 4, calls: 4, needed: 4 },
] as const;

/** The target of a warm operation against the raw calls it needs (issue 16, section 2). */
export const roundTripTarget = 1.3;

const runsOfWarmTask = 20;

/**
 * The warm series: the save (create, with and without credentials) against the raw calls a create needs, and the
 * get against the raw Query it needs, interleaved in the same run (section-warm.ts `interleave`).
 */
export const runScheduledTaskWarm = async (ctx: BenchContext): Promise<Comparison[]> => {
  const { rawTable, options, log } = ctx;
  const handler = (await ctx.loadHandler(scheduledTaskSave.handler)) as unknown as HttpHandler;
  let run = 0;
  const saveOnce = (principal: Principal, withSecrets: boolean) => async () => {
    run += 1;
    const event = await proxyEvent(scheduledTaskSave, { principal, body: JSON.stringify(taskBody(run, withSecrets ? 'short' : 'none')) });
    return async () => {
      const result = await handler(event, lambdaContext(scheduledTaskSave.operationId, 10_000));
      if (result.statusCode !== 201 || !result.body.includes('"ScheduleState":"Enabled"')) {
        throw new Error(`save: expected 201 and an Enabled schedule, got ${result.statusCode}: ${result.body.slice(0, 300)}`);
      }
    };
  };

  // The raw series makes the calls a create needs, as plain SDK calls: the sequence's UpdateItem, the PutItem of the
  // item the repository builds (with its reconciler index keys), the CreateSchedule of its schedule (the same
  // request, on the scheduler emulation) and the UpdateItem that records the confirmed state.
  const raw = principalOf(9503);
  const scheduler = new SchedulerClient({});
  const settings = schedulerSettingsFromEnvironment();
  let rawId = 0;
  const rawOnce = async () => {
    rawId += 1;
    const id = rawId;
    const now = new Date();
    const timestamp = now.toISOString();
    const body = taskBody(id, 'none');
    const item = {
      ...toTaskItem(raw.tenantId, {
        task: {
          ...body,
          ID: id,
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
      }),
      ...unsyncedKeys(raw.tenantId, id, timestamp),
    };
    const recurrence = readRecurrence(body).recurrence;
    const request = recurrence && scheduleRequestOf({ tenantId: raw.tenantId, taskId: id, version: 1, recurrence, enabled: true }, settings, now);
    if (!request) throw new Error('raw series: no schedule for the bench task');
    return async () => {
      await rawTable.client.send(
        new UpdateCommand({
          TableName: rawTable.tableName,
          Key: sequenceKey(raw.tenantId, taskSequence),
          UpdateExpression: 'ADD #value :one',
          ExpressionAttributeNames: { '#value': 'value' },
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      await rawTable.client.send(new PutCommand({ TableName: rawTable.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
      await scheduler.send(new CreateScheduleCommand({ ...request, ClientToken: `raw-${raw.tenantId}-${id}` }));
      await rawTable.client.send(
        new UpdateCommand({
          TableName: rawTable.tableName,
          Key: taskKey(raw.tenantId, id),
          UpdateExpression: 'SET #state = :state REMOVE #indexPk, #indexSk',
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#state': 'ScheduleState', '#version': 'Version', '#indexPk': unsyncedTasksIndex.partitionKey, '#indexSk': unsyncedTasksIndex.sortKey },
          ExpressionAttributeValues: { ':state': 'Enabled', ':version': 1 },
        }),
      );
    };
  };

  const comparisons: Comparison[] = [];
  try {
    for (const withSecrets of [false, true]) {
      log(`scheduled tasks: ${options.warmIterations} warm saves (${withSecrets ? 'with' : 'without'} credentials) against the raw calls a create needs`);
      const series = await interleave(saveOnce(principalOf(tenants.warm), withSecrets), rawOnce, options.warmIterations, options.warmupIterations);
      comparisons.push(
        compare(
          `scheduledTaskSave create${withSecrets ? ', 2 credentials sealed' : ''}`,
          'UpdateItem + PutItem + CreateSchedule + UpdateItem',
          series,
          roundTripTarget,
          'the create makes the 4 calls it needs (was 5: GetSchedule before CreateSchedule); sealing 2 credentials adds 2 KMS Encrypt calls (the local KMS emulation, in parallel)',
        ),
      );
    }
  } finally {
    scheduler.destroy();
  }

  // The get reads task 1 of the warm tenant (a save above created it) with its latest runs: 20 run items beside it.
  const warm = principalOf(tenants.warm);
  const scheduledAt = Date.parse('2026-01-01T00:00:00Z');
  for (let index = 0; index < runsOfWarmTask; index += 1) {
    const scheduledTime = new Date(scheduledAt + index * 15 * 60_000);
    await rawTable.client.send(
      new PutCommand({
        TableName: rawTable.tableName,
        Item: { ...runKey(warm.tenantId, 1, scheduledTime), entity: 'TaskRun', ScheduledDateTime_utc: scheduledTime.toISOString(), RecordedDateTime_utc: scheduledTime.toISOString(), Outcome: 'Run', Version: 1 },
      }),
    );
  }
  const get = (await ctx.loadHandler(scheduledTaskGet.handler)) as unknown as Handler;
  const rawGet = async () => async () => {
    await rawTable.client.send(
      new QueryCommand({
        TableName: rawTable.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': taskPartition(warm.tenantId, 1) },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: latestRunsShown + 1,
      }),
    );
  };
  log(`scheduled tasks: ${options.warmIterations} warm gets against the raw Query of the task's partition`);
  const gets = await interleave(httpCall(get, scheduledTaskGet, () => ({ principal: warm, pathParameters: { id: '1' } }), 200), rawGet, options.warmIterations, options.warmupIterations);
  comparisons.push(compare('scheduledTaskGet (20 runs)', 'Query (task + 20 runs)', gets, roundTripTarget, 'one Query of the task partition (was a GetItem and a Query)'));
  comparisons.push(await runRecorderWarm(ctx));
  return comparisons;
};

/**
 * The run recorder (the task-runs consumer's work per record) in process, against its four calls made raw: one firing
 * per task, each due at the last quarter hour (a `Run`, recorded and published to a work queue of the SQS server).
 */
const runRecorderWarm = async (ctx: BenchContext): Promise<Comparison> => {
  const { rawTable, functionTable, options, log } = ctx;
  const tenant = principalOf(tenants.recorder).tenantId;
  const sqs = new SQSClient({});
  try {
    const work = await ensureQueues(sqs, taskWorkQueue);
    const recorder = createRunRecorder({ runs: createTaskRunRepository(functionTable), publishWork: createWorkPublisher(work.queueUrl, sqs) });
    const quarter = 15 * 60_000;
    const dueNow = () => new Date(Math.floor(Date.now() / quarter) * quarter);
    const count = 2 * (options.warmIterations + options.warmupIterations);
    const timestamp = new Date().toISOString();
    for (let taskId = 1; taskId <= count; taskId += 1) {
      const body = taskBody(taskId, 'none');
      const task = { ...body, ID: taskId, IsEnabled: true, IsActive: true, Status: 'Scheduled', ScheduleState: 'Enabled' as const, Version: 1, CreatedDateTime_utc: timestamp, ModifiedDateTime_utc: timestamp, CreatedByUserID: 1, ModifiedByUserID: 1 };
      await rawTable.client.send(new PutCommand({ TableName: rawTable.tableName, Item: toTaskItem(tenant, { task }) }));
    }
    let recorded = 0;
    const recordOnce = async () => {
      recorded += 1;
      const firing = { tenantId: tenant, taskId: recorded, version: 1, scheduledTime: dueNow() };
      return async () => {
        const outcome = await recorder.record(firing);
        if (outcome.outcome !== 'Recorded' || !outcome.published) throw new Error(`run recorder: expected a published run, got ${JSON.stringify(outcome)}`);
      };
    };
    // The raw series: the same four calls on the next task of the same tenant (the read, the two-item transaction,
    // the work message, the publication mark).
    const projection = {
      ProjectionExpression: runReadFields.map((_, index) => `#a${index}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(runReadFields.map((name, index) => [`#a${index}`, name])),
    };
    const rawOnce = async () => {
      recorded += 1;
      const taskId = recorded;
      const scheduledTime = dueNow();
      const at = scheduledTime.toISOString();
      return async () => {
        await rawTable.client.send(new GetCommand({ TableName: rawTable.tableName, Key: taskKey(tenant, taskId), ConsistentRead: true, ...projection }));
        await rawTable.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: rawTable.tableName, Item: { ...runKey(tenant, taskId, scheduledTime), entity: 'TaskRun', ScheduledDateTime_utc: at, RecordedDateTime_utc: at, Outcome: 'Run', Version: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } },
              { Update: { TableName: rawTable.tableName, Key: taskKey(tenant, taskId), UpdateExpression: 'SET LastRunDateTime_utc = :at', ConditionExpression: 'Version = :one', ExpressionAttributeValues: { ':at': at, ':one': 1 } } },
            ],
          }),
        );
        await sqs.send(new SendMessageCommand({ QueueUrl: work.queueUrl, MessageBody: JSON.stringify({ tenantId: tenant, taskId, scheduledTime: at }) }));
        await rawTable.client.send(new UpdateCommand({ TableName: rawTable.tableName, Key: runKey(tenant, taskId, scheduledTime), UpdateExpression: 'SET PublishedDateTime_utc = :at', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':at': at } }));
      };
    };
    log(`scheduled tasks: ${options.warmIterations} runs recorded in process against the raw calls a run needs`);
    const series = await interleave(recordOnce, rawOnce, options.warmIterations, options.warmupIterations);
    return compare('run recorder (one firing, published)', 'GetItem + TransactWriteItems + SendMessage + UpdateItem', series, roundTripTarget, 'the 4 calls a run needs; the raw series makes the same on other tasks');
  } finally {
    sqs.destroy();
  }
};

export const runScheduledTasksSection = async (ctx: BenchContext, coldStart: ColdSection): Promise<ScheduledTasksSection> => {
  const { options, log } = ctx;
  log(`scheduled tasks: ${options.coldRuns} cold starts of the save with and without a credential, each paired with a baseline`);
  const cipherColdStarts = await runCipherColdStarts(ctx);
  const warm = await runScheduledTaskWarm(ctx);
  const handler = (await ctx.loadHandler(scheduledTaskSave.handler)) as unknown as HttpHandler;
  const saveOnce = async (principal: Principal) => {
    const event = await proxyEvent(scheduledTaskSave, { principal, body: JSON.stringify(taskBody(0, 'short')) });
    const result = await handler(event, lambdaContext(scheduledTaskSave.operationId, 10_000));
    if (result.statusCode !== 201) throw new Error(`save: expected 201, got ${result.statusCode}: ${result.body.slice(0, 300)}`);
  };

  const saveCapacity = (await ctx.meter.measure(() => saveOnce(principalOf(tenants.capacity)))).capacity;

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
  return { cipherColdStarts, cold, baselineImportMs, coldTarget: coldStart.target, warm, saveCapacity };
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
    'Section 1 cold-starts the save with two credentials to seal. Init of the save against the get: what the scheduler client adds (the get loads neither it nor the Encryption SDK; the save loads the SDK only for a credential over 4 KiB).',
    '',
    renderTable(
      ['Save cold start (fresh process)', 'runs', 'p50 ms', '1st call ms', 'Baseline ms', 'Ratio', `<=${section.coldTarget}x`],
      [
        ['without credentials', section.cipherColdStarts.withoutCredentials],
        ['with 2 credentials (one KMS Encrypt each)', section.cipherColdStarts.withCredentials],
        ['with a credential over 4 KiB (loads the Encryption SDK)', section.cipherColdStarts.withLongCredential],
      ].map(([label, figures]) => {
        const row = figures as CipherColdStarts['withCredentials'];
        return [label as string, String(section.cipherColdStarts.runs), ms(row.medianMs, 0), ms(row.invokeMs, 0), ms(section.cipherColdStarts.baselineMedianMs, 0), ratio(row.ratio), row.ratio <= section.coldTarget ? 'PASS' : 'OVER'];
      }),
    ),
    '',
    renderTable(
      ['Round trips', 'before', 'now', 'needed', 'calls now'],
      scheduledTaskRoundTrips.map((row) => [row.operation, String(row.before), String(row.calls), String(row.needed), row.now]),
    ),
    '',
    comparisonTable(section.warm),
    ...section.warm.map((entry) => `${entry.name}: ${entry.note ?? ''}`),
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
