// Unit tests of the cloud assembly's lock (infra/local/cloud-assembly.ts `withAssemblyLock`): concurrent starts
// synthesize once, and a lock whose holder is gone never blocks the next start. Ctrl-C during a first start's synth
// exited the process before the lock's `finally`, and every later `npm start` in that checkout waited silently for
// the lock's 15-minute age limit.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from '@jest/globals';
import { withAssemblyLock } from '#infra/local/cloud-assembly';

const root = mkdtempSync(join(tmpdir(), 'assembly-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fifteenMinutes = 15 * 60_000;

/** The pid of a process that has exited. */
const deadPid = (): number => Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout.trim());

it('takes at once a lock whose holder has exited, and says nothing about waiting', async () => {
  const outdir = join(root, 'dead');
  mkdirSync(`${outdir}.lock`);
  writeFileSync(join(`${outdir}.lock`, 'pid'), String(deadPid()));
  const lines: string[] = [];
  const started = Date.now();

  expect(await withAssemblyLock(outdir, fifteenMinutes, async () => readFileSync(join(`${outdir}.lock`, 'pid'), 'utf8'), (line) => lines.push(line))).toBe(String(process.pid));
  expect({ waitedMs: Date.now() - started < 5_000, lines, left: existsSync(`${outdir}.lock`) }).toEqual({ waitedMs: true, lines: [], left: false });
});

it('waits for a live holder, saying so once, and goes on when it lets go', async () => {
  const outdir = join(root, 'live');
  const lines: string[] = [];
  let release!: () => void;
  const held = withAssemblyLock(outdir, fifteenMinutes, () => new Promise<string>((resolve) => (release = () => resolve('first'))));
  const second = withAssemblyLock(outdir, fifteenMinutes, async () => 'second', (line) => lines.push(line));
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(lines).toEqual([expect.stringContaining(`waiting for the synth of process ${process.pid}`)]);
  release();
  expect(await Promise.all([held, second])).toEqual(['first', 'second']);
  expect(existsSync(`${outdir}.lock`)).toBe(false);
});

it('takes a lock without a pid once it is older than a holder needs to write one (a lock of an older version)', async () => {
  const outdir = join(root, 'unclaimed');
  mkdirSync(`${outdir}.lock`);
  const old = new Date(Date.now() - 60_000);
  const { utimesSync } = await import('node:fs');
  utimesSync(`${outdir}.lock`, old, old);
  expect(await withAssemblyLock(outdir, fifteenMinutes, async () => 'taken')).toBe('taken');
});

it("removes its lock when the process exits during the work (a Ctrl-C during a synth)", () => {
  const outdir = join(root, 'exiting');
  const script = [
    "import { withAssemblyLock } from './infra/local/cloud-assembly.ts';",
    `void withAssemblyLock(${JSON.stringify(outdir)}, 60000, () => { setTimeout(() => process.exit(130), 50); return new Promise(() => undefined); });`,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8' });
  expect({ status: run.status, left: existsSync(`${outdir}.lock`) }).toEqual({ status: 130, left: false });
});
