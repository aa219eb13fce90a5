// Integration: the local stack never leaves a DynamoDB Local JVM behind, even when its Node process is killed
// with SIGKILL (no exit handler runs), and it stops by itself when the process that started it goes away: its
// stdin closes (--exit-with-stdin) or it is re-parented (the tsx CLI of `npm start` killed with SIGKILL), and
// `npm start` stops it all on SIGTERM.
import { execFileSync } from 'node:child_process';
import { spawnLocalStack, type LocalStackProcess, type SpawnLocalStackOptions } from '../../support/local-stack-process';

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
