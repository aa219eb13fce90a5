// Integration: the function host's execution environments (infra/local/function-host.ts), real processes running a
// fixture handler. As on Lambda, an environment runs one invocation at a time (concurrent invocations take separate
// environments, each with its own access key; an idle one is reused, an extra one left idle stopped; past the
// limit, they wait); a timed-out
// invocation's environment is killed, so its handler never runs on after the answer; the fault mode's crash and
// timeout effects, and a kill of one environment, fail only what that environment ran.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { buildSync } from 'esbuild';
import { FaultEngine } from '#infra/local/faults';
import { startIsolatedFunctions, type IsolatedFunction, type IsolatedFunctions } from '#infra/local/function-host';
import { InvocationTimeout, nodeExecutableFor, nodeMajorOf, repoRoot } from '#infra/local/lambda-runtime';
import { functionRuntime } from '#infra/constructs/operation-function';

const quiet = () => undefined;
const workDir = mkdtempSync(join(tmpdir(), 'function-host-'));
const probe = (timeoutMs = 10_000): IsolatedFunction => ({
  functionName: 'probe',
  handler: 'test/support/fixtures/environment-probe-handler.ts',
  environment: {},
  credentials: { accessKeyId: 'LOCALprobe', secretAccessKey: 'local' },
  timeoutMs,
});
const running: IsolatedFunctions[] = [];
const host = (...args: Parameters<typeof startIsolatedFunctions>) => {
  const functions = startIsolatedFunctions(...args);
  running.push(functions);
  return functions;
};

