// Benchmark: the report, as plain-text tables (stdout) and as JSON (.local/bench-report.json).
import type { CapacityPhase } from './section-capacity';
import type { ColdSection } from './section-cold';
import { idleStep, type ProfiledPhases, type StepTimes } from './cpu-profile';
import type { ConsumerFigures } from './section-consumer';
import { comparisonTable, type Comparison } from './section-warm';
import { bytes, ms, ratio, renderTable, units } from './stats';

export interface BenchReport {
  readonly startedAt: string;
  readonly totalSeconds: number;
  readonly mode: 'full' | 'quick';
  readonly machine: {
    readonly node: string;
    /** The Node.js the cold starts ran on (the functions' Runtime). */
    readonly functionsNode: string;
    readonly cpus: number;
    readonly platform: string;
    readonly loadAverageAtStart: readonly number[];
    readonly loadAverageAtEnd: readonly number[];
  };
  readonly coldStart: ColdSection;
  /** Sections 2 to 5: absent in a `--cold-only` run. */
  readonly others?: {
    readonly locationLatency: readonly Comparison[];
    readonly capacity: readonly CapacityPhase[];
    readonly webhook: { readonly comparison: Comparison; readonly messageBytes: number };
    readonly consumer: { readonly direct: ConsumerFigures; readonly throughSqs: ConsumerFigures & { readonly deadLetters: number } };
  };
  readonly targets: readonly { readonly name: string; readonly value: string; readonly target: string; readonly verdict: string }[];
}

const heading = (title: string) => `\n${title}\n${'='.repeat(title.length)}`;

const coldTable = (cold: ColdSection): string => {
  const peerNames = cold.functions.filter((fn) => fn.kind === 'peer').map((fn) => fn.name);
  const rows = cold.functions.map((fn) => [
    fn.name,
    bytes(fn.bundle.bytes),
    bytes(fn.bundle.gzipBytes),
    ratio(fn.bundleRatio),
    fn.bundleVerdict,
    ms(fn.medianMs, 0),
    `${ms(fn.minMs, 0)}-${ms(fn.maxMs, 0)}`,
    ms(fn.medianImportMs, 0),
    ms(fn.medianInvokeMs, 0),
    ms(fn.baselineMedianMs, 0),
    ratio(fn.ratio),
    fn.verdict,
    ...peerNames.map((peer) => {
      const entry = fn.peerRatios.find((candidate) => candidate.peer === peer);
      return entry ? ratio(entry.ratio) : '-';
    }),
    fn.peerVerdict,
    ms(fn.medianWaitMs, 1),
    ratio(fn.ratioLessWait),
    fn.response,
  ]);
  return renderTable(
    [
      'Function', 'Bundle', 'gzip', 'Bundle ratio', `<=${cold.bundleTarget}x`, 'Cold ms p50', 'min-max', 'init ms', '1st call ms', 'Baseline ms', 'Ratio', `<=${cold.target}x`,
      ...peerNames.map((peer) => `vs ${peer.replace(/^peer: /, '')}`), '<peers', 'Wait ms', 'Ratio less wait', 'Response',
    ],
    rows,
  );
};

/** CPU milliseconds: every step but the idle one (waiting is shown in its own row, never summed as CPU). */
const sumOf = (times: StepTimes) => Object.entries(times).reduce((total, [step, value]) => (step === idleStep ? total : total + value), 0);
const topSteps = (times: StepTimes, count: number) =>
  Object.entries(times)
    .filter(([step]) => step !== idleStep)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([step, value]) => `${step} ${ms(value, 1)}`)
    .join(', ');

