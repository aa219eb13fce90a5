// Infra tests: what each function's bundle loads (esbuild with the construct's own settings, metafile only). zod
// stays out of every function: its schemas are the source of truth for the manifest, the OpenAPI document and the
// tests, while functions run their compiled form (shared/compiled/, `npm run validators`).
import { build } from 'esbuild';
import { join } from 'node:path';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { consumedQueueDefinitions } from '#shared/events/queues';
import { operations } from '#shared/operations/index';
import { esbuildOptionsFor } from '#test/bench/bundles';

const modules = [...new Set([...operations.map((operation) => operation.handler), 'functions/authorizer.ts', ...consumedQueueDefinitions.map((definition) => definition.consumer.handler)])];

/** For each input under node_modules/zod, the chain of repository modules that imports it. */
const zodChains = async (module: string): Promise<string[]> => {
  const result = await build({
    ...esbuildOptionsFor(functionBundling),
    absWorkingDir: repositoryRoot,
    entryPoints: [join(repositoryRoot, module)],
    write: false,
    outfile: join(repositoryRoot, '.local', 'bundle-check', 'index.mjs'),
    metafile: true,
  });
  const importers = new Map<string, string>();
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    for (const imported of input.imports) if (!importers.has(imported.path)) importers.set(imported.path, file);
  }
  const chains = new Set<string>();
  for (const file of Object.keys(result.metafile.inputs).filter((input) => input.includes('node_modules/zod/'))) {
    const chain: string[] = [];
    let current: string | undefined = importers.get(file);
    while (current?.includes('node_modules/zod/')) current = importers.get(current);
    while (current && chain.length < 10) {
      chain.push(current);
      current = importers.get(current);
    }
    chains.add(chain.join(' <- '));
  }
  return [...chains];
};

describe('function bundles', () => {
  it.each(modules)('%s bundles no zod', async (module) => {
    // If this fails, the chain shows which import pulls zod in. A function takes its operation from
    // shared/compiled/operations/<area>.ts, not shared/operations/<area>.ts; a schema it uses outside the HTTP stack
    // is listed in infra/build/validators.ts runtimeSchemas and imported from shared/compiled/; plain constants live
    // in zod-free modules (shared/schemas/limits.ts, shared/operations/routes.ts). Then run `npm run validators`.
    expect(await zodChains(module)).toEqual([]);
  });
});
