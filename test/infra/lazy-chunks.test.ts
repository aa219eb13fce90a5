// Infra tests: the libraries only some requests need are not in any function's bundle, and the bundle that needs
// one loads it from the chunk the construct's afterBundling hook builds beside it (infra/build/lazy-chunks.mjs).
// The runtime check runs the artifact itself in a fresh node process, as Lambda would: no tsx, no package.json of
// the repository, only the bundle folder.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { buildLazyChunks, lazyModules, lazySpecifiersIn, libraryChunkAliases } from '../../infra/build/lazy-chunks.mjs';
import { chunkFilesWith, sdkChunkFiles } from '#test/support/bundle-chunks';
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
  // The SDK's on-demand imports (libraryChunkAliases): the credential providers past the environment's, what they
  // bring (the STS, SSO and sign-in clients, the token providers), and the event-stream codec.
  'node_modules/@aws-sdk/credential-provider-ini/',
  'node_modules/@aws-sdk/credential-provider-sso/',
  'node_modules/@aws-sdk/credential-provider-process/',
  'node_modules/@aws-sdk/credential-provider-web-identity/',
  'node_modules/@aws-sdk/credential-provider-http/',
  'node_modules/@aws-sdk/credential-provider-login/',
  'node_modules/@aws-sdk/nested-clients/',
  'node_modules/@aws-sdk/token-providers/',
  'node_modules/@smithy/credential-provider-imds/',
  'node_modules/@smithy/core/dist-es/submodules/event-streams/',
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
      '#lazy/credential-provider-ini': '@aws-sdk/credential-provider-ini',
      '#lazy/credential-provider-sso': '@aws-sdk/credential-provider-sso',
      '#lazy/credential-provider-process': '@aws-sdk/credential-provider-process',
      '#lazy/credential-provider-web-identity': '@aws-sdk/credential-provider-web-identity',
      '#lazy/credential-provider-http': '@aws-sdk/credential-provider-http',
      '#lazy/credential-provider-imds': '@smithy/credential-provider-imds',
      '#lazy/event-streams': '@smithy/core/event-streams',
    });
  });

  it('a package a chunk maps is named as its chunk by whoever imports it; a chunk is built without those names', () => {
    expect(libraryChunkAliases()).toEqual(expect.arrayContaining(['fast-xml-parser=#lazy/xml-parser', '@aws-sdk/credential-provider-ini=#lazy/credential-provider-ini']));
    expect(libraryChunkAliases().some((alias) => alias.includes('secret-cipher'))).toBe(false);
    expect(esbuildOptionsFor(functionBundling).alias).toMatchObject({ '@smithy/core/event-streams': '#lazy/event-streams' });
  });

  it('each package a chunk maps is installed once: the chunk (built from the repository root) is the copy its importers would load', () => {
    const packages = [...new Set(Object.values(lazyModules()).filter((target) => !target.startsWith('./')).map((target) => target.split('/').slice(0, target.startsWith('@') ? 2 : 1).join('/')))];
    const listed = spawnSync('npm', ['ls', ...packages, '--all', '--parseable'], { cwd: repositoryRoot, encoding: 'utf8' });
    const copies = [...new Set(listed.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => relative(repositoryRoot, line)))];
    expect(copies.sort()).toEqual(packages.map((name) => `node_modules/${name}`).sort());
  }, 60_000);

  it('a bundle that imports a chunk statically, or a module under a chunk\'s name, fails the build', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lazy-misuse-'));
    folders.push(folder);
    writeFileSync(join(folder, 'index.mjs'), 'import{a}from"#lazy/xml-parser";export const b=a;');
    await expect(buildLazyChunks(folder, esbuildOptionsFor(functionBundling))).rejects.toThrow(/static import of #lazy\/xml-parser/);
    writeFileSync(join(folder, 'index.mjs'), 'export const b=()=>import("#lazy/credential-provider-ini/dist-es/x.js");');
    await expect(buildLazyChunks(folder, esbuildOptionsFor(functionBundling))).rejects.toThrow(/inside a chunk/);
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

/** The save's bundle for this machine's Node, with its chunks, as the construct's hook builds them: built once, run by both suites below. */
const operation = operationsById.tenantLocationSave;
const bundleFolder = mkdtempSync(join(tmpdir(), 'lazy-chunks-'));
folders.push(bundleFolder);
let chunksBuilt: Promise<string[]> | undefined;
const bundleWithChunks = (): Promise<string[]> =>
  (chunksBuilt ??= (async () => {
    const options = esbuildOptionsFor(functionBundling, { target: `node${process.versions.node.split('.')[0]}` });
    await build({ ...options, absWorkingDir: repositoryRoot, entryPoints: [join(repositoryRoot, operation.handler)], outfile: join(bundleFolder, 'index.mjs') });
    return buildLazyChunks(bundleFolder, options);
  })());

/** Writes, in a bundle's bundleFolder, the runner that serves process.env.EVENT as Lambda would and prints the proxy result; returns its path. */
const runnerIn = (at: string): string => {
  const runner = join(at, 'run.mjs');
  writeFileSync(
    runner,
    "const { handler } = await import('./index.mjs');" +
      "const result = await handler(JSON.parse(process.env.EVENT), { functionName: 'f', getRemainingTimeInMillis: () => 10000, awsRequestId: 'r' });" +
      'process.stdout.write(JSON.stringify(result));',
  );
  return runner;
};

describe('a bundle with its chunks, run as Lambda runs it', () => {
  beforeAll(async () => {
    // The XML parser's and the SDK's: tracing is part of the bundle (shared/observability/tracing.ts), no chunk of its own.
    expect(await bundleWithChunks()).toEqual(chunkFilesWith('xml-parser'));
  }, 120_000);

  /** Serves one event from the bundle in a fresh node process and returns the proxy result. */
  const invoke = async (body: string, contentType: string, extraEnv: Record<string, string> = {}) => {
    const event = await proxyEvent(operation, { body, contentType, principal: principalOf(1) });
    const runner = runnerIn(bundleFolder);
    const output = execFileSync(process.execPath, [runner], {
      cwd: bundleFolder,
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
      LAMBDA_TASK_ROOT: bundleFolder,
      _X_AMZN_TRACE_ID: 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1',
    };
    const result = await invoke('<TenantLocationInfo><Name>x</Nam></TenantLocationInfo>', 'application/xml', activeTracing);
    expect(result.statusCode).toBe(400);
  }, 60_000);
});

describe("the SDK's credential chain, past the environment, through its chunks", () => {
  // A save reaches DynamoDB, whose endpoint here is a server that keeps each request's Authorization header and
  // refuses the call: the header says which credentials signed it, and so which link of the chain found them.
  const signedWith: string[] = [];
  let dynamodb: Server;
  let containerCredentials: Server;
  const portOf = (server: Server) => (server.address() as AddressInfo).port;

  beforeAll(async () => {
    await bundleWithChunks();
    dynamodb = createServer((request, response) => {
      signedWith.push(/Credential=([^/]+)\//.exec(request.headers.authorization ?? '')?.[1] ?? 'unsigned');
      request.resume();
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', message: 'Requested resource not found' }));
    });
    // The container credentials endpoint (ECS tasks, EKS Pod Identity): what fromHttp reads.
    containerCredentials = createServer((request, response) => {
      request.resume();
      response.writeHead(request.headers.authorization === 'container-token' ? 200 : 403, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ AccessKeyId: 'AKIDFROMCONTAINER', SecretAccessKey: 'secret', Token: 'token', Expiration: new Date(Date.now() + 3_600_000).toISOString() }));
    });
    await Promise.all([dynamodb, containerCredentials].map((server) => new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([dynamodb, containerCredentials].map((server) => new Promise((closed) => server.close(closed))));
  });

  /** Serves one valid save from the bundle in `at` (a fresh node process, no credentials unless given) and returns the key that signed its call. */
  const keyThatSigned = async (credentialEnv: Record<string, string>, at = bundleFolder) => {
    const event = await proxyEvent(operation, { body: JSON.stringify({ Name: `Chain ${signedWith.length}` }), contentType: 'application/json', principal: principalOf(1) });
    const runner = runnerIn(at);
    const before = signedWith.length;
    const { stdout } = await promisify(execFile)(process.execPath, [runner], {
      cwd: at,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: at,
        EVENT: JSON.stringify(event),
        TABLE_NAME: 'none',
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${portOf(dynamodb)}`,
        AWS_MAX_ATTEMPTS: '1',
        // No instance metadata endpoint: a chain that fell through to it must fail at once, not wait for one.
        AWS_EC2_METADATA_DISABLED: 'true',
        LOG_LEVEL: 'ERROR',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        ...credentialEnv,
      },
    });
    expect(JSON.parse(stdout).statusCode).toBeGreaterThanOrEqual(500);
    return signedWith.slice(before);
  };

  it('with credentials in the environment (Lambda), signs with them and needs none of the chunks', async () => {
    const withoutChunks = mkdtempSync(join(tmpdir(), 'lazy-credentials-env-'));
    folders.push(withoutChunks);
    cpSync(bundleFolder, withoutChunks, { recursive: true });
    for (const chunk of sdkChunkFiles) rmSync(join(withoutChunks, chunk));
    expect(await keyThatSigned({ AWS_ACCESS_KEY_ID: 'AKIDFROMENV', AWS_SECRET_ACCESS_KEY: 'secret' }, withoutChunks)).toEqual(['AKIDFROMENV']);
  }, 60_000);

  it('from a container credentials endpoint: the http and metadata chunks', async () => {
    expect(
      await keyThatSigned({ AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${portOf(containerCredentials)}/credentials`, AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-token' }),
    ).toEqual(['AKIDFROMCONTAINER']);
  }, 60_000);

  it('from a profile of the shared credentials file: the ini chunk', async () => {
    const credentialsFile = join(bundleFolder, 'credentials');
    writeFileSync(credentialsFile, '[chain]\naws_access_key_id = AKIDFROMPROFILE\naws_secret_access_key = secret\n');
    expect(await keyThatSigned({ AWS_PROFILE: 'chain', AWS_SHARED_CREDENTIALS_FILE: credentialsFile, AWS_CONFIG_FILE: join(bundleFolder, 'no-config') })).toEqual(['AKIDFROMPROFILE']);
  }, 60_000);

  it('from a credential process named by a profile: the ini chunk runs the process chunk\'s provider', async () => {
    const script = join(bundleFolder, 'credential-process.mjs');
    writeFileSync(script, 'process.stdout.write(JSON.stringify({ Version: 1, AccessKeyId: "AKIDFROMPROCESS", SecretAccessKey: "secret" }));');
    const configFile = join(bundleFolder, 'config');
    writeFileSync(configFile, `[profile viaprocess]\ncredential_process = ${process.execPath} ${script}\n`);
    expect(await keyThatSigned({ AWS_PROFILE: 'viaprocess', AWS_CONFIG_FILE: configFile, AWS_SHARED_CREDENTIALS_FILE: join(bundleFolder, 'no-credentials') })).toEqual(['AKIDFROMPROCESS']);
  }, 60_000);
});
