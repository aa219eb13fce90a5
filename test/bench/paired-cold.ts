// Benchmark tool: two builds of tenantLocationGet, cold-started alternately, for a change of a millisecond or two that
// the cold-start section's ratios cannot resolve on a shared machine (test/bench/README.md, "what a function loads
// beyond the baseline"). Each sample is a fresh process of the functions' Node that imports the bundle and serves one
// event (a location that does not exist), traced as under Lambda's active tracing: DynamoDB is a local HTTP stub that
// answers `{}`, the X-Ray daemon a UDP socket. Prints the median wall and CPU milliseconds of init and first call.
//
//   npx tsx test/bench/paired-cold.ts build <folder>                # as the construct's hook builds it (PAIRED_EAGER=false: no eager-wrappers.mjs)
//   npx tsx test/bench/paired-cold.ts run <folder A> <folder B> [rounds]   # alternately, 40 rounds by default
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { eagerWrappersIn } from '../../infra/build/eager-wrappers.mjs';
import { buildLazyChunks } from '../../infra/build/lazy-chunks.mjs';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { operationsById } from '#shared/operations/index';
import { functionNode } from './cold-start';
import { principalOf } from './context';
import { proxyEvent } from './events';
import { median, ms } from './stats';

const operation = operationsById.tenantLocationGet;

/** The child's script: import, one invocation, then one JSON line of wall and CPU milliseconds. */
const runner = `import { pathToFileURL } from 'node:url';
const cpu = (usage) => (usage.user + usage.system) / 1000;
const cpuStart = process.cpuUsage(); const started = performance.now();
const { handler } = await import(pathToFileURL(process.argv[2]).href);
const imported = performance.now(); const cpuImported = cpu(process.cpuUsage(cpuStart));
const result = await handler(JSON.parse(process.env.BENCH_EVENT), { functionName: 'bench', awsRequestId: 'bench', getRemainingTimeInMillis: () => 10000 });
const answered = performance.now(); const cpuAnswered = cpu(process.cpuUsage(cpuStart));
process.stdout.write('\\nPAIRED ' + JSON.stringify({ status: result.statusCode, init: imported - started, call: answered - imported, cpuInit: cpuImported, cpuCall: cpuAnswered - cpuImported }) + '\\n');
`;

interface Sample {
  readonly status: number;
  readonly init: number;
  readonly call: number;
  readonly cpuInit: number;
  readonly cpuCall: number;
}

const buildFolder = async (folder: string): Promise<void> => {
  const options = esbuildOptionsFor(functionBundling);
  mkdirSync(folder, { recursive: true });
  await build({ ...options, absWorkingDir: repositoryRoot, entryPoints: [join(repositoryRoot, operation.handler)], outfile: join(folder, 'index.mjs') });
  await buildLazyChunks(folder, options);
  if (process.env.PAIRED_EAGER !== 'false') eagerWrappersIn(folder);
};

const runPaired = async (folders: readonly string[], rounds: number): Promise<void> => {
  const daemon = createSocket('udp4');
  daemon.on('message', () => undefined);
  await new Promise<void>((done) => daemon.bind(0, '127.0.0.1', done));
  const dynamodb = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end('{}');
    });
  });
  await new Promise<void>((done) => dynamodb.listen(0, '127.0.0.1', done));
  const runnerFile = join(folders[0]!, '..', `paired-runner-${process.pid}.mjs`);
  writeFileSync(runnerFile, runner);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TABLE_NAME: 'paired-table',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'paired',
    AWS_SECRET_ACCESS_KEY: 'paired',
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${(dynamodb.address() as AddressInfo).port}`,
    LOG_LEVEL: 'INFO',
    AWS_LAMBDA_FUNCTION_NAME: 'paired',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    _X_AMZN_TRACE_ID: 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1',
    BENCH_EVENT: JSON.stringify(await proxyEvent(operation, { principal: principalOf(1), pathParameters: { id: '7' } })),
  };
  const samples = new Map<string, Sample[]>(folders.map((folder) => [folder, []]));
  const coldStart = (folder: string) =>
    new Promise<Sample>((done, fail) =>
      execFile(functionNode().path, [runnerFile, join(folder, 'index.mjs')], { cwd: folder, env: { ...env, LAMBDA_TASK_ROOT: folder } }, (error, stdout) => {
        const line = stdout.split('\n').find((candidate) => candidate.startsWith('PAIRED '));
        if (error || !line) fail(error ?? new Error(`${folder}: no report`));
        else done(JSON.parse(line.slice('PAIRED '.length)) as Sample);
      }),
    );
  try {
    for (let round = 0; round < rounds; round += 1) for (const folder of folders) samples.get(folder)!.push(await coldStart(folder));
  } finally {
    dynamodb.close();
    daemon.close();
  }
  for (const [folder, taken] of samples) {
    const of = (pick: (sample: Sample) => number) => ms(median(taken.map(pick)), 1);
    process.stdout.write(
      `${folder}: ${taken.length} cold starts, HTTP ${taken[0]?.status}; wall init ${of((s) => s.init)} first call ${of((s) => s.call)} sum ${of((s) => s.init + s.call)} ms; ` +
        `CPU init ${of((s) => s.cpuInit)} first call ${of((s) => s.cpuCall)} sum ${of((s) => s.cpuInit + s.cpuCall)} ms (medians)\n`,
    );
  }
};

const [command, ...rest] = process.argv.slice(2);
if (command === 'build' && rest.length === 1) await buildFolder(resolve(rest[0]!));
else if (command === 'run' && (rest.length === 2 || rest.length === 3)) await runPaired([resolve(rest[0]!), resolve(rest[1]!)], Number(rest[2] ?? 40));
else {
  process.stderr.write('usage: npx tsx test/bench/paired-cold.ts build <folder> | run <folder A> <folder B> [rounds]\n');
  process.exit(2);
}
