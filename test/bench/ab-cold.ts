// Benchmark tool: one function built from two checkouts (before and after a change), cold-started alternately against
// the same local stack and the same seeded table, for a change of a few milliseconds that section 1's ratios cannot
// resolve from one run to the next on a shared machine. Unlike `paired-cold.ts` (tenantLocationGet against a stub
// that answers `{}`), every call reaches DynamoDB Local and the operation does its real work: a search reads 20
// locations, a save creates one, a payment is recorded. Each sample is a fresh process of the functions' Node that
// imports the bundle and serves one event (cold-runner.ts), with what Lambda sets under active tracing; the order of
// A and B alternates from round to round. Prints the medians of both and the median of the per-round B / A ratios.
//
//   npx tsx test/bench/ab-cold.ts <checkout A> <checkout B> <function[,function...]> [rounds]   (30 by default)
//
// A checkout is a folder with this repository's layout and its node_modules (e.g. `git worktree add ../before HEAD~1`
// and a link to this node_modules). Both are bundled with this checkout's `functionBundling`: a change to the bundling
// settings themselves is not what this compares. Functions: the tenant-location operations and paymentPost, each
// against a tenant of its own seeded with 20 locations (so a save's new locations never lengthen another's search).
// A and B must answer alike (the same statuses), or the tool stops: a ratio of different work means nothing.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { startLocalStack } from '#infra/local/stack';
import type { Principal } from '#shared/auth/principal';
import { createDocumentClient } from '#shared/data/client';
import { operationsById } from '#shared/operations/index';
import { readStackSettings, settingsEnvironment, stackSettings, type StackSetting } from '#shared/operations/settings';
import { commonFunctionEnvironment } from '#shared/operations/grants';
import { buildBundle } from './bundles';
import { buildColdRunner, coldStart, type ColdSample } from './cold-start';
import { activeTracingEnvironment, runTarget } from './section-cold';
import { principalOf } from './context';
import { proxyEvent, type HttpRequest } from './events';
import { locationInput, seedThroughService } from './seed';
import { median, ms } from './stats';

const seededLocations = 20;

/** The first event of each function this tool can measure (run: a number unique to the sample), for its tenant. */
const requests = new Map<string, (principal: Principal, run: number) => HttpRequest>([
  ['tenantLocationGet', (principal) => ({ principal, pathParameters: { id: '1' } })],
  ['tenantLocationGetAll', (principal) => ({ principal })],
  ['tenantLocationGetByName', (principal) => ({ principal, body: JSON.stringify({ SearchString: locationInput(1, 'AB').Name, IsExactMatch: true }) })],
  ['tenantLocationGetDefaultAddress', (principal) => ({ principal, pathParameters: { id: '1' }, query: 'addressType=Billing' })],
  ['tenantLocationSearch', (principal) => ({ principal, body: JSON.stringify({ MaxResults: 50 }) })],
  ['tenantLocationSave', (principal, run) => ({ principal, body: JSON.stringify({ ...locationInput(1000 + run, `AB save ${run}`), IsDefault: false }) })],
  ['paymentPost', (principal, run) => ({ principal, body: JSON.stringify({ Object: { Amount: 10 + run, Method: 'Cash' } }) })],
]);

const usage = 'usage: npx tsx test/bench/ab-cold.ts <checkout A> <checkout B> <function[,function...]> [rounds]';
const [checkoutA, checkoutB, names, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText ?? 30);
const functions = names?.split(',').filter(Boolean) ?? [];
const unknown = functions.filter((name) => !requests.has(name));
if (!checkoutA || !checkoutB || functions.length === 0 || unknown.length > 0 || !Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write(`${usage}\n${unknown.length > 0 ? `unknown: ${unknown.join(', ')}; functions: ${[...requests.keys()].join(', ')}\n` : ''}`);
  process.exit(2);
}
const checkouts = [resolve(checkoutA), resolve(checkoutB)] as const;

const workDir = join(repositoryRoot, '.local', 'bench', 'ab-cold');
rmSync(workDir, { recursive: true, force: true });
mkdirSync(workDir, { recursive: true });
const runner = await buildColdRunner(join(workDir, 'cold-runner.mjs'), runTarget);

const stack = await startLocalStack({ port: 0, inMemory: true, consumers: [], log: () => undefined });
try {
  // The stack's in-process environment points this client at DynamoDB Local.
  const table = { client: createDocumentClient(new DynamoDBClient({})), tableName: stack.tableName };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TABLE_NAME: stack.tableName,
    ...settingsEnvironment(Object.keys(stackSettings) as StackSetting[], readStackSettings(() => undefined)),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: stack.dynamodbEndpoint,
    // The service name and log level the stack deploys (INFO: each request writes its access line, as on AWS).
    ...commonFunctionEnvironment(),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // As section 1 runs them: traced, as under Lambda's active tracing, to a UDP port nobody reads.
    ...activeTracingEnvironment(),
  };
  for (const [index, name] of functions.entries()) {
    const operation = operationsById[name as keyof typeof operationsById];
    const principal = principalOf(7_444_001 + index);
    await seedThroughService(table, principal, seededLocations, 'AB');
    const request = requests.get(name)!;
    const bundles = await Promise.all(
      checkouts.map((checkout, index) =>
        buildBundle(join(checkout, operation.handler), join(workDir, name, index === 0 ? 'A' : 'B'), functionBundling, { absWorkingDir: checkout }),
      ),
    );
    const samples: [ColdSample[], ColdSample[]] = [[], []];
    const statuses: [Set<string>, Set<string>] = [new Set(), new Set()];
    let run = 0;
    // Two discarded rounds first (the file cache, DynamoDB Local's first requests of the kind).
    for (let round = -2; round < rounds; round += 1) {
      for (const side of round % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
        run += 1;
        const sample = await coldStart({ runner, bundle: bundles[side]!.file, functionName: name, event: await proxyEvent(operation, request(principal, run)), env, functionTimeoutMs: 10_000 });
        if (!sample.ok) throw new Error(`${name} (${side === 0 ? 'A' : 'B'}) failed: ${sample.error ?? sample.summary}`);
        statuses[side].add(sample.summary);
        if (round >= 0) samples[side as 0 | 1].push(sample);
      }
    }
    const [answersA, answersB] = statuses.map((answers) => [...answers].sort().join(', '));
    if (answersA !== answersB) throw new Error(`${name}: A answered ${answersA}, B ${answersB}: not the same work, no ratio`);
    const of = (side: 0 | 1, pick: (sample: ColdSample) => number) => ms(median(samples[side].map(pick)), 1);
    const ratio = median(samples[0].map((sample, index) => samples[1][index]!.totalMs / sample.totalMs));
    process.stdout.write(
      `${name} (${answersA}; ${rounds} rounds): ` +
        `A ${of(0, (s) => s.totalMs)} ms (init ${of(0, (s) => s.importMs)}, first call ${of(0, (s) => s.invokeMs)}), ` +
        `B ${of(1, (s) => s.totalMs)} ms (init ${of(1, (s) => s.importMs)}, first call ${of(1, (s) => s.invokeMs)}); ` +
        `B / A ${ratio.toFixed(3)} (median of the rounds); bundles ${bundles.map((bundle) => `${(bundle.bytes / 1024).toFixed(1)} KiB`).join(', ')}\n`,
    );
  }
} finally {
  await stack.stop();
}
