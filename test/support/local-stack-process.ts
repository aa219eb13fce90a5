// Test support: runs the local stack (infra/local/start.ts) as a child process and waits for its ready line.
// The child is started with --exit-with-stdin, so it stops by itself if the test runner dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FaultRules } from '#infra/local/faults';
import type { LocalStackEndpoints } from '#infra/local/stack';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The JSON line start.ts prints once everything answers: the stack's endpoints (infra/local/stack.ts) and its pid. */
export interface LocalStackReady extends LocalStackEndpoints {
  readonly ready: true;
  readonly pid: number;
}

export interface LocalStackProcess {
  readonly child: ChildProcess;
  readonly ready: LocalStackReady;
  /** Asks the stack to stop, waits for it (and DynamoDB Local) to be gone; SIGKILLs it past `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnLocalStackOptions {
  /**
   * `node` (default): `node --import tsx infra/local/start.ts`, the stack is the child. `tsx-cli`: through the
   * tsx CLI like `npm start`, which runs the stack as its own child (the stack's pid is then `ready.pid`).
   * `npm-start`: `npm start --` as the README says (npm, its script, the tsx CLI, the stack), without
   * `--exit-with-stdin`, as a person runs it: `stop()` sends SIGTERM, like Ctrl-C or a service manager. `npx`:
   * `npx tsx infra/local/start.ts` (npx, its `sh -c`, the tsx CLI, the stack), likewise without `--exit-with-stdin`.
   */
  readonly launcher?: 'node' | 'tsx-cli' | 'npm-start' | 'npx';
  readonly readyTimeoutMs?: number;
  /** Writes the stack's output to this file, replacing it (default: none). */
  readonly logFile?: string;
  /** Runs this cloud assembly (`--assembly <dir>`) instead of the repository's cdk.out/. */
  readonly assemblyDir?: string;
  /**
   * The fault mode: a profile of infra/local/fault-profiles.json, a rule file's path, a rule object (written to a
   * file under .local/ for `--faults`), or `control` for the control endpoint alone (rules PUT by the test).
   */
  readonly faults?: string | FaultRules;
  /** `--faults-seed`: overrides the rules' seed. */
  readonly faultsSeed?: number;
  /** `--max-environments`: execution environments (processes) per function at most (default 10). */
  readonly maxEnvironments?: number;
}

let ruleFiles = 0;