/** `--cpu-prof`: CPU ms by step, per function, and the mean over the service's functions against the baseline. */
const profileTables = (cold: ColdSection): string => {
  const rows = [{ name: 'baseline', profile: cold.baseline.profile }, ...cold.functions.map((fn) => ({ name: fn.name, profile: fn.profile }))];
  const perFunction = renderTable(
    ['Function', 'init CPU ms', 'Largest init steps (ms)', '1st call CPU ms', 'Largest 1st-call steps (ms)'],
    rows.map(({ name, profile }) =>
      profile ? [name, ms(sumOf(profile.init), 1), topSteps(profile.init, 5), ms(sumOf(profile.firstCall), 1), topSteps(profile.firstCall, 4)] : [name, '-', '-', '-', '-'],
    ),
  );
  const service = cold.functions.filter((fn) => fn.kind !== 'reference' && fn.kind !== 'peer' && fn.profile);
  const mean = (phase: keyof ProfiledPhases) => {
    const total: StepTimes = {};
    for (const fn of service) for (const [step, value] of Object.entries(fn.profile?.[phase] ?? {})) total[step] = (total[step] ?? 0) + value / service.length;
    return total;
  };
  const init = mean('init');
  const firstCall = mean('firstCall');
  const steps = [...new Set([...Object.keys(init), ...Object.keys(firstCall), ...Object.keys(cold.baseline.profile?.init ?? {})])].sort(
    (a, b) => (init[b] ?? 0) + (firstCall[b] ?? 0) - ((init[a] ?? 0) + (firstCall[a] ?? 0)),
  );
  const byStep = renderTable(
    ['Step', `init ms, mean of ${service.length} functions`, '1st call ms, mean', 'baseline init ms', 'baseline 1st call ms'],
    [
      ...steps.map((step) => [step, ms(init[step] ?? 0, 1), ms(firstCall[step] ?? 0, 1), ms(cold.baseline.profile?.init[step] ?? 0, 1), ms(cold.baseline.profile?.firstCall[step] ?? 0, 1)]),
      ['total CPU (without idle)', ms(sumOf(init), 1), ms(sumOf(firstCall), 1), ms(sumOf(cold.baseline.profile?.init ?? {}), 1), ms(sumOf(cold.baseline.profile?.firstCall ?? {}), 1)],
    ],
  );
  return [
    `CPU profiles (${cold.cpuProfiles?.runs ?? 0} cold starts per function under node --cpu-prof, 100 us sampling, mean; in ${cold.cpuProfiles?.directory ?? ''}).`,
    'A sample counts for the module of its own frame or of its nearest caller in the bundle (source-mapped); the profiler slows what it watches, so read shares, not totals:',
    perFunction,
    'By step, the service functions against the baseline:',
    byStep,
  ].join('\n');
};

const capacityTable = (phases: readonly CapacityPhase[]): string => {
  const [without, withOthers] = phases;
  if (!without || !withOthers) return '(capacity not measured)';
  const rows = without.rows.map((row, index) => {
    const other = withOthers.rows[index];
    const same =
      other !== undefined &&
      other.operation === row.operation &&
      other.figure.readUnits === row.figure.readUnits &&
      other.figure.writeUnits === row.figure.writeUnits;
    return [
      row.operation,
      row.tenantLocations.toLocaleString('en'),
      units(row.figure.readUnits),
      units(row.figure.writeUnits),
      other ? units(other.figure.readUnits) : 'n/a',
      other ? units(other.figure.writeUnits) : 'n/a',
      same ? 'same' : 'DIFFERENT',
      String(row.figure.requests),
      `${row.figure.commands}${row.figure.stable && (other?.figure.stable ?? true) ? '' : ' (varied between repetitions)'}`,
    ];
  });
  return renderTable(
    [
      'Operation',
      'Tenant locs',
      'RCU',
      'WCU',
      `RCU +${withOthers.otherTenantLocations.toLocaleString('en')} others`,
      'WCU +others',
      'Others change it?',
      'Requests',
      'Requests: units (DynamoDB Local)',
    ],
    rows,
  );
};

const consumerTable = (runs: readonly ConsumerFigures[]): string =>
  renderTable(
    ['Mode', 'Messages', 'Distinct', 'Dups', 'Docs', 'Wall s', 'Events/s', 'WCU/event', 'RCU/event', 'Failed records', 'Check'],
    runs.map((run) => [
      run.mode,
      run.messages.toLocaleString('en'),
      run.distinctEvents.toLocaleString('en'),
      run.duplicates.toLocaleString('en'),
      run.documents.toLocaleString('en'),
      (run.wallMs / 1000).toFixed(1),
      run.eventsPerSecond.toFixed(0),
      run.writeUnitsPerEvent.toFixed(2),
      run.readUnitsPerEvent.toFixed(2),
      String(run.failedRecords),
      run.check.ok ? 'PASS' : 'FAIL',
    ]),
  );

