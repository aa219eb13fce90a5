// Integration: the payment function as Lambda runs it (its esbuild bundle and the lazy chunks the construct's
// afterBundling hook builds, in a plain node process, no tsx and no repository node_modules on the path), against
// DynamoDB Local. The Idempotency-Key's claim is part of the bundle (shared/data/idempotency.ts, no lazy chunk): a
// replay across two fresh processes must give the first answer, and a request without a key writes no claim.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { eagerWrappersIn } from '../../../infra/build/eager-wrappers.mjs';
import { buildLazyChunks } from '../../../infra/build/lazy-chunks.mjs';
import { chunkFilesWith } from '#test/support/bundle-chunks';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { operationsById } from '#shared/operations/index';
import { principalOf } from '#test/bench/context';
import { proxyEvent } from '#test/bench/events';

const folder = mkdtempSync(join(tmpdir(), 'bundled-payment-'));
const operation = operationsById.paymentPost;
const tenant = 7_301_001;

beforeAll(async () => {
  const options = esbuildOptionsFor(functionBundling, { target: `node${process.versions.node.split('.')[0]}` });
  await build({ ...options, absWorkingDir: repositoryRoot, entryPoints: [join(repositoryRoot, operation.handler)], outfile: join(folder, 'index.mjs') });
  expect(await buildLazyChunks(folder, options)).toEqual(chunkFilesWith('xml-parser'));
  // And, as that hook does next, each wrapped module's function in parentheses (infra/build/eager-wrappers.mjs).
  expect(eagerWrappersIn(folder).map((entry) => entry.split(':')[0])).toContain('index.mjs');
  writeFileSync(
    join(folder, 'run.mjs'),
    "const { handler } = await import('./index.mjs');" +
      "const result = await handler(JSON.parse(process.env.EVENT), { functionName: 'paymentPost', getRemainingTimeInMillis: () => 10000, awsRequestId: process.env.REQUEST_ID });" +
      // The function writes its metrics (EMF lines) to stdout as Lambda's would: the result is the marked line.
      "process.stdout.write('\\nRESULT ' + JSON.stringify(result) + '\\n');",
  );
}, 120_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** One invocation in a fresh process: the function's environment as the stack sets it, the table of this test run. */
const invoke = async (body: unknown, idempotencyKey?: string) => {
  const event = await proxyEvent(operation, { body: JSON.stringify(body), contentType: 'application/json', principal: principalOf(tenant) });
  if (idempotencyKey !== undefined) {
    event.headers = { ...event.headers, 'Idempotency-Key': idempotencyKey };
    event.multiValueHeaders = { ...event.multiValueHeaders, 'Idempotency-Key': [idempotencyKey] };
  }
  const output = execFileSync(process.execPath, ['run.mjs'], {
    cwd: folder,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      EVENT: JSON.stringify(event),
      REQUEST_ID: `r-${Math.random()}`,
      TABLE_NAME: process.env.TABLE_NAME,
      AWS_ENDPOINT_URL_DYNAMODB: process.env.AWS_ENDPOINT_URL_DYNAMODB,
      AWS_REGION: process.env.AWS_REGION,
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
      LOG_LEVEL: 'ERROR',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  const line = output.split('\n').find((candidate) => candidate.startsWith('RESULT '));
  if (!line) throw new Error(`the function printed no result:\n${output}`);
  return JSON.parse(line.slice('RESULT '.length)) as { statusCode: number; body: string; headers?: Record<string, string> };
};

it('replays the first answer to the same key from a second fresh process', async () => {
  const key = `bundle-${Date.now()}`;
  const first = await invoke({ Object: { Amount: 12.5, Description: 'bundled' } }, key);
  expect(first.statusCode).toBe(201);
  const again = await invoke({ Object: { Amount: 12.5, Description: 'bundled' } }, key);
  expect(again.statusCode).toBe(201);
  expect(JSON.parse(again.body)).toEqual(JSON.parse(first.body));
  // The same key with another request is refused (422).
  const other = await invoke({ Object: { Amount: 99, Description: 'bundled' } }, key);
  expect(other.statusCode).toBe(422);
}, 120_000);

it('records payments without a key', async () => {
  const first = await invoke({ Object: { Amount: 3, Description: 'no key' } });
  const second = await invoke({ Object: { Amount: 3, Description: 'no key' } });
  expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
  expect(JSON.parse(second.body).Value.ID).toBeGreaterThan(JSON.parse(first.body).Value.ID);
}, 120_000);
