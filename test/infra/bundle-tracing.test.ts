// Infra test: a function's bundle traces every AWS SDK call as X-Ray does on Lambda (shared/observability/tracing.ts):
// one subsegment per call under the invocation's segment, sent to the daemon over UDP, and the call's trace header
// naming that subsegment. A function's bundle runs in a fresh process of the functions' Node (the template's runtime),
// with what Lambda sets under active tracing: its DynamoDB calls reach a local HTTP server standing in for DynamoDB,
// and the subsegments reach a UDP socket standing in for the X-Ray daemon. The bundle is rewritten as the construct's
// hook rewrites it (infra/build/eager-wrappers.mjs).
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
import { chunkFilesWith } from '#test/support/bundle-chunks';
import { functionBundling, functionRuntime, repositoryRoot } from '#infra/constructs/operation-function';
import { nodeExecutableFor, nodeMajorOf } from '#infra/local/lambda-runtime';
import { operationsById } from '#shared/operations/index';
import { principalOf } from '#test/bench/context';
import { proxyEvent } from '#test/bench/events';

const traceRoot = '1-67891233-abcdef012345678912345678';
const lambdaParent = '53995c3f42cd8ad8';
const functionNode = nodeExecutableFor(functionRuntime.name, { subject: 'bundle tracing test' }).path;

interface Subsegment {
  readonly type: string;
  readonly id: string;
  readonly name: string;
  readonly trace_id: string;
  readonly parent_id: string;
  readonly start_time: number;
  readonly end_time: number;
  readonly namespace?: string;
  readonly aws?: { readonly operation?: string; readonly table_name?: string; readonly request_id?: string; readonly region?: string; readonly retries?: number };
  readonly http?: { readonly response?: { readonly status?: number } };
  readonly error?: boolean;
  readonly fault?: boolean;
  readonly throttle?: boolean;
  readonly cause?: { readonly exceptions: readonly { readonly type: string; readonly message?: string }[] };
}