const checkLines = (run: ConsumerFigures): string[] => [
  `  ${run.mode}: ${run.check.documentsInOrderState}/${run.check.documents} documents in their in-order state; ` +
    `${run.check.eventsRecorded}/${run.check.distinctEvents} distinct events in the histories; ` +
    `${run.check.lostEvents} lost, ${run.check.unexpectedEvents} unexpected -> ${run.check.ok ? 'PASS' : 'FAIL'}`,
  ...run.check.mismatches.map((line) => `    mismatch: ${line}`),
];

/** The run's first lines: what ran where, printed before any section. */
export const renderHeader = (report: Pick<BenchReport, 'mode' | 'startedAt' | 'machine'>): string =>
  [
    `Benchmark report (${report.mode} run, ${report.startedAt}; Node ${report.machine.node} (functions: Node ${report.machine.functionsNode}), ${report.machine.cpus} CPUs, ` +
      `load ${report.machine.loadAverageAtStart.map((value) => value.toFixed(2)).join(' ')} at start)`,
    'Every ratio compares two figures measured in this run; absolute numbers are this machine\'s, not Lambda\'s.',
    'Each section prints its tables as soon as it ends; a failed section is reported as FAILED and the others still run.',
  ].join('\n');

/**
 * The floors (test/bench/reference-calls.ts): a function's calls alone against the baseline, and what the function
 * adds beyond them (its ratio less the floor's, in baseline cold starts and in milliseconds of the baseline's p50).
 */
export const floorLines = (cold: ColdSection): string[] => {
  const floors = cold.functions.filter((fn) => fn.floorOf !== undefined);
  if (floors.length === 0) return [];
  return [
    `  "floor: <function>'s calls" (${floors[0]?.module}) makes that function's cold-start calls with the items it writes and nothing else (the baseline's client, ` +
      'no middy, validation, logger or tracing): what those calls cost beyond the baseline\'s one GetItem. Information only: the target is on the ratio.',
    ...floors.map((floor) => {
      const fn = cold.functions.find((candidate) => candidate.name === floor.floorOf);
      const beyond = fn === undefined ? '' : `; ${fn.name} ${fn.ratio.toFixed(2)}x, so ${(fn.ratio - floor.ratio).toFixed(2)}x (about ${ms((fn.ratio - floor.ratio) * cold.baseline.medianMs, 0)} ms) beyond its calls`;
      return `    ${floor.name}: ${floor.ratio.toFixed(2)}x of the baseline (wait ${ms(floor.medianWaitMs, 1)} ms${fn === undefined ? '' : ` against the function's ${ms(fn.medianWaitMs, 1)}`})${beyond}`;
    }),
  ];
};

