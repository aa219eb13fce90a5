// Infra test: the tracer chunk (`#lazy/tracer`, built by infra/build/lazy-chunks.mjs) traces every AWS SDK call of a
// function as X-Ray does on Lambda, with the X-Ray SDK's context on AsyncLocalStorage
// (shared/observability/async-context.ts) instead of cls-hooked. A function's bundle and its chunks run in a fresh
// process of the functions' Node (the template's runtime), with what Lambda sets under active tracing: its DynamoDB
// calls reach a local HTTP server standing in for DynamoDB, and the subsegments reach a UDP socket standing in for
// the X-Ray daemon. The bundle and chunk are rewritten as the construct's hook rewrites them (infra/build/eager-wrappers.mjs).
import { execFile } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { eagerWrappersIn } from '../../infra/build/eager-wrappers.mjs';
import { buildLazyChunks } from '../../infra/build/lazy-chunks.mjs';
import { functionBundling, functionRuntime, repositoryRoot } from '#infra/constructs/operation-function';
import { nodeExecutableFor, nodeMajorOf } from '#infra/local/lambda-runtime';
import { operationsById } from '#shared/operations/index';
import { principalOf } from '#test/bench/context';
import { proxyEvent } from '#test/bench/events';

const traceRoot = '1-67891233-abcdef012345678912345678';
const lambdaParent = '53995c3f42cd8ad8';
const functionNode = nodeExecutableFor(functionRuntime.name, { subject: 'tracer chunk test' }).path;

interface Subsegment {
  readonly id: string;
  readonly name: string;
  readonly trace_id: string;
  readonly parent_id: string;
  readonly namespace?: string;
  readonly aws?: { readonly operation?: string; readonly table_name?: string };
  readonly http?: { readonly response?: { readonly status?: number } };
}

const folder = mkdtempSync(join(tmpdir(), 'tracer-chunk-'));
let daemon: Socket;
const datagrams: string[] = [];
let dynamodb: Server;
const requests: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  const options = esbuildOptionsFor(functionBundling, { target: `node${nodeMajorOf(functionRuntime.name)}` });
  await build({ ...options, absWorkingDir: repositoryRoot, entryPoints: [join(repositoryRoot, operationsById.tenantLocationGet.handler)], outfile: join(folder, 'index.mjs') });
  expect(await buildLazyChunks(folder, options)).toContain('lazy/tracer.mjs');
  // As the construct's afterBundling hook does: every test below runs the rewritten bundle and chunk.
  expect(eagerWrappersIn(folder).map((entry) => entry.split(':')[0])).toEqual(expect.arrayContaining(['index.mjs', join('lazy', 'tracer.mjs')]));
  daemon = createSocket('udp4');
  daemon.on('message', (message) => datagrams.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  // DynamoDB's JSON protocol: every request answers an empty object (a GetItem of an item that does not exist).
  dynamodb = createServer((request, response) => {
    requests.push(request.headers);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `request-${requests.length}` });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => dynamodb.listen(0, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  daemon?.close();
  await new Promise((resolve) => dynamodb?.close(resolve));
  rmSync(folder, { recursive: true, force: true });
});

/** Runs `script` (an ES module in the bundle's folder) under the functions' Node with active tracing; returns its stdout. */
const runTraced = async (script: string, extraEnv: Record<string, string> = {}): Promise<string> => {
  const file = join(folder, `run-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, script);
  const { stdout } = await promisify(execFile)(functionNode, [file], {
    cwd: folder,
    env: {
      PATH: process.env.PATH,
      TABLE_NAME: 'traced-table',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
      AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${(dynamodb.address() as AddressInfo).port}`,
      LOG_LEVEL: 'ERROR',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      AWS_EXECUTION_ENV: functionRuntime.name.replace(/^nodejs/, 'AWS_Lambda_nodejs'),
      LAMBDA_TASK_ROOT: folder,
      _X_AMZN_TRACE_ID: `Root=${traceRoot};Parent=${lambdaParent};Sampled=1`,
      ...extraEnv,
    },
  });
  return stdout;
};

/**
 * Invokes tenantLocationGet's bundle once (a location that does not exist) under tracing; `report` is an expression
 * evaluated in that process afterwards, whose members join the answer's status code in the result.
 */
const invokeGet = async (report: string): Promise<Record<string, unknown>> => {
  const event = await proxyEvent(operationsById.tenantLocationGet, { principal: principalOf(1), pathParameters: { id: '7' } });
  const output = await runTraced(
    "const { handler } = await import('./index.mjs');" +
      "const result = await handler(JSON.parse(process.env.EVENT), { functionName: 'f', getRemainingTimeInMillis: () => 10000, awsRequestId: 'r' });" +
      `process.stdout.write(JSON.stringify({ statusCode: result.statusCode, ...(${report}) }));`,
    { EVENT: JSON.stringify(event) },
  );
  return JSON.parse(output) as Record<string, unknown>;
};

/** The subsegments the daemon received so far (each datagram: the X-Ray header line, then one JSON document). */
const received = (): Subsegment[] => datagrams.map((datagram) => JSON.parse(datagram.slice(datagram.indexOf('\n') + 1)) as Subsegment);

