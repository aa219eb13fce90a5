// Infra tests: what each function's bundle loads (esbuild with the construct's own settings, metafile only). zod
// stays out of every function: its schemas are the source of truth for the manifest, the OpenAPI document and the
// tests, while functions run their compiled form (shared/compiled/, `npm run openapi`). And a function bundles
// an AWS SDK client only when one of its grants uses it: every client it carries costs every cold start.
import { build } from 'esbuild';
import { join } from 'node:path';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { consumedQueueDefinitions, queueDefinitions } from '#shared/events/queues';
import type { ResourceGrant } from '#shared/events/queues';
import { resourceGrants } from '#shared/operations/grants';
import { operations } from '#shared/operations/index';
import { testGrantResources } from '#test/support/grant-resources';
import { webhookSigningPath } from '#infra/local/webhook-signing';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { esbuildOptionsFor } from '#test/bench/bundles';

/** Every function's module with the grants it holds (the authorizer holds none). */
const functionGrants = new Map<string, readonly ResourceGrant[]>([
  ...operations.map((operation): readonly [string, readonly ResourceGrant[]] => [operation.handler, ('grants' in operation ? operation.grants : undefined) ?? []]),
  ['functions/authorizer.ts', []],
  ...consumedQueueDefinitions.map((definition) => [definition.consumer.handler, definition.consumer.grants ?? []] as const),
]);
const modules = [...functionGrants.keys()];

/** The queues a function touches: those its grants send to, and the one it consumes. */
const functionQueues = (module: string): string[] => [
  ...queueDefinitions.filter((queue) => (functionGrants.get(module) ?? []).includes(queue.sendGrant)).map((queue) => queue.name),
  ...consumedQueueDefinitions.filter((queue) => queue.consumer.handler === module).map((queue) => queue.name),
];

/** Bytes in a metafile's output from each compiled message schema module (shared/compiled/schemas/messages/). */
const messageBytes = (metafile: { outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> }): Map<string, number> => {
  const bytes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (input.includes('shared/compiled/schemas/messages/') && bytesInOutput > 0) bytes.set(input, (bytes.get(input) ?? 0) + bytesInOutput);
    }
  }
  return bytes;
};

/** What one queue's definition alone bundles of the message schemas: an entry that imports `<name>Queue` and uses it. */
const queueMessageBytes = new Map<string, Promise<Map<string, number>>>();
const messageBytesOfQueue = (name: string): Promise<Map<string, number>> => {
  let built = queueMessageBytes.get(name);
  if (!built) {
    built = build({
      ...esbuildOptionsFor(functionBundling),
      absWorkingDir: repositoryRoot,
      stdin: { contents: `import { ${name}Queue } from '#shared/events/queues';\nconsole.log(${name}Queue);\n`, resolveDir: repositoryRoot, loader: 'ts' },
      write: false,
      outfile: join(repositoryRoot, '.local', 'bundle-check', 'index.mjs'),
      metafile: true,
    }).then(({ metafile }) => messageBytes(metafile));
    queueMessageBytes.set(name, built);
  }
  return built;
};

const metafiles = new Map<string, ReturnType<typeof build>>();
/** The module's bundle, built once for every test of this file. */
const bundleOf = (module: string) => {
  let built = metafiles.get(module);
  if (!built) {
    built = build({
      ...esbuildOptionsFor(functionBundling),
      absWorkingDir: repositoryRoot,
      entryPoints: [join(repositoryRoot, module)],
      write: false,
      outfile: join(repositoryRoot, '.local', 'bundle-check', 'index.mjs'),
      metafile: true,
    });
    metafiles.set(module, built);
  }
  return built;
};

/** For each input under node_modules/<dependency> with bytes in the bundle, the chain of repository modules that imports it. */
const importChains = async (module: string, dependency: string): Promise<string[]> => {
  const { metafile } = await bundleOf(module);
  if (!metafile) throw new Error(`esbuild wrote no metafile for ${module}`);
  const inside = `node_modules/${dependency}/`;
  const importers = new Map<string, string>();
  for (const [file, input] of Object.entries(metafile.inputs)) {
    for (const imported of input.imports) if (!importers.has(imported.path)) importers.set(imported.path, file);
  }
  // What the output carries: an input esbuild read but tree-shook away entirely costs nothing at cold start.
  const inOutput = new Set(
    Object.values(metafile.outputs).flatMap((output) => Object.entries(output.inputs).filter(([, use]) => use.bytesInOutput > 0).map(([file]) => file)),
  );
  const chains = new Set<string>();
  for (const file of Object.keys(metafile.inputs).filter((input) => input.includes(inside) && inOutput.has(input))) {
    const chain: string[] = [];
    let current: string | undefined = importers.get(file);
    // Out of the dependency to the module that brought it in; a dependency's files may import each other in a circle
    // (zod's do: this loop never ended, and the test hung instead of naming the chain).
    const passed = new Set<string>();
    while (current?.includes(inside) && !passed.has(current)) {
      passed.add(current);
      current = importers.get(current);
    }
    while (current && chain.length < 10) {
      chain.push(current);
      current = importers.get(current);
    }
    chains.add(chain.join(' <- '));
  }
  return [...chains];
};