export const renderColdSection = (cold: ColdSection): string => {
  const lines: string[] = [];
  lines.push(heading('1. Bundle size and cold start (fresh node process: import the bundle, serve the first event)'));
  lines.push(
    `Bundles: infra/constructs/operation-function.ts functionBundling (ESM, minified, target ${cold.lambdaTarget}); sizes are of that ` +
      `artifact (index.mjs; gzip level 6). Cold starts ran the same settings built for ${cold.runTarget} ` +
      `(${cold.functions.every((fn) => fn.bundle.sameAsRunBundle) && cold.baseline.sameAsRunBundle ? 'byte-identical to the ' + cold.lambdaTarget + ' bundles' : 'not byte-identical to the ' + cold.lambdaTarget + ' bundles'}), without NODE_OPTIONS=--enable-source-maps as on Lambda (the maps are beside the template, for npm run trace).`,
  );
  lines.push(
    `Baseline (document client + one GetItem): ${bytes(cold.baseline.bytes)} (gzip ${bytes(cold.baseline.gzipBytes)}), cold start ` +
      `p50 ${ms(cold.baseline.medianMs, 0)} ms (init ${ms(cold.baseline.medianImportMs, 0)} ms, first call ${ms(cold.baseline.medianInvokeMs, 0)} ms) over ${cold.baseline.runs} runs.`,
  );
  lines.push(
    `Ratio = median over ${cold.functions[0]?.runs ?? 0} runs of (function cold start / the baseline cold start run just before it). Target <= ${cold.target}x. ` +
      `Bundle ratio = bundle bytes / the baseline's bytes. Target <= ${cold.bundleTarget}x.`,
  );
  lines.push(coldTable(cold));
  const over = cold.functions.filter((fn) => fn.verdict === 'OVER').map((fn) => fn.name);
  if (over.length > 0) lines.push(`  Over ${cold.target}x: ${over.join(', ')}`);
  const overBundle = cold.functions.filter((fn) => fn.bundleVerdict === 'OVER').map((fn) => fn.name);
  if (overBundle.length > 0) lines.push(`  Bundle over ${cold.bundleTarget}x: ${overBundle.join(', ')}`);
  // A cold start that answered a refusal measured an error path, not the operation: say so (the seeding is wrong).
  const refused = cold.functions.filter((fn) => /^HTTP [45]/.test(fn.response)).map((fn) => `${fn.name} (${fn.response})`);
  if (refused.length > 0) lines.push(`  Measured on an error path (check the bench's seeding or request): ${refused.join(', ')}`);
  const peerOver = cold.functions.filter((fn) => fn.peerVerdict === 'OVER').map((fn) => fn.name);
  lines.push(
    `  "vs <peer>" = the function's ratio / the peer's ratio (both against the same baselines): below 1.00x starts faster than that peer. ` +
      (peerOver.length > 0 ? `Not below both peers: ${peerOver.join(', ')}` : 'Every function is below both peers.'),
  );
  const serviceFunctions = cold.functions.filter((fn) => fn.verdict !== '-');
  const withinLessWait = serviceFunctions.filter((fn) => fn.ratioLessWait <= cold.target).length;
  lines.push(
    `  "Wait ms" = how long the local servers took to answer the cold start (DynamoDB Local, the SQS server, the KMS and Scheduler emulations; ` +
      `median of ${cold.waitRuns} more cold start(s) through a timing proxy, test/bench/dependency-wait.ts); the baseline's one GetItem: ${ms(cold.baseline.medianWaitMs, 1)} ms. ` +
      `"Ratio less wait" = the ratio less (wait - the baseline's wait) / the baseline's cold start: an estimate of what the function itself adds, ` +
      `${withinLessWait}/${serviceFunctions.length} within ${cold.target}x. Information only: the target is on the ratio.`,
  );
  lines.push(`  The calls of one cold start (its first recorded run; "A + B" in flight at once, "A, B" one after the other): baseline ${cold.baseline.calls || 'none'}`);
  for (const fn of cold.functions.filter((candidate) => candidate.kind !== 'reference' || candidate.floorOf !== undefined)) lines.push(`    ${fn.name}: ${fn.calls || 'none'}`);
  lines.push(...floorLines(cold));
  for (const reference of cold.functions.filter((fn) => fn.kind === 'reference' && fn.floorOf === undefined)) {
    if (reference.sdkInlined) {
      lines.push(
        `  "${reference.name}" is the baseline's handler bundled without the chunks of the SDK's on-demand imports (the credential providers past the environment's, ` +
          `the event-stream codec), as every function was bundled before them: ${bytes(reference.bundle.bytes)} against ${bytes(cold.baseline.bytes)}, cold start ` +
          `${reference.ratio.toFixed(2)}x of the baseline (init ${ms(reference.medianImportMs, 0)} ms vs ${ms(cold.baseline.medianImportMs, 0)} ms): what the chunks save every function.`,
      );
      continue;
    }
    lines.push(
      `  "${reference.name}" is not a function: ${reference.module} loads only that manifest (no SDK); its init ` +
        `(${ms(reference.medianImportMs, 0)} ms vs the baseline's ${ms(cold.baseline.medianImportMs, 0)} ms, bundle ${bytes(reference.bundle.bytes)}) is what it costs.`,
    );
  }
  if (cold.cpuProfiles) lines.push(profileTables(cold));
  const shared = new Map<string, string[]>();
  for (const fn of cold.functions) shared.set(fn.module, [...(shared.get(fn.module) ?? []), fn.name]);
  for (const [module, names] of shared) if (names.length > 1) lines.push(`  ${module} is one asset shared by ${names.length} functions: ${names.join(', ')}`);
  lines.push('Where the bytes come from (largest origins of each distinct bundle, minified bytes):');
  const distinct = new Map([...cold.functions.map((fn) => [fn.module, fn.bundle] as const), [cold.baseline.module, cold.baseline] as const]);
  lines.push(
    renderTable(
      ['Bundle', 'Size', 'Largest origins'],
      [...distinct.values()].map((bundle) => [
        bundle.module,
        bytes(bundle.bytes),
        bundle.topOrigins.slice(0, 6).map((entry) => `${entry.origin} ${bytes(entry.bytes)}`).join(', '),
      ]),
    ),
  );
  return lines.join('\n');
};

