// Benchmark section 1: bundle size and cold start of every function (each manifest operation, the authorizer and
// the document-events consumer) against a baseline function that only creates a DynamoDB document client and
// reads one item. Cold-start samples alternate baseline / function, in a shuffled order per round, and each
// function's ratio is the median of its (function / preceding baseline) pairs, which cancels the machine's drift.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { functionBundling, functionRuntime, repositoryRoot } from '#infra/constructs/operation-function';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { libraryChunkAliases } from '../../infra/build/lazy-chunks.mjs';
import { nodeMajorOf } from '#infra/local/lambda-runtime';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { consumedQueueDefinitions, documentEventsQueue, queueDefinitions } from '#shared/events/queues';
import { operations, operationsById, type Operation } from '#shared/operations/index';
import { readStackSettings, settingsEnvironment, stackSettings, type StackSetting } from '#shared/operations/settings';
import { buildBundle, type BuiltBundle } from './bundles';
import { buildColdRunner, coldStart, type ColdSample } from './cold-start';
import { callSequence, coveredMs, startWaitRecorder } from './dependency-wait';
import { meanStepTimes, phasesOfProfile, type CpuProfile, type ProfiledPhases } from './cpu-profile';
import type { BenchContext } from './context';
import { authorizerEvent, benchQueueArn, proxyEvent, queuedMessage, signedWebhookBody, sqsEvent, type HttpRequest } from './events';
import { locationInput } from './seed';
import { seededRandom } from '#infra/local/seeded-random';
import { commonFunctionEnvironment } from '#shared/operations/grants';
import { median, shuffle } from './stats';
import { paymentColdEnvironment, paymentColdRequests, paymentFloorEvents } from './section-payments';
import { scheduledTaskColdEnvironment, scheduledTaskColdRequests } from './section-scheduled-tasks';
import { receiptColdRequests } from './section-delivery-receipts';

/** A cold-start message per consumed queue (besides document events), for a record that does not exist. */
const coldConsumerMessages = new Map<string, (tenantId: number, run: number) => unknown>([
  ['payments', (tenantId, run) => ({ tenantId, refundId: 900_000 + run })],
  ['taskRuns', (tenantId, run) => ({ tenantId, taskId: 900_000 + run, version: 1, scheduledTime: new Date(Date.UTC(2026, 0, 1, 0, run)).toISOString() })],
  ['scheduleSync', (tenantId, run) => ({ tenantId, taskId: 900_000 + run, version: 1 })],
  ['receiptCompletions', (tenantId, run) => ({ tenantId, receiptId: 900_000 + run, completionId: `00000000-0000-4000-8000-${String(run).padStart(12, '0')}` })],
]);

/**
 * What Lambda sets under Tracing.ACTIVE (the construct's setting), so a cold start pays for tracing as on AWS: the
 * SDK clients are traced (shared/observability/tracing.ts) and segments go to a UDP port nobody reads. The baseline
 * creates its own client and is never traced. BENCH_TRACE_ENABLED=false runs the functions with
 * POWERTOOLS_TRACE_ENABLED=false instead (the stack setting that turns tracing off), to measure what tracing costs.
 */
export const activeTracingEnvironment = (): Record<string, string> => ({
  AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
  AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  LAMBDA_TASK_ROOT: repositoryRoot,
  _X_AMZN_TRACE_ID: 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1',
  ...(process.env.BENCH_TRACE_ENABLED === 'false' ? { POWERTOOLS_TRACE_ENABLED: 'false' } : {}),
});