/** The `--faults*` options of a spawn, and the rule file written for a rule object (removed when the stack stops). */
const faultOptions = (options: SpawnLocalStackOptions): { args: string[]; file?: string } => {
  const seed = options.faultsSeed === undefined ? [] : ['--faults-seed', String(options.faultsSeed)];
  if (options.faults === undefined) return { args: seed };
  if (options.faults === 'control') return { args: ['--faults-control', ...seed] };
  if (typeof options.faults === 'string') return { args: ['--faults', options.faults, ...seed] };
  const file = join(repoRoot, '.local', `faults-${process.pid}-${(ruleFiles += 1)}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(options.faults));
  return { args: ['--faults', file, ...seed], file };
};

const isReadyLine = (line: string): LocalStackReady | undefined => {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(line) as Partial<LocalStackReady>;
    return parsed.ready === true ? (parsed as LocalStackReady) : undefined;
  } catch {
    return undefined;
  }
};

const exitOf = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((done) => child.once('exit', () => done()));

/** Resolves once nothing accepts connections on the endpoint's port (or after `timeoutMs`). */
export const waitUntilClosed = async (endpoint: string, timeoutMs = 10_000): Promise<boolean> => {
  const { hostname, port } = new URL(endpoint);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (!open) return true;
    await new Promise((done) => setTimeout(done, 100));
  }
  return false;
};

export const spawnLocalStack = async (options: SpawnLocalStackOptions = {}): Promise<LocalStackProcess> => {
  const env = { ...process.env };
  // jest's flags (--experimental-vm-modules) are not for the stack.
  delete env.NODE_OPTIONS;
  const faults = faultOptions(options);
  const stackOptions = [
    '--in-memory',
    '--port',
    '0',
    '--ready-json',
    ...(options.assemblyDir ? ['--assembly', options.assemblyDir] : []),
    ...faults.args,
    ...(options.maxEnvironments !== undefined ? ['--max-environments', String(options.maxEnvironments)] : []),
  ];
  const [command, args] =
    options.launcher === 'npm-start'
      ? ['npm', ['start', '--silent', '--', ...stackOptions]]
      : options.launcher === 'npx'
        ? ['npx', ['tsx', 'infra/local/start.ts', ...stackOptions]]
        : [
          process.execPath,
          [
            ...(options.launcher === 'tsx-cli' ? [join(repoRoot, 'node_modules/tsx/dist/cli.mjs')] : ['--import', 'tsx']),
            'infra/local/start.ts',
            ...stackOptions,
            '--exit-with-stdin',
          ],
        ];
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let log: WriteStream | undefined;
  if (options.logFile) {
    mkdirSync(dirname(options.logFile), { recursive: true });
    log = createWriteStream(options.logFile, { flags: 'w' });
  }
  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > 80) tail.shift();
    log?.write(`${line}\n`);
  };

  const ready = await new Promise<LocalStackReady>((resolveReady, rejectReady) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      rejectReady(new Error(`The local stack did not start: ${reason}\n--- its output ---\n${tail.join('\n')}`));
    };
    const timer = setTimeout(() => fail(`no ready line within ${options.readyTimeoutMs ?? 60_000} ms`), options.readyTimeoutMs ?? 60_000);
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        remember(line);
        const parsed = isReadyLine(line);
        if (parsed) {
          clearTimeout(timer);
          resolveReady(parsed);
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line) remember(line);
    });
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code, signal) => fail(`it exited (${code ?? signal})`));
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exitOf(child);
    log?.end();
    if (faults.file) rmSync(faults.file, { force: true });
    throw error;
  });
  // Keep draining output after the ready line: a full pipe would block the stack.
  child.stdout.on('data', () => undefined);
  child.stdin.on('error', () => undefined);

  const stop = async (graceMs = 15_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      if (options.launcher === 'npm-start' || options.launcher === 'npx') child.kill('SIGTERM');
      else child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exitOf(child);
      clearTimeout(timer);
    }
    // After a clean stop the JVM is already gone; after a SIGKILL its watchdog stops it within seconds.
    await waitUntilClosed(ready.dynamodbEndpoint);
    log?.end();
    if (faults.file) rmSync(faults.file, { force: true });
  };

  return { child, ready, stop };
};

/** One log per jest run (concurrent runs in one checkout must not overwrite each other's evidence). */
export const runLogFile = (pid: number = process.pid) => join(repoRoot, '.local', `test-stack-${pid}.log`);

/** The log of the stack this jest run started: global-setup.ts exports its path to the workers. */
export const currentRunLogFile = (): string => {
  const file = process.env.LOCAL_STACK_LOG_FILE;
  if (!file) throw new Error('LOCAL_STACK_LOG_FILE is not set: run the tests through jest so global-setup.ts sets it');
  return file;
};

/**
 * The text of a stack's log once `holds` says it has what a test awaits. A function's lines reach the log through
 * the stack's relay of its process output, a little after the answer they explain, so a test that reads the log
 * right after an answer must wait for them. Throws past `timeoutMs`, naming `what` and the log's last lines.
 */
export const logOnceItHolds = async (file: string, holds: (text: string) => boolean, what: string, timeoutMs = 10_000): Promise<string> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // Not written yet.
    }
    if (holds(text)) return text;
    if (Date.now() > deadline) throw new Error(`${file} did not hold ${what} within ${timeoutMs} ms; it ends:\n${text.split('\n').slice(-10).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** A log line holding every one of `needles`. */
export const lineWith = (text: string, ...needles: readonly string[]): string | undefined =>
  text.split('\n').find((line) => needles.every((needle) => line.includes(needle)));
