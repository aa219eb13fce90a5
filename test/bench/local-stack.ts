// Benchmark of the local stack itself (issue 15), not of the service: prints figures, asserts nothing.
//
//   npx tsx test/bench/local-stack.ts [<repository root>]   (default: this repository)
//
// Starts `infra/local/start.ts --in-memory --port 0` of the given checkout (so an older checkout can be measured
// the same way: "before"), and reports: the time from spawn to the ready line (cdk.out already up to date), the
// first call of every HTTP operation (its function's cold start, the authorizer's included in the first), a warm
// call of each, the resident memory of the whole process tree with every function warm (stack, function
// processes, DynamoDB Local's JVM), and the ratio of a warm TenantLocation/GetAll through the gateway to the same
// handler called in this process against the same DynamoDB Local.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { consumedQueueDefinitions } from '#shared/events/queues';
import { operations } from '#shared/operations/index';
import { bearerToken, lambdaContext, proxyEvent } from './events';

const root = resolve(process.argv[2] ?? '.');
const principal = { tenantId: 7_150_900, websiteId: 1, userId: 1, organisationId: 'org_7150900' };

const processTree = (pid: number): number[] => {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  const tree: number[] = [];
  const walk = (id: number) => {
    tree.push(id);
    for (const child of children.get(id) ?? []) walk(child);
  };
  walk(pid);
  return tree;
};

const rssKiB = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const started = Date.now();
const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--in-memory', '--port', '0', '--ready-json', '--exit-with-stdin'], {
  cwd: root,
  env: { ...process.env, LOG_LEVEL: 'ERROR' },
  stdio: ['pipe', 'pipe', 'ignore'],
});
const ready = await new Promise<{ baseUrl: string; dynamodbEndpoint: string; sqsEndpoint: string; tableName: string; queueUrls: Record<string, string> }>((done, fail) => {
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (const line of pending.split('\n')) if (line.startsWith('{"ready"')) done(JSON.parse(line));
  });
  child.once('exit', (code) => fail(new Error(`the stack exited (${code})`)));
});
const readyMs = Date.now() - started;
child.stdout.on('data', () => undefined);

const token = await bearerToken(principal);
const call = async (method: string, path: string, body?: string) => {
  const at = performance.now();
  const response = await fetch(`${ready.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - at };
};

const rows: string[] = [];
for (const operation of operations.filter((candidate) => candidate.auth === 'bearer')) {
  const path = operation.path.replace(/\{\w+\}/g, '1').replace(/\/$/, '');
  const body = operation.method === 'GET' || operation.method === 'DELETE' ? undefined : '{}';
  const first = await call(operation.method, path, body);
  const warm = await call(operation.method, path, body);
  rows.push(`| ${operation.operationId} | ${first.status} | ${first.ms.toFixed(0)} | ${warm.ms.toFixed(1)} |`);
}

// Every queue consumer warm too: one message each (a malformed one: the consumer runs, reports it failed, and it
// waits out its visibility timeout), then wait until every function has a process.
const sqs = new SQSClient({ region: 'us-east-1', endpoint: ready.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
for (const queue of consumedQueueDefinitions) {
  await sqs.send(new SendMessageCommand({ QueueUrl: ready.queueUrls[queue.logicalName]!, MessageBody: '{}' }));
}
sqs.destroy();
const functionCount = operations.filter((operation) => operation.auth === 'bearer').length + 1 + consumedQueueDefinitions.length;
const countFunctions = () => processTree(child.pid!).filter((pid) => commandOf(pid).includes('function-process')).length;
for (let waited = 0; waited < 60 && countFunctions() < functionCount; waited += 1) await new Promise((done) => setTimeout(done, 1000));
await new Promise((done) => setTimeout(done, 3000));

const tree = processTree(child.pid!);
const memory = tree.map((pid) => ({ pid, kib: rssKiB(pid), command: commandOf(pid) }));
const total = memory.reduce((sum, entry) => sum + entry.kib, 0);
const jvm = memory.filter((entry) => entry.command.includes('java')).reduce((sum, entry) => sum + entry.kib, 0);
const functions = memory.filter((entry) => entry.command.includes('function-process'));

// Warm GetAll through the gateway vs the same handler in this process, against the same DynamoDB Local.
const gatewayTimes: number[] = [];
for (let index = 0; index < 30; index += 1) gatewayTimes.push((await call('GET', '/TenantLocation/GetAll')).ms);
Object.assign(process.env, {
  TABLE_NAME: ready.tableName,
  AWS_ENDPOINT_URL_DYNAMODB: ready.dynamodbEndpoint,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  LOG_LEVEL: 'ERROR',
});
const getAll = operations.find((operation) => operation.operationId === 'tenantLocationGetAll')!;
const { handler } = (await import(resolve(root, getAll.handler))) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
const inProcessTimes: number[] = [];
for (let index = 0; index < 31; index += 1) {
  const event = await proxyEvent(getAll, { principal });
  const at = performance.now();
  await handler(event, lambdaContext('tenantLocationGetAll', 10_000));
  if (index > 0) inProcessTimes.push(performance.now() - at);
}
child.stdin.end();

process.stdout.write(`Local stack of ${root}

- ready after ${(readyMs / 1000).toFixed(1)} s (spawn to ready line; cdk.out up to date)
- resident memory, every function warm (HTTP operations, authorizer, queue consumers): ${(total / 1024).toFixed(0)} MiB in ${tree.length} processes ` +
  `(DynamoDB Local's JVM ${(jvm / 1024).toFixed(0)} MiB; ${functions.length} function processes, ` +
  `${(functions.reduce((sum, entry) => sum + entry.kib, 0) / 1024).toFixed(0)} MiB, median ${(median(functions.map((entry) => entry.kib)) / 1024).toFixed(0)} MiB each)
- the other processes: ${memory
  .filter((entry) => !entry.command.includes('function-process') && !entry.command.includes('java'))
  .map((entry) => `${(entry.kib / 1024).toFixed(0)} MiB ${entry.command.split(' ').slice(0, 3).join(' ').slice(0, 80)}`)
  .join('; ')}
- warm TenantLocation/GetAll: gateway p50 ${median(gatewayTimes).toFixed(1)} ms, in-process handler p50 ${median(inProcessTimes).toFixed(1)} ms, ` +
  `ratio ${(median(gatewayTimes) / median(inProcessTimes)).toFixed(1)}x

| operation | first status | first call ms (cold) | warm ms |
|---|---|---|---|
${rows.join('\n')}
`);