export const renderLatencySection = (locationLatency: readonly Comparison[]): string =>
  [
    heading('2. Warm latency: TenantLocation Get and Search against raw DynamoDB calls (interleaved)'),
    comparisonTable(locationLatency),
    ...locationLatency.filter((entry) => entry.note).map((entry) => `  ${entry.name}: ${entry.note}`),
  ].join('\n');

export const renderCapacitySection = (capacity: readonly CapacityPhase[]): string =>
  [
    heading('3. Consumed capacity per operation (ReturnConsumedCapacity TOTAL, per request)'),
    capacityTable(capacity),
    '  Units as DynamoDB Local reports them (its model of DynamoDB\'s rules: 4 KB read units, halved for eventually consistent reads,\n' +
      '  1 KB write units plus index writes, transactions doubled; approximate, see test/bench/README.md). Saves write to a copy of each\n' +
      '  tenant, so both phases read identical tenants.',
  ].join('\n');

export const renderWebhookSection = (webhook: { readonly comparison: Comparison; readonly messageBytes: number }): string =>
  [
    heading('4. Webhook: verify + validate + enqueue, against a raw SendMessage of the same size (interleaved)'),
    comparisonTable([webhook.comparison]),
    `  Message size: ${webhook.messageBytes} bytes. ${webhook.comparison.note ?? ''}`,
  ].join('\n');

export const renderConsumerSection = ({ direct, throughSqs }: { readonly direct: ConsumerFigures; readonly throughSqs: ConsumerFigures & { readonly deadLetters: number } }): string =>
  [
    heading('5. Document-events consumer'),
    `batchSize ${direct.batchSize}, maximumConcurrency ${direct.maximumConcurrency} (shared/events/queues.ts); events/s counts every delivered message, duplicates included.`,
    consumerTable([direct, throughSqs]),
    'Check (state = distinct events applied in order with shared/document-events/state.ts applyEvent; history = every distinct event once):',
    ...checkLines(direct),
    ...checkLines(throughSqs),
    `  Direct run: ${direct.invocations} invocations, ${direct.cancelledTransactions} cancelled transactions (duplicates and state races, retried by the repository; ` +
      `the SDK reports no capacity for them). Through SQS: ${throughSqs.invocations} invocations, ${throughSqs.deadLetters} dead letters.`,
  ].join('\n');

export interface SectionOutcome {
  readonly name: string;
  readonly status: 'ok' | 'FAILED' | 'skipped';
  readonly seconds: number;
  readonly detail?: string;
}

/** The closing tables: every target measured, and how each section ended. */
export const renderSummary = (report: Pick<BenchReport, 'targets' | 'totalSeconds' | 'machine'>, sections: readonly SectionOutcome[]): string =>
  [
    heading('Targets'),
    renderTable(['Target', 'Measured', 'Limit', 'Verdict'], report.targets.map((target) => [target.name, target.value, target.target, target.verdict])),
    heading('Sections'),
    renderTable(
      ['Section', 'Result', 'Seconds', 'Detail'],
      sections.map((section) => [section.name, section.status, section.seconds.toFixed(0), section.detail ?? '']),
    ),
    `Total ${report.totalSeconds.toFixed(0)} s; load ${report.machine.loadAverageAtEnd.map((value) => value.toFixed(2)).join(' ')} at end.`,
  ].join('\n');