/**
 * The AWS SDK client each grant needs at run time, read from the statements the grant itself writes (grants.ts):
 * `sqs:` needs client-sqs, `scheduler:` client-scheduler, `secretsmanager:` client-secrets-manager, `kms:` client-kms
 * (the Encryption SDK is a lazy chunk, but the KMS client it calls is the bundle's: shared/crypto/kms-client.ts).
 * `iam:PassRole` needs none (no call of its own).
 */
const clientOfService = new Map([
  ['sqs', '@aws-sdk/client-sqs'],
  ['scheduler', '@aws-sdk/client-scheduler'],
  ['secretsmanager', '@aws-sdk/client-secrets-manager'],
  ['kms', '@aws-sdk/client-kms'],
]);
const grantResources = testGrantResources({ table: { name: 'table', arn: 'arn:aws:dynamodb:us-east-1:123456789012:table/table' }, queueHost: 'http://queues' });
const clientsOf = (grant: ResourceGrant): string[] =>
  resourceGrants[grant](grantResources).statements.flatMap((statement) => statement.actions.flatMap((action) => clientOfService.get(action.split(':')[0] ?? '') ?? []));
/** Every client a function could carry. */
const clients = [...new Set(clientOfService.values())];

describe('function bundles', () => {
  it.each(modules)('%s bundles no zod', async (module) => {
    // If this fails, the chain shows which import pulls zod in. A function takes its operation from
    // shared/compiled/operations/<area>.ts, not shared/operations/<area>.ts; a schema it uses outside the HTTP stack
    // is listed in infra/build/schema-validators.ts runtimeSchemas and imported from shared/compiled/; plain constants live
    // in zod-free modules (shared/schemas/limits.ts, shared/operations/routes.ts). Then run `npm run openapi`.
    expect(await importChains(module, 'zod')).toEqual([]);
  });

  it.each(modules)('%s bundles nothing of the local stack (infra/local/: the reference page, its webhook signer, the development secret)', async (module) => {
    const { metafile, outputFiles } = await bundleOf(module);
    expect(Object.keys(metafile?.inputs ?? {}).filter((input) => input.includes('infra/local/'))).toEqual([]);
    const code = (outputFiles ?? []).map((file) => file.text).join('\n');
    for (const trace of [webhookSigningPath, 'requestInterceptor', localWebhookSecret]) expect([trace, code.includes(trace)]).toEqual([trace, false]);
  });

  it.each(modules)('%s bundles only the AWS SDK clients its grants use', async (module) => {
    const needed = new Set((functionGrants.get(module) ?? []).flatMap(clientsOf));
    for (const client of clients) {
      // If this fails, the chain names the import that pulls the client in: build the client where it is used
      // (a wiring function, not module scope), so esbuild leaves it out of the functions that never call it.
      const chains = await importChains(module, client);
      if (needed.has(client)) expect(chains).not.toEqual([]);
      else expect({ client, chains }).toEqual({ client, chains: [] });
    }
  });

  it.each(modules)('%s imports node:http through require only (an ESM import of it loads undici at every cold start)', async (module) => {
    // If this fails, a new name imported from `node:http` is missing from infra/build/node-http.mjs, or the alias is
    // gone from functionBundling's esbuildArgs.
    const { outputFiles } = await bundleOf(module);
    const code = (outputFiles ?? []).map((file) => file.text).join('\n');
    expect(code.match(/\bfrom\s*["'](node:)?http["']|\bimport\s*\(\s*["'](node:)?http["']\s*\)|\bimport\s*["'](node:)?http["']/g) ?? []).toEqual([]);
  });

  it.each(modules)('%s bundles the message validators of its own queues only', async (module) => {
    // If this fails, a module-scope read of a queue definition (a property of it, a list of them, an arithmetic
    // expression in one) keeps every definition, each with its message's validator, in every bundle: derive the value
    // without the definitions (shared/operations/environment.ts), or read it in a `/* @__PURE__ */` call.
    const { metafile } = await bundleOf(module);
    if (!metafile) throw new Error(`esbuild wrote no metafile for ${module}`);
    const allowed = new Map<string, number>();
    for (const queue of functionQueues(module)) {
      for (const [input, bytes] of await messageBytesOfQueue(queue)) allowed.set(input, (allowed.get(input) ?? 0) + bytes);
    }
    // Minified names differ from one bundle to the other by a few bytes; another queue's message is kilobytes.
    for (const [input, bytes] of messageBytes(metafile)) expect({ input, bytes: Math.min(bytes, Math.round((allowed.get(input) ?? 0) * 1.05)) }).toEqual({ input, bytes });
  });
});