/** Waits until the daemon holds `count` subsegments matching `where` (UDP delivery is asynchronous). */
const subsegmentsWhen = async (where: (subsegment: Subsegment) => boolean, count: number): Promise<Subsegment[]> => {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const matching = received().filter(where);
    if (matching.length >= count) return matching;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return received().filter(where);
};

describe('the tracer chunk', () => {
  it('holds no cls-hooked (the X-Ray SDK keeps its context on AsyncLocalStorage) and no semver package', () => {
    const chunk = readFileSync(join(folder, 'lazy', 'tracer.mjs'), 'utf8');
    // cls-hooked's own strings: its contexts key and the async hook it creates.
    expect(chunk).not.toContain('cls@contexts');
    expect(chunk).not.toMatch(/createHook\(/);
    expect(chunk).toMatch(/AsyncLocalStorage/);
    // Nor the semver package: its `gte` (shared/observability/semver-gte.ts) is all the X-Ray SDK calls of it.
    expect(chunk).not.toContain('SEMVER_SPEC_VERSION');
  });

  it('gives every DynamoDB call of a function its subsegment under the invocation\'s trace, and the call its header', async () => {
    const before = requests.length;
    // cls-hooked registers its namespaces on process.namespaces when it loads: nothing did here.
    expect(await invokeGet('{ clsHooked: process.namespaces !== undefined }')).toEqual({ statusCode: 404, clsHooked: false });
    const calls = requests.slice(before).filter((headers) => String(headers['x-amz-target']).startsWith('DynamoDB_20120810.'));
    expect(calls.length).toBeGreaterThan(0);
    const subsegments = await subsegmentsWhen((subsegment) => subsegment.name === 'DynamoDB' && subsegment.aws?.table_name === 'traced-table', calls.length);
    expect(subsegments).toHaveLength(calls.length);
    for (const subsegment of subsegments) {
      expect(subsegment).toMatchObject({ trace_id: traceRoot, parent_id: lambdaParent, namespace: 'aws', aws: { operation: 'GetItem' }, http: { response: { status: 200 } } });
    }
    // Each request named its own subsegment as the parent of what DynamoDB records.
    expect(calls.map((headers) => headers['x-amzn-trace-id']).sort()).toEqual(subsegments.map((subsegment) => `Root=${traceRoot};Parent=${subsegment.id};Sampled=1`).sort());
  }, 60_000);

  it('loads no undici through node:http (the bundle requires it: infra/build/node-http.mjs), yet its SDK calls go out over HTTP', async () => {
    const before = requests.length;
    const loaded = "{ http: process.moduleLoadList.includes('NativeModule http'), undici: process.moduleLoadList.filter((name) => name.includes('undici')) }";
    expect(await invokeGet(loaded)).toEqual({ statusCode: 404, http: true, undici: [] });
    expect(requests.length).toBeGreaterThan(before);
  }, 60_000);

  it("sends the subsegments to the daemon's IP address without loading Node's dns module (shared/observability/daemon-socket.ts)", async () => {
    const before = received().length;
    // The emitter sends each subsegment as its call ends, so the socket has looked the daemon up by now.
    const loaded = "{ dgram: process.moduleLoadList.includes('NativeModule dgram'), dns: process.moduleLoadList.includes('NativeModule dns') }";
    expect(await invokeGet(loaded)).toEqual({ statusCode: 404, dgram: true, dns: false });
    expect((await subsegmentsWhen(() => true, before + 1)).length).toBeGreaterThan(before);
  }, 60_000);

  it('keeps each concurrent flow\'s own subsegment across awaits (the X-Ray SDK\'s automatic mode)', async () => {
    const output = await runTraced(
      "const { Tracer } = await import('#lazy/tracer');" +
        "const tracer = new Tracer({ serviceName: 'chunk-test', captureHTTPsRequests: false });" +
        'const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));' +
        'const flow = (name, delays) => tracer.provider.captureAsyncFunc(name, async (subsegment) => {' +
        '  const seen = [];' +
        '  for (const delay of delays) { await pause(delay); seen.push(tracer.getSegment() === subsegment); }' +
        '  const child = await tracer.provider.captureAsyncFunc(name + ".child", async (inner) => { await pause(1); const own = tracer.getSegment() === inner && inner.parent === subsegment; inner.close(); return own; });' +
        '  subsegment.close();' +
        '  return { name, seen, child, back: tracer.getSegment() === subsegment };' +
        '});' +
        "const results = await Promise.all([flow('flow-a', [5, 0, 3]), flow('flow-b', [0, 4, 1])]);" +
        'process.stdout.write(JSON.stringify({ results, outside: tracer.getSegment().facade === true }));',
    );
    expect(JSON.parse(output)).toEqual({
      results: [
        { name: 'flow-a', seen: [true, true, true], child: true, back: true },
        { name: 'flow-b', seen: [true, true, true], child: true, back: true },
      ],
      outside: true,
    });
    const flows = await subsegmentsWhen((subsegment) => subsegment.name === 'flow-a' || subsegment.name === 'flow-b', 2);
    expect(flows.map((subsegment) => [subsegment.name, subsegment.trace_id, subsegment.parent_id]).sort()).toEqual([
      ['flow-a', traceRoot, lambdaParent],
      ['flow-b', traceRoot, lambdaParent],
    ]);
  }, 60_000);
});
