// Unit tests of the persistent data directory's lock (infra/local/stack.ts `lockDataDir`): one local stack at a time
// on a data directory (a second one locked DynamoDB Local's SQLite files out from under the first); a lock whose
// process is gone is taken over; the release removes only this process's lock.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { lockDataDir } from '#infra/local/stack';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A process that is alive while the test runs, then killed. */
const otherProcess = () => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });

describe('the data directory lock', () => {
  it('is taken by one stack, refused to a second while the first lives, and released by its owner', () => {
    const dir = freshDir();
    const other = otherProcess();
    try {
      writeFileSync(join(dir, 'stack.lock'), String(other.pid));
      expect(() => lockDataDir(dir)).toThrow(`is in use by another local stack (process ${other.pid}): stop it first, or start this one with --in-memory`);
      expect(readFileSync(join(dir, 'stack.lock'), 'utf8')).toBe(String(other.pid));
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('takes over a lock whose process is gone, and its release removes it', async () => {
    const dir = freshDir();
    const gone = otherProcess();
    gone.kill('SIGKILL');
    await new Promise((resolve) => gone.once('exit', resolve));
    writeFileSync(join(dir, 'stack.lock'), String(gone.pid));
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, 'stack.lock'), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir, 'stack.lock'))).toBe(false);
  });

  it('refuses a lock being taken this instant (created, not yet written), and a release leaves another\'s lock', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'stack.lock'), '');
    expect(() => lockDataDir(dir)).toThrow('is in use by another local stack: stop it first');
    const release = lockDataDir(freshDir());
    writeFileSync(join(dirs[1]!, 'stack.lock'), '12345678');
    release();
    expect(readFileSync(join(dirs[1]!, 'stack.lock'), 'utf8')).toBe('12345678');
  });
});