/** The Node.js the cold starts run on (cold-start.ts functionNode: the functions' Runtime, nodejs24.x). */
export const runTarget = `node${nodeMajorOf(functionRuntime.name)}`;
export const coldStartTarget = 1.3;
/** Bundle bytes against the baseline's (issue 6: zod classic alone was 443 KiB of a 900 KiB bundle). */
export const bundleTarget = 1.6;
const authorizerModule = 'functions/authorizer.ts';
const baselineModule = 'test/bench/baseline-handler.ts';
const referenceModule = 'test/bench/reference-manifest.ts';
const compiledReferenceModule = 'test/bench/reference-compiled.ts';
const floorModule = 'test/bench/reference-calls.ts';
/** The baseline's handler, built without the aliases that make the SDK's on-demand imports chunks (baseline-sdk-inlined.ts). */
const sdkInlinedModule = 'test/bench/baseline-sdk-inlined.ts';
const sdkInlinedBundling = (): BundlingOptions => {
  const chunkAliases = new Set(libraryChunkAliases());
  const aliases = functionBundling.esbuildArgs?.['--alias'];
  const kept = (Array.isArray(aliases) ? aliases : typeof aliases === 'string' ? [aliases] : []).filter((alias) => !chunkAliases.has(alias));
  return { ...functionBundling, esbuildArgs: { ...functionBundling.esbuildArgs, '--alias': kept } };
};
/**
 * Peers: how other people's functions are written, bundled with this service's settings (issue 23). Every function
 * is to start faster than both.
 */
export const peerModules = [
  { name: 'peer: typescript-demo', module: 'test/bench/peer-typescript-demo.ts' },
  { name: 'peer: middy + zod', module: 'test/bench/peer-middy-zod.ts' },
] as const;
/** Functions of the service, as opposed to the references and peers measured beside them. */
export const isServiceFunction = (fn: { readonly kind: ColdFunction['kind'] }) => fn.kind !== 'reference' && fn.kind !== 'peer';
/** The document the get-document cold start reads (seeded by the bench before this section). */
export const coldDocumentId = 'cold-start-document';

interface ColdFunction {
  readonly name: string;
  readonly kind: 'operation' | 'authorizer' | 'consumer' | 'reference' | 'peer';
  readonly module: string;
  readonly timeoutMs: number;
  /** A floor (reference-calls.ts): the function whose calls it makes, with nothing else. */
  readonly floorOf?: string;
  /** The baseline built with the SDK's on-demand imports inlined (baseline-sdk-inlined.ts). */
  readonly sdkInlined?: true;
  event(run: number): Promise<unknown>;
}

export interface BundleFigures {
  readonly module: string;
  /** The artifact Lambda gets (construct settings, target node24). */
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly sourceMapBytes: number;
  /** Whether the bundle built for this machine's Node (and cold-started here) is byte-identical to it. */
  readonly sameAsRunBundle: boolean;
  /** The largest origins of the bundle's bytes. */
  readonly topOrigins: readonly { readonly origin: string; readonly bytes: number }[];
}

export interface ColdFigures {
  readonly name: string;
  readonly kind: ColdFunction['kind'];
  readonly module: string;
  /** A floor (reference-calls.ts): the function whose calls it makes, with nothing else. */
  readonly floorOf?: string;
  /** The baseline built with the SDK's on-demand imports inlined (baseline-sdk-inlined.ts). */
  readonly sdkInlined?: true;
  readonly bundle: BundleFigures;
  readonly runs: number;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly medianBootMs: number;
  readonly medianImportMs: number;
  readonly medianInvokeMs: number;
  readonly baselineMedianMs: number;
  /** Median of the per-pair ratios (function sample / the baseline sample just before it). */
  readonly ratio: number;
  /** Against the target; references and peers (not functions of the service) have none. */
  readonly verdict: 'PASS' | 'OVER' | '-';
  /** This function's ratio over each peer's (both against the same run's baseline): below 1.00x is faster than the peer. */
  readonly peerRatios: readonly { readonly peer: string; readonly ratio: number }[];
  /** Below every peer (PASS), or not; '-' for references and peers. */
  readonly peerVerdict: 'PASS' | 'OVER' | '-';
  /** Bundle bytes / the baseline's bundle bytes (both the node24 artifacts Lambda gets). */
  readonly bundleRatio: number;
  readonly bundleVerdict: 'PASS' | 'OVER' | '-';
  readonly response: string;
  readonly samplesMs: readonly number[];
  /** `--cpu-prof`: the mean CPU milliseconds by step of its profiled cold starts (absent without the flag). */
  readonly profile?: ProfiledPhases;
  /**
   * The time the local servers (DynamoDB Local, the SQS server, the KMS and Scheduler emulations) spent answering one
   * cold start, median of the recorded runs (dependency-wait.ts): not the function's own time.
   */
  readonly medianWaitMs: number;
  /**
   * The ratio less the wait beyond the baseline's, in baseline cold starts: (wait - the baseline's wait) / the
   * baseline's cold start taken from the ratio. An estimate of what the function itself adds; the target is on `ratio`.
   */
  readonly ratioLessWait: number;
  /** The calls of its first recorded cold start, in order ("A + B" at once, "A, B" one after the other). */
  readonly calls: string;
}