afterEach(async () => {
  await Promise.all(running.splice(0).map((functions) => functions.close()));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface Probed {
  readonly pid: number;
  readonly accessKeyId: string;
  readonly nodeVersion: string;
  readonly executionEnv: string;
  readonly heapSizeLimit: number;
}
const invokeProbe = (functions: IsolatedFunctions, event: { waitMs?: number; marker?: string } = {}, callerTimeoutMs = 20_000) =>
  functions.invoke<Probed>({ functionName: 'probe', handler: 'unused' }, event, callerTimeoutMs);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const until = async (check: () => boolean, what: string, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * The probe as the template gives a function: a built asset (plain ESM, run by the bundled function process, no
 * TypeScript loader), its MemorySize, and the Runtime with the executable the local stack resolves for it.
 */
const assetProbe = (): IsolatedFunction => {
  const taskRoot = join(workDir, 'asset');
  mkdirSync(taskRoot, { recursive: true });
  buildSync({
    entryPoints: [join(repoRoot, 'test/support/fixtures/environment-probe-handler.ts')],
    outfile: join(taskRoot, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'silent',
  });
  return {
    ...probe(),
    memoryLimitInMB: 512,
    asset: { taskRoot, modulePath: join(taskRoot, 'index.mjs'), exportName: 'handler', handler: 'index.handler' },
    runtime: { name: functionRuntime.name, execPath: nodeExecutableFor(functionRuntime.name).path },
  };
};

describe('the Node.js a function runs on', () => {
  it("is the one its Runtime names, with Lambda's heap flags, while the stack stays on its own", async () => {
    const functions = host([assetProbe()], quiet);
    const probed = await invokeProbe(functions);
    expect(probed.nodeVersion).toMatch(new RegExp(`^v${nodeMajorOf(functionRuntime.name)}\\.`));
    expect(probed.executionEnv).toBe(`AWS_Lambda_${functionRuntime.name}`);
    // 512 MB: --max-old-space-size=461 plus the young generation; Node's own default is several times more.
    expect(probed.heapSizeLimit / 2 ** 20).toBeGreaterThan(461);
    expect(probed.heapSizeLimit / 2 ** 20).toBeLessThan(600);
  });

  it('is the stack\'s own for a function without a Runtime (a TypeScript fixture run under tsx)', async () => {
    const functions = host([probe()], quiet);
    expect((await invokeProbe(functions)).nodeVersion).toBe(process.version);
  });
});

describe('execution environments', () => {
  it('runs concurrent invocations in separate environments, each with its own key, and reuses an idle one', async () => {
    const functions = host([probe()], quiet);
    const [first, second] = await Promise.all([invokeProbe(functions, { waitMs: 300 }), invokeProbe(functions, { waitMs: 300 })]);
    expect(first!.pid).not.toBe(second!.pid);
    expect([first!.accessKeyId, second!.accessKeyId].sort()).toEqual(['LOCALprobe', 'LOCALprobeENV2']);
    const again = await invokeProbe(functions);
    expect([first!.pid, second!.pid]).toContain(again.pid);
  }, 60_000);

  it('stops an extra environment left idle, and keeps the first warm', async () => {
    const functions = host([probe()], quiet, { idleEnvironmentMs: 200 });
    const both = await Promise.all([invokeProbe(functions, { waitMs: 300 }), invokeProbe(functions, { waitMs: 300 })]);
    const extra = both.find((probed) => probed.accessKeyId !== 'LOCALprobe')!;
    const first = both.find((probed) => probed.accessKeyId === 'LOCALprobe')!;
    await until(() => !alive(extra.pid), 'the idle extra environment to stop');
    expect(alive(first.pid)).toBe(true);
    expect((await invokeProbe(functions)).pid).toBe(first.pid);
  }, 60_000);

  it('makes an invocation wait for a free environment past the limit', async () => {
    const functions = host([probe()], quiet, { maxEnvironments: 1 });
    const both = await Promise.all([invokeProbe(functions, { waitMs: 200 }), invokeProbe(functions, { waitMs: 200 })]);
    expect(both[0]!.pid).toBe(both[1]!.pid);
  }, 60_000);

  it('kills a timed-out invocation\'s environment: its handler never finishes after the answer', async () => {
    // Cold: its init is not on the invocation's clock, so the timeout below is the handler's.
    const functions = host([probe(1_500)], quiet);
    const marker = join(workDir, 'timed-out');
    const outcome = invokeProbe(functions, { waitMs: 4_000, marker });
    await expect(outcome).rejects.toBeInstanceOf(InvocationTimeout);
    await expect(outcome).rejects.toMatchObject({ limit: 'function' });
    const pid = Number(readFileSync(`${marker}.started`, 'utf8'));
    await until(() => !alive(pid), 'the timed-out environment to be gone');
    expect(existsSync(`${marker}.finished`)).toBe(false);
    // The next invocation gets a new environment.
    expect((await invokeProbe(functions)).pid).not.toBe(pid);
  }, 60_000);

  it('kills one environment by its key, failing only the invocation it runs', async () => {
    const functions = host([probe()], quiet);
    const first = invokeProbe(functions, { waitMs: 1_500 });
    const second = invokeProbe(functions, { waitMs: 1_500, marker: join(workDir, 'survivor') });
    await until(() => existsSync(join(workDir, 'survivor.started')), 'both invocations to run', 30_000);
    await functions.kill('probe', 'LOCALprobe');
    const outcomes = await Promise.allSettled([first, second]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
  }, 60_000);
});

/** The slow-init fixture: its module takes `initMs` to load (then fails, with `fails`). */
const slowInit = (initMs: number, timeoutMs: number, fails = false, marker?: string): IsolatedFunction => ({
  functionName: 'slowInit',
  handler: 'test/support/fixtures/slow-init-handler.ts',
  environment: { INIT_MS: String(initMs), ...(fails ? { INIT_FAILS: '1' } : {}), ...(marker ? { INIT_MARKER: marker } : {}) },
  credentials: { accessKeyId: 'LOCALslowInit', secretAccessKey: 'local' },
  timeoutMs,
});
const invokeSlowInit = (functions: IsolatedFunctions, callerTimeoutMs = 20_000) =>
  functions.invoke<{ remainingMs: number }>({ functionName: 'slowInit', handler: 'unused' }, {}, callerTimeoutMs);

describe("an environment's Init phase", () => {
  it("is not on the invocation's clock: a cold start longer than the function's timeout still runs the handler", async () => {
    const functions = host([slowInit(2_000, 1_000)], quiet);
    const answer = await invokeSlowInit(functions);
    // The handler started with its timeout ahead of it, not what a 2 s init would have left of a 1 s one (nothing).
    expect(answer.remainingMs).toBeGreaterThan(0);
    expect(answer.remainingMs).toBeLessThanOrEqual(1_000);
  }, 60_000);

  it("past Lambda's init limit, the rest of the init is on the invocation's clock", async () => {
    const functions = host([slowInit(3_000, 1_000)], quiet, { initLimitMs: 200 });
    await expect(invokeSlowInit(functions)).rejects.toMatchObject({ name: 'InvocationTimeout', limit: 'function' });
  }, 60_000);

  it("is on the caller's clock: a caller whose timeout passes during the init times out", async () => {
    const functions = host([slowInit(3_000, 10_000)], quiet);
    await expect(invokeSlowInit(functions, 500)).rejects.toMatchObject({ name: 'InvocationTimeout', limit: 'caller' });
  }, 60_000);

  it('fails the invocation with the init\'s own error; the next invocation is a new cold start', async () => {
    const marker = join(workDir, 'init-loads');
    const functions = host([slowInit(0, 5_000, true, marker)], quiet);
    await expect(invokeSlowInit(functions)).rejects.toThrow('the module failed to load');
    await expect(invokeSlowInit(functions)).rejects.toThrow('the module failed to load');
    // Two loads: the failed environment was not taken again.
    expect(readFileSync(marker, 'utf8')).toBe('loaded\nloaded\n');
  }, 60_000);
});

describe('the fault mode at the function host', () => {
  it('crashes after the last write: the handler finished, the caller gets a runtime exit', async () => {
    const faults = new FaultEngine({ rules: [{ name: 'crash', service: 'lambda', caller: 'probe', nth: [1], effect: { type: 'crash', when: 'after-last-write' } }] }, quiet);
    const functions = host([probe()], quiet, { faults });
    const marker = join(workDir, 'crashed');
    await expect(invokeProbe(functions, { marker })).rejects.toThrow('Runtime exited with error: signal SIGKILL');
    expect(existsSync(`${marker}.finished`)).toBe(true);
    expect(alive(Number(readFileSync(`${marker}.finished`, 'utf8')))).toBe(false);
    expect((await invokeProbe(functions)).pid).toBeGreaterThan(0);
  }, 60_000);

  it('crashes before the call: the handler never runs', async () => {
    const faults = new FaultEngine({ rules: [{ name: 'init', service: 'lambda', nth: [1], effect: { type: 'crash', when: 'before-first-call' } }] }, quiet);
    const functions = host([probe()], quiet, { faults });
    const marker = join(workDir, 'never');
    await expect(invokeProbe(functions, { marker })).rejects.toThrow('Runtime exited');
    expect(existsSync(`${marker}.started`)).toBe(false);
  }, 60_000);

  it('throttles an invocation: TooManyRequestsException, no environment started, nothing run; the next one runs', async () => {
    const marker = join(workDir, 'throttled-init');
    const faults = new FaultEngine({ rules: [{ name: 'throttle', service: 'lambda', nth: [1], effect: { type: 'throttle' } }] }, quiet);
    const functions = host([slowInit(0, 5_000, false, marker)], quiet, { faults });
    await expect(invokeSlowInit(functions)).rejects.toMatchObject({ name: 'TooManyRequestsException' });
    expect(existsSync(marker)).toBe(false);
    await expect(invokeSlowInit(functions)).resolves.toMatchObject({ remainingMs: expect.any(Number) });
    // One module load: the throttled invocation started no environment.
    expect(readFileSync(marker, 'utf8')).toBe('loaded\n');
    expect(faults.firedFaults().map((fired) => fired.rule)).toEqual(['throttle']);
  }, 60_000);

  it('times an invocation out at the effect\'s ms, as the function\'s own timeout', async () => {
    const faults = new FaultEngine({ rules: [{ name: 'slow', service: 'lambda', nth: [1], effect: { type: 'timeout', ms: 200 } }] }, quiet);
    const functions = host([probe()], quiet, { faults });
    await expect(invokeProbe(functions)).rejects.toMatchObject({ name: 'InvocationTimeout', limit: 'function' });
    expect(faults.firedFaults().map((fired) => fired.rule)).toEqual(['slow']);
  }, 60_000);
});
