// Chaos tier: jest globalSetup of the `chaos` project. Each chaos test file starts a stack of its own (with its fault
// engine), so this only makes sure the cloud assembly is synthesized (not inside a file's start timeout) and names
// the folder where the files record their cells for the table global-teardown.ts prints.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCloudAssembly } from '#infra/local/cloud-assembly';
import { repoRoot } from '#test/support/local-stack-process';

export default async function globalSetup(): Promise<void> {
  await ensureCloudAssembly({ log: (line) => process.stderr.write(`${line}\n`) });
  const dir = join(repoRoot, '.local', `chaos-results-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  process.env.CHAOS_RESULTS_DIR = dir;
}
