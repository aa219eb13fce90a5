// Benchmark: the program behind `npm run bench` (entry: run.ts). Starts its own DynamoDB Local (in memory) and SQS
// server with the local stack's modules, seeds data, runs the five sections, prints the report and writes it as
// JSON. The stack is stopped whatever happens (error, Ctrl-C); the JVM runs under the local stack's watchdog,
// which kills it even if this process dies without cleaning up.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { repositoryRoot } from '#infra/constructs/operation-function';
import { cachedHandlerLoader, importFromRepoRoot } from '#infra/local/lambda-runtime';
import { startLocalStack, type LocalStack } from '#infra/local/stack';
import { createDocumentClient, defaultTable, type TableContext } from '#shared/data/client';
import { createDocumentRepository } from '#shared/document-events/repository';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { createDocumentEventsService } from '#shared/document-events/service';
import { createTenantLocationRepository } from '#shared/tenant-locations/repository';
import { benchUsage, parseBenchArguments } from './arguments';
import { baselineKey } from './baseline-handler';
import { attachCapacityMeter } from './capacity';
import { benchTenantIds, fullOptions, principalOf, quickOptions, type BenchContext, type Tenants } from './context';
import { functionNode, killColdStartChildren } from './cold-start';
import { queuedMessage } from './events';
import {
  renderCapacitySection,
  renderColdSection,
  renderConsumerSection,
  renderHeader,
  renderLatencySection,
  renderSummary,
  renderWebhookSection,
  type BenchReport,
  type SectionOutcome,
} from './report';
import { runCapacityPhase } from './section-capacity';
import { coldDocumentId, isServiceFunction, runColdSection, type ColdSection } from './section-cold';
import { runConsumerDirect, runConsumerThroughSqs } from './section-consumer';
import { renderPaymentsSection, runPaymentsSection, seedColdPayment } from './section-payments';
import { prepareScheduledTasks, renderScheduledTasksSection, runScheduledTasksSection } from './section-scheduled-tasks';
import { renderTaskRunsSection, runTaskRunsSection } from './section-task-runs';
import { renderReceiptSearchSection, runReceiptSearchSection } from './section-receipt-search';
import { renderDeliveryReceiptsSection, runDeliveryReceiptsSection, seedColdReceipt } from './section-delivery-receipts';
import { renderReceiptCompletionSection, runReceiptCompletionSection, seedColdStock } from './section-receipt-completion';
import { getTarget, runLocationLatency, runWebhookLatency, webhookTarget } from './section-warm';
import { batchWriteAll, copyLocations, range, seedThroughService, syntheticLocation, tenantItems } from './seed';
import { ratio } from './stats';

const tenantIds = benchTenantIds;

const seedTenants = async (ctx: BenchContext, coldOnly = false) => {
  const { rawTable, tenants, options, log } = ctx;
  await rawTable.client.send(new PutCommand({ TableName: rawTable.tableName, Item: { ...baselineKey, entity: 'BenchBaseline', note: 'read by the cold-start baseline' } }));
  log('seeding: cold-start tenant and the 20-location tenant through the tenant-location service');
  await seedThroughService(rawTable, tenants.cold, options.smallTenantLocations, 'Cold');
  if (!coldOnly) await seedReadTenants(ctx);
  await seedColdDocument(ctx);
  await seedColdPayment(ctx);
  await prepareScheduledTasks(ctx, ctx.tenants.cold);
  // The receipt first, so it is receipt 1, which the get and add-inventory cold starts read and change; the stock's
  // receipt (completed, so read-only) is then receipt 2. The other way round, add inventory was measured answering
  // 409 read-only.
  await seedColdReceipt(ctx);
  await seedColdStock(ctx);
};

