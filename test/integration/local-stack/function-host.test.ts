// Integration: the function host's execution environments (infra/local/function-host.ts), real processes running a
// fixture handler. As on Lambda, an environment runs one invocation at a time (concurrent invocations take separate
// environments, each with its own access key; an idle one is reused, an extra one left idle stopped; past the
// limit, they wait); a timed-out
// invocation's environment is killed, so its handler never runs on after the answer; the fault mode's crash and
// timeout effects, and a kill of one environment, fail only what that environment ran.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { FaultEngine } from '#infra/local/faults';
import { startIsolatedFunctions, type IsolatedFunction, type IsolatedFunctions } from '#infra/local/function-host';
import { InvocationTimeout } from '#infra/local/lambda-runtime';

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
    const functions = host([probe(1_500)], quiet);
    // Warm (a cold start under tsx on a loaded machine may itself pass 1.5 s: then once more), so the timeout below
    // is the handler's.
    await invokeProbe(functions).catch(() => invokeProbe(functions));
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

  it('times an invocation out at the effect\'s ms, as the function\'s own timeout', async () => {
    const faults = new FaultEngine({ rules: [{ name: 'slow', service: 'lambda', nth: [1], effect: { type: 'timeout', ms: 200 } }] }, quiet);
    const functions = host([probe()], quiet, { faults });
    await expect(invokeProbe(functions)).rejects.toMatchObject({ name: 'InvocationTimeout', limit: 'function' });
    expect(faults.firedFaults().map((fired) => fired.rule)).toEqual(['slow']);
  }, 60_000);
});
