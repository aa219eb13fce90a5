// Integration: `npm start` on a machine without Java says so in one line, with no stack trace, and exits 1 (the
// stack's DynamoDB Local needs a JVM: infra/local/dynamodb-local.ts). PATH holds only node and sh here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAssemblyDir } from '#infra/local/cloud-assembly';
import { repoRoot } from '#test/support/local-stack-process';

it('prints the one line that names Java and exits 1', () => {
  const bin = mkdtempSync(join(tmpdir(), 'no-java-'));
  try {
    symlinkSync(process.execPath, join(bin, 'node'));
    symlinkSync('/bin/sh', join(bin, 'sh'));
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin };
    delete env.NODE_OPTIONS;
    delete env.JAVA_HOME;
    // The assembly global-setup.ts synthesized: nothing to synthesize, so the first thing that needs a program is Java.
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--port', '0', '--in-memory', '--assembly', defaultAssemblyDir], {
      cwd: repoRoot,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      '[local-stack] DynamoDB Local needs Java 17 or newer on PATH (e.g. `sudo apt-get install openjdk-17-jre-headless`, ' +
        '`brew install openjdk@17`); no `java` was found.\n',
    );
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});