/** The tenants sections 2 and 3 read and write. */
const seedReadTenants = async (ctx: BenchContext) => {
  const { rawTable, tenants, options, log } = ctx;
  await seedThroughService(rawTable, tenants.small, options.smallTenantLocations, 'Main');
  log(`seeding: ${options.largeTenantLocations.toLocaleString('en')} locations through the service`);
  await seedThroughService(rawTable, tenants.large, options.largeTenantLocations, 'Main', 6, (done) => log(`  ${done} saved`));
  // The write tenants are copies (same records, other TenantID) so Save's capacity is measured on the same data
  // without changing the tenants the reads measure.
  const repository = createTenantLocationRepository(rawTable);
  for (const [source, target] of [
    [tenants.small, tenants.smallWrites],
    [tenants.large, tenants.largeWrites],
  ] as const) {
    const locations = await repository.list(source.tenantId, { includeInactive: true });
    await batchWriteAll(rawTable, tenantItems(copyLocations(locations, target.tenantId)));
  }
};

/** The document the get-document cold start reads. */
const seedColdDocument = async (ctx: BenchContext) => {
  const { rawTable, tenants } = ctx;
  const documents = createDocumentEventsService({ store: createDocumentRepository(rawTable) });
  await documents.apply(
    queuedMessage(
      { type: 'document.processed', userId: 'cold-user', organisationId: tenants.cold.organisationId ?? '', data: { object: { id: coldDocumentId, pages: 3 } } },
      Math.floor(Date.now() / 1000),
      new Date().toISOString(),
    ),
  );
};

const seedOtherTenants = async (ctx: BenchContext) => {
  const { rawTable, options, log } = ctx;
  const perTenant = Math.ceil(options.otherTenantLocations / options.otherTenants);
  const timestamp = new Date().toISOString();
  const locations = range(0, options.otherTenants - 1).flatMap((offset) =>
    range(1, perTenant).map((id) => syntheticLocation(tenantIds.firstOther + offset, id, 'Other', timestamp)),
  );
  const items = tenantItems(locations.slice(0, options.otherTenantLocations));
  log(`seeding: ${options.otherTenantLocations.toLocaleString('en')} locations of ${options.otherTenants} other tenants (${items.length.toLocaleString('en')} items, BatchWriteItem)`);
  await batchWriteAll(rawTable, items, 6, (written) => log(`  ${written.toLocaleString('en')} items written`));
};

