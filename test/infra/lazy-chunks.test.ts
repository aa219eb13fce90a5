// Infra tests: the libraries only some requests need are not in any function's bundle, and the bundle that needs
// one loads it from the chunk the construct's afterBundling hook builds beside it (infra/build/lazy-chunks.mjs).
// The runtime check runs the artifact itself in a fresh node process, as Lambda would: no tsx, no package.json of
// the repository, only the bundle folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { buildLazyChunks, lazyModules, lazySpecifiersIn } from '../../infra/build/lazy-chunks.mjs';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { consumedQueueDefinitions } from '#shared/events/queues';
import { operations, operationsById } from '#shared/operations/index';
import { principalOf } from '#test/bench/context';
import { proxyEvent } from '#test/bench/events';

const modules = [...new Set([...operations.map((operation) => operation.handler), 'functions/authorizer.ts', ...consumedQueueDefinitions.map((definition) => definition.consumer.handler)])];

/** The packages each lazy specifier stands for (their files must never be in a main bundle). */
const lazyOrigins = [
  'node_modules/fast-xml-parser/',
  'node_modules/is-unsafe/',
  'node_modules/@aws-crypto/',
  'node_modules/bn.js/',
  'shared/crypto/envelope.ts',
];

/** What traced the SDK's calls before shared/observability/tracing.ts: in no bundle and no chunk (test/bench/README.md). */
const retiredTracer = ['node_modules/@aws-lambda-powertools/tracer/', 'node_modules/aws-xray-sdk-core/'];

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('lazy libraries', () => {
  it('are declared in package.json "imports" and nowhere else', () => {
    expect(lazyModules()).toEqual({
      '#lazy/xml-parser': 'fast-xml-parser',
      '#lazy/secret-cipher': './shared/crypto/envelope.ts',
    });
  });

  it.each(modules)('%s: its bundle holds none of them, only their #lazy/ specifiers', async (module) => {
    const result = await build({
      ...esbuildOptionsFor(functionBundling),
      absWorkingDir: repositoryRoot,
      entryPoints: [join(repositoryRoot, module)],
      write: false,
      outfile: join(repositoryRoot, '.local', 'lazy-check', 'index.mjs'),
      metafile: true,
    });
    expect(Object.keys(result.metafile.inputs).filter((input) => [...lazyOrigins, ...retiredTracer].some((origin) => input.includes(origin)))).toEqual([]);
    const code = result.outputFiles.find((file) => file.path.endsWith('.mjs'))!.text;
    for (const specifier of lazySpecifiersIn(code)) expect(Object.keys(lazyModules())).toContain(specifier);
  });
});

describe('a bundle with its chunks, run as Lambda runs it', () => {
  const folder = mkdtempSync(join(tmpdir(), 'lazy-chunks-'));
  folders.push(folder);
  const operation = operationsById.tenantLocationSave;

  beforeAll(async () => {
    const options = esbuildOptionsFor(functionBundling, { target: `node${process.versions.node.split('.')[0]}` });
    await build({ ...options, absWorkingDir: repositoryRoot, entryPoints: [join(repositoryRoot, operation.handler)], outfile: join(folder, 'index.mjs') });
    // Only the XML parser's: tracing is part of the bundle (shared/observability/tracing.ts), no chunk of its own.
    expect(await buildLazyChunks(folder, options)).toEqual(['package.json', 'lazy/xml-parser.mjs']);
  }, 120_000);

  /** Serves one event from the bundle in a fresh node process and returns the proxy result. */
  const invoke = async (body: string, contentType: string, extraEnv: Record<string, string> = {}) => {
    const event = await proxyEvent(operation, { body, contentType, principal: principalOf(1) });
    const runner = join(folder, 'run.mjs');
    writeFileSync(
      runner,
      "const { handler } = await import('./index.mjs');" +
        "const result = await handler(JSON.parse(process.env.EVENT), { functionName: 'f', getRemainingTimeInMillis: () => 10000, awsRequestId: 'r' });" +
        'process.stdout.write(JSON.stringify(result));',
    );
    const output = execFileSync(process.execPath, [runner], {
      cwd: folder,
      encoding: 'utf8',
      // A table that does not exist at an endpoint nothing listens on: the requests below are refused before any call.
      env: { PATH: process.env.PATH, EVENT: JSON.stringify(event), TABLE_NAME: 'none', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9', LOG_LEVEL: 'ERROR', POWERTOOLS_LOG_LEVEL: 'ERROR', ...extraEnv },
    });
    return JSON.parse(output) as { statusCode: number; body: string };
  };

  it('parses an XML body with the chunk: a well-formed body reaches validation', async () => {
    const result = await invoke('<TenantLocationInfo><Name></Name><Latitude>north</Latitude></TenantLocationInfo>', 'application/xml');
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toMatchObject({ type: expect.stringContaining('validation-failed') });
  }, 60_000);

  it('refuses a malformed XML body through the chunk, never with a 5xx', async () => {
    const result = await invoke('<TenantLocationInfo><Name>x</Nam></TenantLocationInfo>', 'application/xml');
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).detail).toMatch(/not well-formed/);
  }, 60_000);

  it('loads no chunk but the parser\'s where Lambda runs with active tracing, and still answers', async () => {
    const activeTracing = {
      AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: folder,
      _X_AMZN_TRACE_ID: 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1',
    };
    const result = await invoke('<TenantLocationInfo><Name>x</Nam></TenantLocationInfo>', 'application/xml', activeTracing);
    expect(result.statusCode).toBe(400);
  }, 60_000);
});
