// Integration: the local stack never leaves a DynamoDB Local JVM behind, even when its Node process is killed
// with SIGKILL (no exit handler runs), and it stops by itself when the process that started it goes away: its
// stdin closes (--exit-with-stdin) or it is re-parented (the tsx CLI of `npm start` killed with SIGKILL), and
// `npm start` stops it all on SIGTERM.
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { signDevToken } from '#shared/auth/tokens';
import { repoRoot, spawnLocalStack, waitUntilClosed, type LocalStackProcess, type SpawnLocalStackOptions } from '#test/support/local-stack-process';

// Each test starts its own stack: a JVM start takes seconds on a small machine.
const stackTestTimeoutMs = 90_000;

const stacks: LocalStackProcess[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.stop()));
});

const startStack = async (options: SpawnLocalStackOptions = {}) => {
  const stack = await spawnLocalStack(options);
  stacks.push(stack);
  return stack;
};

/** Pids of the JVMs serving the given DynamoDB endpoint, found by command line like `pgrep -af DynamoDBLocal`. */
const dynamoDbJavaPids = (dynamodbEndpoint: string): number[] => {
  const port = new URL(dynamodbEndpoint).port;
  return execFileSync('ps', ['-eo', 'pid=,comm=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, command, ...args]) => command === 'java' && args.includes('-jar') && args[args.indexOf('-port') + 1] === port)
    .map(([pid]) => Number(pid));
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const stillAliveAfter = async (pids: readonly number[], timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return pids.filter(isAlive);
};

it('kills DynamoDB Local when the stack process is SIGKILLed', async () => {
  const stack = await startStack();
  const javaPids = dynamoDbJavaPids(stack.ready.dynamodbEndpoint);
  expect(javaPids).toHaveLength(1);

  stack.child.kill('SIGKILL');

  expect(await stillAliveAfter(javaPids, 15_000)).toEqual([]);
}, stackTestTimeoutMs);

it('stops everything when its stdin closes (--exit-with-stdin), as when the spawning process dies', async () => {
  const stack = await startStack();
  const javaPids = dynamoDbJavaPids(stack.ready.dynamodbEndpoint);
  expect(javaPids).toHaveLength(1);
  const exited = new Promise<number | null>((resolve) => stack.child.once('exit', (code) => resolve(code)));

  stack.child.stdin?.end();

  expect(await exited).toBe(0);
  expect(javaPids.filter(isAlive)).toEqual([]);
}, stackTestTimeoutMs);

it('stops everything when the tsx CLI that runs it (npm start) is SIGKILLed', async () => {
  const stack = await startStack({ launcher: 'tsx-cli' });
  const stackPid = stack.ready.pid;
  const javaPids = dynamoDbJavaPids(stack.ready.dynamodbEndpoint);
  expect(javaPids).toHaveLength(1);
  expect(stackPid).not.toBe(stack.child.pid);

  stack.child.kill('SIGKILL');

  expect(await stillAliveAfter([stackPid, ...javaPids], 20_000)).toEqual([]);
}, stackTestTimeoutMs);

// npm forwards SIGTERM to its script's process only: the script must exec the tsx CLI (which relays it to the
// stack), or the shell in between dies alone and the whole stack keeps running, re-parented to init.
it('stops everything when npm start is sent SIGTERM', async () => {
  const stack = await startStack({ launcher: 'npm-start' });
  const stackPid = stack.ready.pid;
  const javaPids = dynamoDbJavaPids(stack.ready.dynamodbEndpoint);
  expect(javaPids).toHaveLength(1);
  expect(stackPid).not.toBe(stack.child.pid);

  stack.child.kill('SIGTERM');

  const survivors = await stillAliveAfter([stackPid, ...javaPids], 20_000);
  if (survivors.includes(stackPid)) process.kill(stackPid, 'SIGTERM'); // leave no stack behind when this fails
  expect(survivors).toEqual([]);
}, stackTestTimeoutMs);

/** Every descendant of a process (children, their children...), from `ps`: what "the stack" is, process by process. */
const descendantsOf = (root: number): number[] => {
  const children = new Map<number, number[]>();
  for (const line of execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).split('\n')) {
    const [pid, parent] = line.trim().split(/\s+/).map(Number);
    if (pid && parent) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
};

/** The ports a ready stack listens on: gateway, DynamoDB Local, SQS, the scheduler emulation and the IAM edge. */
const endpointsOf = (stack: LocalStackProcess) => [
  stack.ready.baseUrl,
  stack.ready.dynamodbEndpoint,
  stack.ready.sqsEndpoint,
  stack.ready.schedulerEndpoint,
  stack.ready.iamEdgeEndpoint,
];

/** A call through the gateway, so the authorizer's and an operation's function processes are running too. */
const warmFunctions = async (stack: LocalStackProcess) => {
  const token = await signDevToken({ tenantId: 1, websiteId: 1, userId: 1 });
  const response = await fetch(`${stack.ready.baseUrl}/TenantLocation/GetAll`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
};

// The launchers a person uses. Whichever way the launcher ends, the whole stack (every process under it: the tsx
// CLI, the stack, the JVM, each function's process) ends within 5 s and no port stays bound.
describe.each([
  ['npm start', 'npm-start'],
  ['npx tsx infra/local/start.ts', 'npx'],
] as const)('%s', (_, launcher) => {
  it.each(['SIGTERM', 'SIGKILL'] as const)('leaves no process and no bound port within 5 s of the launcher getting %s', async (signal) => {
    const stack = await startStack({ launcher });
    await warmFunctions(stack);
    const processes = descendantsOf(stack.child.pid!);
    expect(processes).toContain(stack.ready.pid);
    expect(processes.length).toBeGreaterThanOrEqual(4); // at least the stack, the JVM and two function processes

    stack.child.kill(signal);
    const survivors = await stillAliveAfter(processes, 5_000);
    for (const pid of survivors) process.kill(pid, 'SIGKILL'); // leave nothing behind when this fails
    expect(survivors).toEqual([]);
    for (const endpoint of endpointsOf(stack)) expect(await waitUntilClosed(endpoint, 1_000)).toBe(true);
  }, stackTestTimeoutMs);
});

it('answers a busy port with one line naming the port and the option that changes it, and exit code 1', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const busyPort = (holder.address() as AddressInfo).port;
  try {
    for (const [option, what] of [
      ['--sqs-port', 'the SQS server'],
      ['--dynamodb-port', 'DynamoDB Local'],
      ['--port', 'the API gateway'],
    ] as const) {
      const free = option === '--port' ? [] : ['--port', '0'];
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--in-memory', ...free, option, String(busyPort)], {
        cwd: repoRoot,
        env: { ...process.env, NODE_OPTIONS: '' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status).toBe(1);
      const lines = result.stderr.split('\n').filter((line) => line.trim());
      expect(lines).toEqual([expect.stringContaining(`Port ${busyPort} (${what}) is in use`)]);
      expect(lines[0]).toContain(option);
      expect(lines[0]).toContain('--port 0');
      expect(result.stderr).not.toMatch(/EADDRINUSE|Unhandled|    at /);
    }
  } finally {
    holder.close();
  }
}, stackTestTimeoutMs);