export const main = async (argv: readonly string[]): Promise<number> => {
  const onlySections = new Map<string, { title: string; run: (ctx: BenchContext) => Promise<unknown>; render: (value: never) => string }>([
    ['payments', { title: 'payments: warm operations against their raw calls', run: (ctx) => runPaymentsSection(ctx, undefined), render: renderPaymentsSection }],
  ]);
  const parsed = parseBenchArguments(argv, [...onlySections.keys()]);
  if (parsed.kind === 'help') {
    process.stdout.write(benchUsage([...onlySections.keys()]));
    return 0;
  }
  if (parsed.kind === 'refused') {
    process.stderr.write(`${parsed.reason}\n${benchUsage([...onlySections.keys()])}`);
    return 2;
  }
  const { arguments: chosen } = parsed;
  const options = {
    ...(chosen.quick ? quickOptions : fullOptions),
    ...(chosen.cpuProfile ? { cpuProfileRuns: 3 } : {}),
    ...(chosen.functions ? { coldFunctions: chosen.functions } : {}),
  };
  /** Only section 1 (bundles and cold starts): the figures to iterate on when changing what functions load. */
  const coldOnly = chosen.coldOnly;
  /** Only one area section (`--only payments`): seeding and that section, without section 1 (its cold rows stay empty). */
  const only = chosen.only;
  const startedAt = new Date();
  const started = performance.now();
  const loadAverageAtStart = loadavg();
  const log = (line: string) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
  /** The report goes to stdout a section at a time, so a failure later in the run keeps what was measured before it. */
  const print = (text: string) => new Promise<void>((resolve) => process.stdout.write(`${text}\n`, () => resolve()));
  process.env.WEBHOOK_SECRETS ??= localWebhookSecret;

  let stack: LocalStack | undefined;
  let stopping: Promise<void> | undefined;
  /** Stops what runs, once, however many paths (signal, error, success) ask for it. */
  const cleanup = () =>
    (stopping ??= (async () => {
      killColdStartChildren();
      if (stack) {
        log('stopping DynamoDB Local and the SQS server');
        await stack.stop();
      }
    })());
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = signal;
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const outcomes: SectionOutcome[] = [];
  const figures: Record<string, unknown> = {};
  /**
   * Runs one section: prints its tables as soon as it ends, or reports it FAILED (with the error's first lines) and
   * lets the next one run. A signal is not a section failure: it stops the run.
   */
  const section = async <T>(name: string, run: () => Promise<T>, render: (value: T) => string): Promise<T | undefined> => {
    log(`section ${name}`);
    const sectionStarted = performance.now();
    const seconds = () => (performance.now() - sectionStarted) / 1000;
    try {
      const value = await run();
      figures[name] = value;
      outcomes.push({ name, status: 'ok', seconds: seconds() });
      await print(render(value));
      return value;
    } catch (error) {
      if (interrupted) throw error;
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      outcomes.push({ name, status: 'FAILED', seconds: seconds(), detail: message.split('\n')[0] });
      await print(`\n${name}: FAILED after ${seconds().toFixed(0)} s\n${message.split('\n').slice(0, 8).map((line) => `  ${line}`).join('\n')}`);
      return undefined;
    }
  };
  const skip = (name: string, detail: string) => outcomes.push({ name, status: 'skipped', seconds: 0, detail });

  try {
    const machine = { node: process.versions.node, functionsNode: functionNode().version, cpus: cpus().length, platform: `${process.platform}/${process.arch}`, loadAverageAtStart };
    await print(renderHeader({ mode: options.quick ? 'quick' : 'full', startedAt: startedAt.toISOString(), machine: { ...machine, loadAverageAtEnd: loadAverageAtStart } }));
    log(`${options.quick ? 'quick' : 'full'} run; starting DynamoDB Local (in memory) and the SQS server on free ports`);
    stack = await startLocalStack({
      port: 0,
      inMemory: true,
      // The bench drives the consumer itself; no event source mapping polls the stack's queue.
      consumers: [],
      // DynamoDB Local's start-up banner and the (unused) gateway's lines are not progress.
      log: (line) => {
        if (!line.startsWith('[dynamodb-local]') && !line.startsWith('[gateway]')) log(line);
      },
    });
    log(`DynamoDB Local ${stack.dynamodbEndpoint}, SQS ${stack.sqsEndpoint}`);

    const functionTable = defaultTable();
    const rawTable: TableContext = { client: createDocumentClient(new DynamoDBClient({})), tableName: stack.tableName };
    const workDir = join(repositoryRoot, '.local', 'bench');
    mkdirSync(workDir, { recursive: true });
    const tenants: Tenants = {
      cold: principalOf(tenantIds.cold),
      small: principalOf(tenantIds.small),
      large: principalOf(tenantIds.large),
      smallWrites: principalOf(tenantIds.smallWrites),
      largeWrites: principalOf(tenantIds.largeWrites),
    };
    const ctx: BenchContext = {
      options,
      stack,
      functionTable,
      rawTable,
      meter: attachCapacityMeter(functionTable.client),
      tenants,
      workDir,
      loadHandler: cachedHandlerLoader(importFromRepoRoot),
      log,
    };

    // Seeding is the ground every section stands on: if it fails, nothing after it measures anything.
    await seedTenants(ctx, coldOnly || only !== undefined);
    const onlySection = only === undefined ? undefined : onlySections.get(only);
    if (onlySection) {
      await section(onlySection.title, () => onlySection.run(ctx), onlySection.render as (value: unknown) => string);
      const failedOnly = outcomes.filter((outcome) => outcome.status === 'FAILED').length;
      log(`--only ${only}: ${failedOnly} section(s) failed`);
      return failedOnly === 0 ? 0 : 1;
    }
    const targets: BenchReport['targets'][number][] = [];
    const coldStart = await section('1. bundles and cold starts', () => runColdSection(ctx), renderColdSection);
    if (coldStart) targets.push(...coldTargetsOf(coldStart));
    /** Sections that report their functions' cold starts read section 1's figures. */
    const withCold = async <T>(name: string, run: (cold: ColdSection) => Promise<T>, render: (value: T) => string) => {
      if (coldStart) return section(name, () => run(coldStart), render);
      skip(name, 'needs section 1, which failed');
      return undefined;
    };

    if (coldOnly) {
      skip('2 to 5 and the area sections', '--cold-only');
    } else {
      const locationLatency = await section('2. warm latency of Get and Search', () => runLocationLatency(ctx), renderLatencySection);
      const getComparison = locationLatency?.[0];
      if (getComparison) {
        targets.push({ name: 'TenantLocation Get p50 / raw GetItem p50', value: ratio(getComparison.ratioP50), target: `<= ${getTarget}x`, verdict: getComparison.verdict ?? 'n/a' });
      }
      const capacity = await section(
        '3. consumed capacity with and without other tenants',
        async () => {
          const withoutOthers = await runCapacityPhase(ctx, 'without', 0);
          await seedOtherTenants(ctx);
          const withOthers = await runCapacityPhase(ctx, 'with', options.otherTenantLocations);
          return [withoutOthers, withOthers] as const;
        },
        renderCapacitySection,
      );
      if (capacity) {
        const [withoutOthers, withOthers] = capacity;
        const capacitySame = withoutOthers.rows.every((row, index) => {
          const other = withOthers.rows[index];
          return other !== undefined && other.figure.readUnits === row.figure.readUnits && other.figure.writeUnits === row.figure.writeUnits;
        });
        targets.push({ name: "Other tenants' data changes a tenant's capacity", value: capacitySame ? 'no (identical units)' : 'yes', target: 'no', verdict: capacitySame ? 'PASS' : 'FAIL' });
      }
      const webhook = await section('4. webhook', () => runWebhookLatency(ctx), renderWebhookSection);
      if (webhook) {
        targets.push({ name: 'Webhook p50 / raw SendMessage p50', value: ratio(webhook.comparison.ratioP50), target: `<= ${webhookTarget}x`, verdict: webhook.comparison.verdict ?? 'n/a' });
      }
      const consumer = await section(
        '5. document-events consumer',
        async () => ({ direct: await runConsumerDirect(ctx), throughSqs: await runConsumerThroughSqs(ctx) }),
        renderConsumerSection,
      );
      if (consumer) {
        const { direct, throughSqs } = consumer;
        targets.push({
          name: 'Consumer: in-order state, no event lost',
          value: `direct ${direct.check.ok ? 'ok' : 'FAILED'}, through SQS ${throughSqs.check.ok ? 'ok' : 'FAILED'}`,
          target: 'all documents',
          verdict: direct.check.ok && throughSqs.check.ok ? 'PASS' : 'FAIL',
        });
      }
      const taskRuns = await section('task runs: 5,000 messages with 10 % duplicates', () => runTaskRunsSection(ctx), renderTaskRunsSection);
      if (taskRuns) {
        targets.push({
          name: 'Task runs: none lost or doubled, one work message each',
          value: `${taskRuns.check.recorded}/${taskRuns.distinctRuns} runs, ${taskRuns.check.workMessages} work messages; ${Math.round(taskRuns.messagesPerSecond)} messages/s (${ratio(taskRuns.ratio)} raw PutItem/s)`,
          target: 'all runs once',
          verdict: taskRuns.check.ok ? 'PASS' : 'FAIL',
        });
      }
      const payments = await withCold('payments: cold starts, warm operations against their raw calls, capacity', (cold) => runPaymentsSection(ctx, cold), renderPaymentsSection);
      for (const { comparison } of payments?.operations ?? []) {
        targets.push({ name: `${comparison.name} p50 / raw calls p50`, value: ratio(comparison.ratioP50), target: `<= ${comparison.target}x`, verdict: comparison.verdict ?? 'n/a' });
      }
      await withCold('scheduled tasks: cold starts, warm save, capacity', (cold) => runScheduledTasksSection(ctx, cold), renderScheduledTasksSection);
      await withCold('receipt search: RCU of pages 1 and 5', (cold) => runReceiptSearchSection(ctx, cold), renderReceiptSearchSection);
      await withCold('receipt completion: 10, 100 and 1,000 lines', (cold) => runReceiptCompletionSection(ctx, cold), renderReceiptCompletionSection);
      await withCold('delivery receipts: cold starts, warm Get', (cold) => runDeliveryReceiptsSection(ctx, cold), renderDeliveryReceiptsSection);
    }

    await cleanup();
    const failed = outcomes.filter((outcome) => outcome.status === 'FAILED');
    const totalSeconds = (performance.now() - started) / 1000;
    const report = { startedAt: startedAt.toISOString(), totalSeconds, mode: options.quick ? ('quick' as const) : ('full' as const), machine: { ...machine, loadAverageAtEnd: loadavg() }, targets };
    const reportFile = join(repositoryRoot, '.local', 'bench-report.json');
    writeFileSync(reportFile, `${JSON.stringify({ ...report, sections: outcomes, figures }, null, 2)}\n`);
    await print(renderSummary(report, outcomes));
    log(`report written to ${reportFile}; total ${totalSeconds.toFixed(0)} s; ${failed.length} section(s) failed`);
    // The program is broken if a section failed: the exit code says so (CI runs the quick bench for this).
    return failed.length === 0 ? 0 : 1;
  } catch (error) {
    // A signal also stops what the sections were waiting for (child processes, esbuild): not a failure to report.
    if (interrupted) {
      await cleanup();
      return interrupted === 'SIGINT' ? 130 : 143;
    }
    throw error;
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
};

/** Section 1's two targets: every function's cold start and bundle against the baseline. */
const coldTargetsOf = (coldStart: ColdSection): BenchReport['targets'][number][] => {
  const measuredFunctions = coldStart.functions.filter(isServiceFunction);
  const overPeers = measuredFunctions.filter((fn) => fn.peerVerdict === 'OVER');
  const over = measuredFunctions.filter((fn) => fn.verdict === 'OVER');
  const overBundle = measuredFunctions.filter((fn) => fn.bundleVerdict === 'OVER');
  const worst = [...measuredFunctions].sort((a, b) => b.ratio - a.ratio)[0];
  const worstBundle = [...measuredFunctions].sort((a, b) => b.bundleRatio - a.bundleRatio)[0];
  return [
    {
      name: 'Cold start / baseline, per function',
      value: `${measuredFunctions.length - over.length}/${measuredFunctions.length} within; worst ${worst ? `${worst.name} ${ratio(worst.ratio)}` : 'n/a'}`,
      target: `<= ${coldStart.target}x`,
      verdict: over.length === 0 ? 'PASS' : `OVER (${over.length} of ${measuredFunctions.length}; see section 1)`,
    },
    {
      name: 'Bundle bytes / baseline bytes, per function',
      value: `${measuredFunctions.length - overBundle.length}/${measuredFunctions.length} within; worst ${worstBundle ? `${worstBundle.name} ${ratio(worstBundle.bundleRatio)}` : 'n/a'}`,
      target: `<= ${coldStart.bundleTarget}x`,
      verdict: overBundle.length === 0 ? 'PASS' : `OVER (${overBundle.length} of ${measuredFunctions.length}; see section 1)`,
    },
    {
      name: 'Cold start below every peer, per function',
      value: `${measuredFunctions.length - overPeers.length}/${measuredFunctions.length} below both`,
      target: '< 1.00x of each peer',
      verdict: overPeers.length === 0 ? 'PASS' : `OVER (${overPeers.length} of ${measuredFunctions.length}; see section 1)`,
    },
  ];
};