const folder = mkdtempSync(join(tmpdir(), 'bundle-tracing-'));
let daemon: Socket;
const datagrams: string[] = [];
let dynamodb: Server;
const requests: IncomingHttpHeaders[] = [];
/** How the stand-in DynamoDB answers: an empty object (no such item), or a service error. */
let answer: { readonly status: number; readonly body: string } = { status: 200, body: '{}' };
const internalError = { status: 500, body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal error for item {"Owner":"Alice Example"}' }) };

beforeAll(async () => {
  const options = esbuildOptionsFor(functionBundling, { target: `node${nodeMajorOf(functionRuntime.name)}` });
  await build({ ...options, absWorkingDir: repositoryRoot, entryPoints: [join(repositoryRoot, operationsById.tenantLocationGet.handler)], outfile: join(folder, 'index.mjs') });
  // Tracing is part of the bundle: the chunks are the XML parser's and the SDK's on-demand imports' (the credential
  // providers past the environment's, the event-stream codec), none of which the first call loads.
  expect(await buildLazyChunks(folder, options)).toEqual(chunkFilesWith('xml-parser'));
  // As the construct's afterBundling hook does: every test below runs the rewritten bundle.
  expect(eagerWrappersIn(folder).map((entry) => entry.split(':')[0])).toContain('index.mjs');
  daemon = createSocket('udp4');
  daemon.on('message', (message) => datagrams.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  // DynamoDB's JSON protocol: every request gets the current answer.
  dynamodb = createServer((request, response) => {
    requests.push(request.headers);
    request.resume();
    request.on('end', () => {
      response.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `request-${requests.length}` });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => dynamodb.listen(0, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  daemon?.close();
  if (dynamodb) await new Promise((resolve) => dynamodb.close(resolve));
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
      AWS_EXECUTION_ENV: functionRuntime.name.replace(/^nodejs/, 'AWS_Lambda_nodejs'),
      LAMBDA_TASK_ROOT: folder,
      AWS_LAMBDA_FUNCTION_NAME: 'tenant-location-get',
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
const getEvent = () => proxyEvent(operationsById.tenantLocationGet, { principal: principalOf(1), pathParameters: { id: '7' } });
const invokeGet = async (report: string, extraEnv: Record<string, string> = {}): Promise<Record<string, unknown>> => {
  const output = await runTraced(
    "const { handler } = await import('./index.mjs');" +
      "const result = await handler(JSON.parse(process.env.EVENT), { functionName: 'f', getRemainingTimeInMillis: () => 10000, awsRequestId: 'r' });" +
      `process.stdout.write(JSON.stringify({ statusCode: result.statusCode, ...(${report}) }));`,
    { EVENT: JSON.stringify(await getEvent()), ...extraEnv },
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

const dynamoCallsSince = (before: number) => requests.slice(before).filter((headers) => String(headers['x-amz-target']).startsWith('DynamoDB_20120810.'));

describe('X-Ray subsegments from the bundle', () => {
  beforeEach(() => {
    answer = { status: 200, body: '{}' };
  });

  it('holds no X-Ray SDK, no Powertools Tracer and no cls-hooked', () => {
    const bundle = readFileSync(join(folder, 'index.mjs'), 'utf8');
    expect(bundle).not.toContain('cls@contexts');
    expect(bundle).not.toContain('AWSXRaySDK');
    expect(bundle).not.toContain('XRaySDKInstrumentation');
    expect(bundle).toContain('xraySubsegments');
  });

  it("gives every DynamoDB call of a function its subsegment under the invocation's trace, and the call its header", async () => {
    const before = requests.length;
    const beforeDatagrams = datagrams.length;
    expect(await invokeGet('{}')).toEqual({ statusCode: 404 });
    // The location and the tenant's default pointer, read as of one moment (shared/data/snapshot.ts).
    const calls = dynamoCallsSince(before);
    expect(calls.length).toBeGreaterThan(0);
    const subsegments = await subsegmentsWhen((subsegment) => subsegment.name === 'DynamoDB' && subsegment.aws?.table_name === 'traced-table', calls.length);
    expect(subsegments).toHaveLength(calls.length);
    for (const subsegment of subsegments) {
      expect(subsegment).toMatchObject({ type: 'subsegment', trace_id: traceRoot, parent_id: lambdaParent, namespace: 'aws', aws: { operation: 'TransactGetItems', region: 'us-east-1', retries: 0 }, http: { response: { status: 200 } } });
      expect(subsegment.id).toMatch(/^[0-9a-f]{16}$/);
      expect(subsegment.aws?.request_id).toMatch(/^request-\d+$/);
      expect(subsegment.end_time).toBeGreaterThanOrEqual(subsegment.start_time);
      expect(subsegment.start_time).toBeGreaterThan(1.7e9);
      expect(subsegment).not.toHaveProperty('error');
      expect(subsegment).not.toHaveProperty('fault');
    }
    // Each request named its own subsegment as the parent of what DynamoDB records.
    expect(calls.map((headers) => headers['x-amzn-trace-id']).sort()).toEqual(subsegments.map((subsegment) => `Root=${traceRoot};Parent=${subsegment.id};Sampled=1`).sort());
    // Every datagram is X-Ray's header line, then one document.
    for (const datagram of datagrams.slice(beforeDatagrams)) expect(datagram.startsWith('{"format":"json","version":1}\n')).toBe(true);
  }, 60_000);

  it("passes the header's other fields on (Lambda's Lineage, which its recursive-loop detection counts)", async () => {
    const before = requests.length;
    await invokeGet('{}', { _X_AMZN_TRACE_ID: `Root=${traceRoot};Parent=${lambdaParent};Sampled=1;Lineage=a87bd80c:1` });
    const headers = dynamoCallsSince(before).map((call) => String(call['x-amzn-trace-id']));
    expect(headers.length).toBeGreaterThan(0);
    for (const header of headers) expect(header).toMatch(new RegExp(`^Root=${traceRoot};Parent=[0-9a-f]{16};Sampled=1;Lineage=a87bd80c:1$`));
  }, 60_000);

  it("sends nothing for a trace that is not sampled, and the call carries the invocation's header as the SDK sets it", async () => {
    const before = requests.length;
    const beforeDatagrams = datagrams.length;
    const unsampled = `Root=${traceRoot};Parent=${lambdaParent};Sampled=0`;
    expect(await invokeGet('{}', { _X_AMZN_TRACE_ID: unsampled })).toEqual({ statusCode: 404 });
    const headers = dynamoCallsSince(before).map((call) => call['x-amzn-trace-id']);
    expect(headers.length).toBeGreaterThan(0);
    for (const header of headers) expect(header).toBe(unsampled);
    // A sampled invocation after it: its datagrams arrive, and none came from the unsampled one (UDP keeps no order
    // between processes, so the count is read once the sampled one's have arrived).
    const sampledBefore = requests.length;
    await invokeGet('{}');
    const sampledCalls = dynamoCallsSince(sampledBefore).length;
    await subsegmentsWhen(() => true, beforeDatagrams + sampledCalls);
    expect(datagrams.length - beforeDatagrams).toBe(sampledCalls);
  }, 60_000);

  it("reads the invocation's trace from the runtime's InvokeStore before the environment (concurrent invocations)", async () => {
    const before = requests.length;
    const storeRoot = '1-67891233-111111111111111111111111';
    const storeParent = '1111111111111111';
    const output = await runTraced(
      `globalThis.awslambda = { InvokeStore: { getXRayTraceId: () => 'Root=${storeRoot};Parent=${storeParent};Sampled=1' } };` +
        "const { handler } = await import('./index.mjs');" +
        "const result = await handler(JSON.parse(process.env.EVENT), { functionName: 'f', getRemainingTimeInMillis: () => 10000, awsRequestId: 'r' });" +
        'process.stdout.write(JSON.stringify({ statusCode: result.statusCode }));',
      { EVENT: JSON.stringify(await getEvent()) },
    );
    expect(JSON.parse(output)).toEqual({ statusCode: 404 });
    const calls = dynamoCallsSince(before);
    expect(calls.length).toBeGreaterThan(0);
    const subsegments = await subsegmentsWhen((subsegment) => subsegment.trace_id === storeRoot, calls.length);
    expect(subsegments.length).toBe(calls.length);
    for (const subsegment of subsegments) expect(subsegment.parent_id).toBe(storeParent);
  }, 60_000);

  it("marks a call the service failed as a fault, naming the error's class and never its message", async () => {
    answer = internalError;
    const before = requests.length;
    const result = await invokeGet('{}', { AWS_MAX_ATTEMPTS: '1' });
    expect(result.statusCode).toBe(503);
    const calls = dynamoCallsSince(before);
    expect(calls.length).toBeGreaterThan(0);
    const failed = await subsegmentsWhen((subsegment) => subsegment.fault === true && subsegment.http?.response?.status === 500, calls.length);
    expect(failed).toHaveLength(calls.length);
    for (const subsegment of failed) {
      expect(subsegment).not.toHaveProperty('error');
      expect(subsegment.cause?.exceptions).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{16}$/), type: 'InternalServerError', remote: true }]);
    }
    expect(datagrams.join('\n')).not.toContain('Alice');
  }, 60_000);

  it('marks a throttled call (HTTP 400, ProvisionedThroughputExceededException) as an error and a throttle', async () => {
    answer = { status: 400, body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'Rate exceeded' }) };
    const before = requests.length;
    expect((await invokeGet('{}', { AWS_MAX_ATTEMPTS: '1' })).statusCode).toBe(503);
    const calls = dynamoCallsSince(before);
    expect(calls.length).toBeGreaterThan(0);
    const throttled = await subsegmentsWhen((subsegment) => subsegment.throttle === true && subsegment.http?.response?.status === 400, calls.length);
    expect(throttled).toHaveLength(calls.length);
    for (const subsegment of throttled) {
      expect(subsegment).toMatchObject({ error: true, throttle: true });
      expect(subsegment).not.toHaveProperty('fault');
    }
  }, 60_000);

  it('loads no undici through node:http (the bundle requires it: infra/build/node-http.mjs), yet its SDK calls go out over HTTP', async () => {
    const before = requests.length;
    const loaded = "{ http: process.moduleLoadList.includes('NativeModule http'), undici: process.moduleLoadList.filter((name) => name.includes('undici')) }";
    expect(await invokeGet(loaded)).toEqual({ statusCode: 404, http: true, undici: [] });
    expect(requests.length).toBeGreaterThan(before);
  }, 60_000);

  it("sends the subsegments to the daemon's IP address without loading Node's dns module (shared/observability/daemon-socket.ts)", async () => {
    const before = received().length;
    // Each subsegment is sent as its call ends, so the socket has looked the daemon up by now.
    // Nor the internal modules an ESM namespace of node:net loads (its BlockList and SocketAddress getters).
    const loaded = "{ dns: process.moduleLoadList.includes('NativeModule dns'), blockList: process.moduleLoadList.includes('NativeModule internal/blocklist') }";
    expect(await invokeGet(loaded)).toEqual({ statusCode: 404, dns: false, blockList: false });
    expect((await subsegmentsWhen(() => true, before + 1)).length).toBeGreaterThan(before);
  }, 60_000);

  it('opens no UDP socket where tracing is off (POWERTOOLS_TRACE_ENABLED=false), and sends nothing', async () => {
    const beforeDatagrams = datagrams.length;
    // A socket's first send binds it, and every bind loads Node's cluster module (to ask cluster.isWorker); dgram
    // itself is loaded by the SDK's credential chain (child_process requires it), traced or not.
    const loaded = "{ cluster: process.moduleLoadList.includes('NativeModule cluster') }";
    expect(await invokeGet(loaded, { POWERTOOLS_TRACE_ENABLED: 'false' })).toEqual({ statusCode: 404, cluster: false });
    // A traced invocation after it: its subsegments arrive, and they are all the daemon got since.
    const tracedBefore = requests.length;
    expect(await invokeGet(loaded)).toEqual({ statusCode: 404, cluster: true });
    const tracedCalls = dynamoCallsSince(tracedBefore).length;
    await subsegmentsWhen(() => true, beforeDatagrams + tracedCalls);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(datagrams.length - beforeDatagrams).toBe(tracedCalls);
  }, 60_000);

  it('fails the cold start naming AWS_XRAY_DAEMON_ADDRESS when it is not an address', async () => {
    await expect(invokeGet('{}', { AWS_XRAY_DAEMON_ADDRESS: 'nowhere' })).rejects.toThrow(/AWS_XRAY_DAEMON_ADDRESS must be host:port/);
  }, 60_000);
});
