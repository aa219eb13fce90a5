// Local stack: a running stack's endpoints, in a state file the local tools read (`npm run redrive`, `npm run
// local`), so they find a stack started with --port 0 by themselves. start.ts writes .local/stacks/<pid>.json once
// the stack is ready and removes it when it stops; a file whose process is gone (a SIGKILL) is ignored and removed.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './lambda-runtime';
import { isProcessAlive } from './local-aws';
import type { LocalStackEndpoints } from './stack';

export interface StackState extends LocalStackEndpoints {
  readonly pid: number;
  readonly startedAt: string;
  readonly inMemory: boolean;
}

/** A stack's endpoints alone, as the ready line (start.ts), the state file and the tests read them. */
export const endpointsOf = (stack: LocalStackEndpoints): LocalStackEndpoints => ({
  baseUrl: stack.baseUrl,
  dynamodbEndpoint: stack.dynamodbEndpoint,
  sqsEndpoint: stack.sqsEndpoint,
  tableName: stack.tableName,
  queueUrls: stack.queueUrls,
  iamEdgeEndpoint: stack.iamEdgeEndpoint,
  schedulerEndpoint: stack.schedulerEndpoint,
  kmsEndpoint: stack.kmsEndpoint,
  secretsManagerEndpoint: stack.secretsManagerEndpoint,
  ...(stack.faultsEndpoint ? { faultsEndpoint: stack.faultsEndpoint } : {}),
});

export const stackStateDir = join(repoRoot, '.local', 'stacks');
const stateFile = (pid: number, dir: string) => join(dir, `${pid}.json`);

/** A local tool's refusal: printed as one line, no stack trace. */
export class LocalToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalToolError';
  }
}

export const writeStackState = (stack: LocalStackEndpoints, inMemory: boolean, dir = stackStateDir): void => {
  mkdirSync(dir, { recursive: true });
  const state: StackState = {
    ...endpointsOf(stack),
    pid: process.pid,
    startedAt: new Date().toISOString(),
    inMemory,
  };
  writeFileSync(stateFile(process.pid, dir), `${JSON.stringify(state, null, 2)}\n`);
};

export const removeStackState = (dir = stackStateDir): void => rmSync(stateFile(process.pid, dir), { force: true });

/** The stacks running now, the most recently started first. */
export const runningStacks = (dir = stackStateDir): StackState[] => {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return [];
  }
  return names
    .flatMap((name) => {
      const file = join(dir, name);
      try {
        const state = JSON.parse(readFileSync(file, 'utf8')) as StackState;
        if (isProcessAlive(state.pid)) return [state];
      } catch {
        // a file being written, or not ours: skip it
        return [];
      }
      rmSync(file, { force: true });
      return [];
    })
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
};

/** The running stack a tool should use: the one with `pid`, else the most recently started. */
export const findRunningStack = (pid?: number, dir = stackStateDir): StackState => {
  const stacks = runningStacks(dir);
  if (pid !== undefined) {
    const stack = stacks.find((candidate) => candidate.pid === pid);
    if (!stack) throw new LocalToolError(`no local stack with pid ${pid} is running (running: ${stacks.map((s) => s.pid).join(', ') || 'none'})`);
    return stack;
  }
  const [newest] = stacks;
  if (!newest) throw new LocalToolError('no local stack is running: start one with `npm start` (in another terminal) and try again');
  return newest;
};