export interface ColdSection {
  readonly target: number;
  readonly bundleTarget: number;
  readonly lambdaTarget: string;
  readonly runTarget: string;
  readonly baseline: BundleFigures & {
    readonly medianMs: number;
    readonly medianImportMs: number;
    readonly medianInvokeMs: number;
    readonly runs: number;
    readonly profile?: ProfiledPhases;
    /** The baseline's one GetItem, as the local table answered it (median of the recorded runs). */
    readonly medianWaitMs: number;
    readonly calls: string;
  };
  /** Cold starts of each function (and of the baseline) recorded through the wait recorder, apart from the timed rounds. */
  readonly waitRuns: number;
  /** `--cpu-prof`: the profiled cold starts per function, and where their profiles are. */
  readonly cpuProfiles?: { readonly runs: number; readonly directory: string };
  readonly functions: readonly ColdFigures[];
}

const pathParametersOf = (operation: Operation, values: Record<string, string> = {}) =>
  Object.fromEntries([...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name as string, values[name as string] ?? '1']));

export const runColdSection = async (ctx: BenchContext): Promise<ColdSection> => {
  const { tenants, log } = ctx;
  const outDir = join(ctx.workDir, 'bundles');
  const lambdaTarget = functionBundling.target ?? 'node24';

  const runner = await buildColdRunner(join(ctx.workDir, 'cold-runner.mjs'), runTarget);

  const consumer = documentEventsQueue.consumer;
  const principal = tenants.cold;
  const http = (operationId: string, request: (run: number) => HttpRequest) => {
    const operation = operationsById[operationId as keyof typeof operationsById];
    return {
      name: operation.operationId,
      kind: 'operation' as const,
      module: operation.handler,
      timeoutMs: 10_000,
      event: (run: number) => proxyEvent(operation, request(run)),
    };
  };
  const json = (value: unknown) => JSON.stringify(value);
  const coldEvent = (prefix: string, run: number) => ({
    type: 'document.uploaded',
    userId: 'cold-user',
    organisationId: principal.organisationId ?? 'org_cold',
    data: { object: { id: `${prefix}-${run}-${Date.now()}`, name: 'cold.pdf' } },
  });
  const specific: Record<string, (run: number) => HttpRequest> = {
    providerWebhook: (run) => ({ body: signedWebhookBody(coldEvent('cold-webhook', run), localWebhookSecret, Math.floor(Date.now() / 1000)) }),
    documentAnalyserGetDocument: () => ({ principal, pathParameters: { documentId: coldDocumentId } }),
    tenantLocationGet: () => ({ principal, pathParameters: { id: '1' } }),
    tenantLocationGetAll: () => ({ principal }),
    tenantLocationGetByName: () => ({ principal, body: json({ SearchString: locationInput(1, 'Cold').Name, IsExactMatch: true }) }),
    tenantLocationGetDefaultAddress: () => ({ principal, pathParameters: { id: '1' }, query: 'addressType=Billing' }),
    tenantLocationSave: (run) => ({ principal, body: json({ ...locationInput(1000 + run, `Cold save ${Date.now()}`), IsDefault: false }) }),
    tenantLocationSearch: () => ({ principal, body: json({ MaxResults: 50 }) }),
    tenantLocationDelete: () => ({ principal, pathParameters: { id: String(ctx.options.smallTenantLocations) } }),
    ...paymentColdRequests(principal),
    ...scheduledTaskColdRequests(principal),
    ...receiptColdRequests(principal),
  };
  const allFunctions: ColdFunction[] = [
    ...operations.map((operation) =>
      http(
        operation.operationId,
        specific[operation.operationId] ??
          // Not implemented yet: the normal stack, then 501 (a required body is sent as `{}`).
          (() => ({
            principal,
            pathParameters: pathParametersOf(operation),
            ...(operation.requestBody?.required ? { body: '{}' } : {}),
          })),
      ),
    ),
    {
      name: 'authorizer',
      kind: 'authorizer',
      module: authorizerModule,
      timeoutMs: 10_000,
      event: () => authorizerEvent(operationsById.tenantLocationGet, { principal, pathParameters: { id: '1' } }),
    },
    {
      name: consumer.name,
      kind: 'consumer',
      module: consumer.handler,
      timeoutMs: consumer.timeoutSeconds * 1000,
      event: async (run) => {
        const event = coldEvent('cold-consumer', run);
        const message = queuedMessage(event, Math.floor(Date.now() / 1000), new Date().toISOString());
        return sqsEvent([JSON.stringify(message)], benchQueueArn(documentEventsQueue.localQueueName));
      },
    },
    // Every other consumer, first call on a well-formed message naming a record the cold tenant does not have (each
    // looks it up and finds nothing to do): the cold path of parsing, the clients and one read.
    ...consumedQueueDefinitions
      .filter((definition) => definition.name !== documentEventsQueue.name)
      .map((definition) => {
        const message = coldConsumerMessages.get(definition.name);
        if (!message) throw new Error(`section 1 has no cold-start message for the ${definition.name} consumer`);
        return {
          name: definition.consumer.name,
          kind: 'consumer' as const,
          module: definition.consumer.handler,
          timeoutMs: definition.consumer.timeoutSeconds * 1000,
          event: async (run: number) => sqsEvent([JSON.stringify(message(principal.tenantId, run))], benchQueueArn(definition.localQueueName)),
        };
      }),
    ...peerModules.map(({ name, module }) => ({
      name,
      kind: 'peer' as const,
      module,
      timeoutMs: 10_000,
      // A product read by id, with the product in the body (the demo's put-product checks it; both peers validate it).
      event: () =>
        proxyEvent(operationsById.tenantLocationGet, {
          principal,
          pathParameters: { id: 'p-1' },
          body: json({ id: 'p-1', name: 'Cold product', price: 12.5 }),
        }),
    })),
    // The SDK-only floors of the payment writes: their calls alone (reference-calls.ts).
    ...Object.entries(paymentFloorEvents(ctx)).map(([floorOf, event]) => ({
      name: `floor: ${floorOf}'s calls`,
      kind: 'reference' as const,
      module: floorModule,
      timeoutMs: 10_000,
      floorOf,
      event,
    })),
    {
      name: 'reference: baseline with the SDK inlined',
      kind: 'reference',
      module: sdkInlinedModule,
      sdkInlined: true,
      timeoutMs: 10_000,
      event: async () => ({}),
    },
    {
      name: 'reference: zod manifest',
      kind: 'reference',
      module: referenceModule,
      timeoutMs: 10_000,
      event: async () => ({}),
    },
    {
      name: 'reference: compiled manifest',
      kind: 'reference',
      module: compiledReferenceModule,
      timeoutMs: 10_000,
      event: async () => ({}),
    },
  ];
  const wanted = ctx.options.coldFunctions;
  const unknown = (wanted ?? []).filter((name) => !allFunctions.some((fn) => fn.name === name));
  if (unknown.length > 0) throw new Error(`--functions: no function named ${unknown.join(', ')} (names: ${allFunctions.map((fn) => fn.name).join(', ')})`);
  /** `--functions`: the named ones, their floors and both peers (the peers' columns need them). */
  const functions = wanted
    ? allFunctions.filter((fn) => fn.kind === 'peer' || wanted.includes(fn.name) || (fn.floorOf !== undefined && wanted.includes(fn.floorOf)))
    : allFunctions;

  // Bundles: the construct's settings as they are (target node24: the sizes Lambda gets), and the same settings
  // with the cold starts' Node as target (the same major: one build).
  const modules = [...new Set([...functions.map((fn) => fn.module), baselineModule])];
  const bundles = new Map<string, { lambda: BuiltBundle; run: BuiltBundle }>();
  for (const module of modules) {
    const slug = module.replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '-');
    const entry = join(repositoryRoot, module);
    const bundling = module === sdkInlinedModule ? sdkInlinedBundling() : functionBundling;
    const lambda = await buildBundle(entry, join(outDir, slug, lambdaTarget), bundling, { absWorkingDir: repositoryRoot });
    const run =
      runTarget === lambdaTarget
        ? lambda
        : await buildBundle(entry, join(outDir, slug, runTarget), bundling, { target: runTarget, absWorkingDir: repositoryRoot });
    bundles.set(module, { lambda, run });
  }
  log(`built ${modules.length} bundles (${lambdaTarget} for sizes, ${runTarget} to run here)`);
  const figuresOf = (module: string): BundleFigures => {
    const built = bundles.get(module);
    if (!built) throw new Error(`no bundle for ${module}`);
    return {
      module,
      bytes: built.lambda.bytes,
      gzipBytes: built.lambda.gzipBytes,
      sourceMapBytes: built.lambda.sourceMapBytes,
      sameAsRunBundle: built.lambda.content.equals(built.run.content),
      topOrigins: built.lambda.composition.slice(0, 8),
    };
  };

  const { stack } = ctx;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TABLE_NAME: stack.tableName,
    // Every queue's URL, as the grants give them (only the consumers' own grants are used by each).
    ...Object.fromEntries(queueDefinitions.map((definition) => [definition.urlVariable, stack.queueUrls[definition.logicalName] ?? ''])),
    ...paymentColdEnvironment(stack.queueUrls),
    ...scheduledTaskColdEnvironment(),
    // Every stack setting at its default, as a stack deployed without context gives them (a function checks the ones
    // it declares when it loads: shared/operations/environment.ts).
    ...settingsEnvironment(Object.keys(stackSettings) as StackSetting[], readStackSettings(() => undefined)),
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_DEFAULT_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    AWS_ENDPOINT_URL_DYNAMODB: stack.dynamodbEndpoint,
    AWS_ENDPOINT_URL_SQS: stack.sqsEndpoint,
    AUTH_HS256_SECRET: process.env.AUTH_HS256_SECRET ?? '',
    WEBHOOK_SECRETS: process.env.WEBHOOK_SECRETS ?? localWebhookSecret,
    // The service name and log level the stack deploys (INFO: each request writes its access line, as on AWS).
    ...commonFunctionEnvironment(),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...activeTracingEnvironment(),
  };
  const sample = async (module: string, name: string, timeoutMs: number, event: unknown, sampleEnv: Readonly<Record<string, string>> = env): Promise<ColdSample> => {
    const built = bundles.get(module);
    if (!built) throw new Error(`no bundle for ${module}`);
    return coldStart({ runner, bundle: built.run.file, functionName: name, event, env: sampleEnv, functionTimeoutMs: timeoutMs });
  };
  const baselineSample = () => sample(baselineModule, 'baseline', 10_000, {});

  /**
   * `--cpu-prof`: cold starts under Node's CPU profiler (100 us sampling), kept in .local/bench/cpu-prof/<function>/
   * for DevTools, each split into init and first call by step (cpu-profile.ts). Not part of the timed rounds: the
   * profiler slows what it watches.
   */
  const profileDirectory = join(ctx.workDir, 'cpu-prof');
  const profiled = async (module: string, name: string, timeoutMs: number, event: (run: number) => Promise<unknown>): Promise<ProfiledPhases> => {
    const built = bundles.get(module);
    if (!built) throw new Error(`no bundle for ${module}`);
    const bundleDirectory = pathToFileURL(dirname(built.run.file)).href;
    const runs: ProfiledPhases[] = [];
    for (let run = 1; run <= ctx.options.cpuProfileRuns; run += 1) {
      const directory = join(profileDirectory, name.replace(/[^A-Za-z0-9]+/g, '-'), String(run));
      rmSync(directory, { recursive: true, force: true });
      mkdirSync(directory, { recursive: true });
      const result = await coldStart({
        runner,
        bundle: built.run.file,
        functionName: name,
        event: await event(100 + run),
        env,
        functionTimeoutMs: timeoutMs,
        nodeArguments: ['--cpu-prof', `--cpu-prof-dir=${directory}`, '--cpu-prof-interval=100'],
      });
      const file = readdirSync(directory).find((entry) => entry.endsWith('.cpuprofile'));
      if (!file || !result.marksUs) throw new Error(`${name}: no CPU profile in ${directory}`);
      const profile = JSON.parse(readFileSync(join(directory, file), 'utf8')) as CpuProfile;
      runs.push(phasesOfProfile(profile, result.marksUs, { isBundle: (url) => url.startsWith(bundleDirectory), repositoryRoot }));
    }
    return { init: meanStepTimes(runs.map((run) => run.init)), firstCall: meanStepTimes(runs.map((run) => run.firstCall)) };
  };

  // A warm-up round (discarded): file cache, DynamoDB Local's first requests of each kind.
  for (const fn of functions) {
    await baselineSample();
    await sample(fn.module, fn.name, fn.timeoutMs, await fn.event(0));
  }
  log(`cold starts: warm-up round done; ${ctx.options.coldRuns} measured rounds of ${functions.length} functions, each paired with a baseline`);

  const random = seededRandom(20260601);
  const samples = new Map<string, { fn: ColdSample; baseline: ColdSample }[]>();
  const baselineSamples: ColdSample[] = [];
  for (let round = 1; round <= ctx.options.coldRuns; round += 1) {
    for (const fn of shuffle(functions, random)) {
      const event = await fn.event(round);
      const baseline = await baselineSample();
      const measured = await sample(fn.module, fn.name, fn.timeoutMs, event);
      baselineSamples.push(baseline);
      const list = samples.get(fn.name) ?? [];
      list.push({ fn: measured, baseline });
      samples.set(fn.name, list);
    }
    log(`cold starts: round ${round}/${ctx.options.coldRuns} done`);
  }

  const measured = functions.map((fn) => {
    const pairs = samples.get(fn.name) ?? [];
    const totals = pairs.map((pair) => pair.fn.totalMs);
    const ratio = median(pairs.map((pair) => pair.fn.totalMs / pair.baseline.totalMs));
    const bundle = figuresOf(fn.module);
    const bundleRatio = bundle.bytes / figuresOf(baselineModule).bytes;
    return {
      name: fn.name,
      kind: fn.kind,
      module: fn.module,
      ...(fn.floorOf === undefined ? {} : { floorOf: fn.floorOf }),
      ...(fn.sdkInlined ? { sdkInlined: true as const } : {}),
      bundle,
      bundleRatio,
      bundleVerdict: !isServiceFunction(fn) ? ('-' as const) : bundleRatio <= bundleTarget ? ('PASS' as const) : ('OVER' as const),
      runs: pairs.length,
      medianMs: median(totals),
      minMs: Math.min(...totals),
      maxMs: Math.max(...totals),
      medianBootMs: median(pairs.map((pair) => pair.fn.bootMs)),
      medianImportMs: median(pairs.map((pair) => pair.fn.importMs)),
      medianInvokeMs: median(pairs.map((pair) => pair.fn.invokeMs)),
      baselineMedianMs: median(pairs.map((pair) => pair.baseline.totalMs)),
      ratio,
      verdict: !isServiceFunction(fn) ? ('-' as const) : ratio <= coldStartTarget ? ('PASS' as const) : ('OVER' as const),
      response: [...new Set(pairs.map((pair) => pair.fn.summary))].join(', '),
      samplesMs: totals,
    };
  });
  // How long the local servers took to answer each function's cold start: a few more cold starts through the wait
  // recorder (its proxies add a hop, so none of these is a timed sample).
  const waitRuns = Math.min(3, ctx.options.coldRuns);
  const waits = new Map<string, number[]>();
  const calls = new Map<string, string>();
  const recorder = await startWaitRecorder(env);
  try {
    const waited = async (module: string, name: string, timeoutMs: number, event: unknown) => {
      recorder.take();
      await sample(module, name, timeoutMs, event, recorder.env);
      const intervals = recorder.take();
      waits.set(name, [...(waits.get(name) ?? []), coveredMs(intervals)]);
      if (!calls.has(name)) calls.set(name, callSequence(intervals));
    };
    for (let run = 1; run <= waitRuns; run += 1) {
      await waited(baselineModule, 'baseline', 10_000, {});
      for (const fn of functions) await waited(fn.module, fn.name, fn.timeoutMs, await fn.event(200 + run));
    }
  } finally {
    await recorder.close();
  }
  const medianWait = (name: string) => median(waits.get(name) ?? []);
  log(`cold starts: ${waitRuns} cold start(s) of each function through the wait recorder`);

  const profiles = new Map<string, ProfiledPhases>();
  if (ctx.options.cpuProfileRuns > 0) {
    rmSync(profileDirectory, { recursive: true, force: true });
    profiles.set('baseline', await profiled(baselineModule, 'baseline', 10_000, async () => ({})));
    for (const fn of functions) profiles.set(fn.name, await profiled(fn.module, fn.name, fn.timeoutMs, (run) => fn.event(run)));
    log(`cold starts: ${ctx.options.cpuProfileRuns} profiled cold start(s) of each function in ${profileDirectory}`);
  }
  const peers = measured.filter((fn) => fn.kind === 'peer');
  const figures = measured.map((fn): ColdFigures => {
    const peerRatios = isServiceFunction(fn) ? peers.map((peer) => ({ peer: peer.name, ratio: fn.ratio / peer.ratio })) : [];
    const profile = profiles.get(fn.name);
    const medianWaitMs = medianWait(fn.name);
    return {
      ...fn,
      ...(profile ? { profile } : {}),
      medianWaitMs,
      calls: calls.get(fn.name) ?? '',
      ratioLessWait: fn.ratio - (medianWaitMs - medianWait('baseline')) / fn.baselineMedianMs,
      peerRatios,
      peerVerdict: !isServiceFunction(fn) ? '-' : peerRatios.every((entry) => entry.ratio < 1) ? 'PASS' : 'OVER',
    };
  });
  return {
    target: coldStartTarget,
    bundleTarget,
    lambdaTarget,
    runTarget,
    baseline: {
      ...figuresOf(baselineModule),
      runs: baselineSamples.length,
      medianMs: median(baselineSamples.map((entry) => entry.totalMs)),
      medianImportMs: median(baselineSamples.map((entry) => entry.importMs)),
      medianInvokeMs: median(baselineSamples.map((entry) => entry.invokeMs)),
      ...(profiles.has('baseline') ? { profile: profiles.get('baseline') } : {}),
      medianWaitMs: medianWait('baseline'),
      calls: calls.get('baseline') ?? '',
    },
    waitRuns,
    ...(ctx.options.cpuProfileRuns > 0 ? { cpuProfiles: { runs: ctx.options.cpuProfileRuns, directory: profileDirectory } } : {}),
    functions: figures,
  };
};
