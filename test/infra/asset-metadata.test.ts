// Infra tests: the assembly `cdk synth` writes (the local stack's cdk.out/, synthesized offline by the project's
// CLI when stale) stays runnable by SAM CLI and LocalStack: every function carries the asset metadata they read
// (`aws:asset:path`, `aws:asset:property`), and its asset holds the module its Handler names, built by esbuild.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { assemblyStacks, ensureCloudAssembly } from '../../infra/local/cloud-assembly';
import { readAssemblyStack, resourcesOfType, type AssemblyStack } from '../../infra/local/template';
import { handlerModule } from '../../infra/local/template-functions';
import { consumedQueueDefinitions } from '../../shared/events/queues';
import { operations } from '../../shared/operations';

let api: AssemblyStack;

beforeAll(async () => {
  api = readAssemblyStack(await ensureCloudAssembly(), assemblyStacks.api);
}, 15 * 60_000);

describe('the synthesized API stack', () => {
  it('declares one function per operation, per queue consumer, and the authorizer', () => {
    expect(resourcesOfType(api.template, 'AWS::Lambda::Function')).toHaveLength(operations.length + consumedQueueDefinitions.length + 1);
  });

  it('gives every function the asset metadata SAM CLI and LocalStack read, pointing at a built module', () => {
    for (const [logicalId, fn] of resourcesOfType(api.template, 'AWS::Lambda::Function')) {
      expect([logicalId, fn.Metadata?.['aws:asset:property']]).toEqual([logicalId, 'Code']);
      const assetPath = fn.Metadata?.['aws:asset:path'];
      expect(typeof assetPath).toBe('string');
      const assetDir = join(api.assemblyDir, assetPath as string);
      expect(existsSync(assetDir)).toBe(true);
      expect(handlerModule(assetDir, String(fn.Properties?.Handler)).modulePath).toMatch(/index\.mjs$/);
    }
  });
});
