// Build: the chunks a function loads on demand. Plain JavaScript, so the CDK's afterBundling hook runs it with
// `node` alone, once per function asset, without a TypeScript loader.
//
// A library that only some requests need (the XML parser, the AWS Encryption SDK) is imported as `#lazy/<name>`.
// package.json "imports" maps each such specifier to its module, so tsx and jest load the module itself; the
// function's bundle leaves `#lazy/*` external (infra/constructs/operation-function.ts), and this script then bundles
// each `#lazy/<name>` the bundle names into `lazy/<name>.mjs` beside it, with the bundle's own esbuild settings, and
// writes a package.json whose "imports" point the specifiers at those files. Node resolves them at run time, on the
// first request that needs one: the cold start never parses or evaluates them.
//
//   node infra/build/lazy-chunks.mjs <asset folder> <esbuild options as JSON, or base64:<that JSON in base64>>
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const lazyPrefix = '#lazy/';
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Modules of a chunk's libraries that one module of the same library imports relatively, replaced for that importer
 * only (an esbuild plugin: `alias` only maps package names). `signature_key.js` of the Encryption SDK's material
 * management imports `ecc_decode.js` and `pem_helpers.js`, which do bn.js and asn1.js work at load for the suites
 * that sign; shared/crypto/lazy-signature-helpers.ts gives the same exports, each loading the original on its first
 * call (its header says why). A build that bundles an importer but never replaces one of its imports fails: the library
 * changed, and the replacement must be looked at again.
 */
export const chunkModuleReplacements = [
  {
    importer: 'node_modules/@aws-crypto/material-management/build/module/src/signature_key.js',
    specifiers: ['./ecc_decode', './pem_helpers'],
    replacement: './shared/crypto/lazy-signature-helpers.ts',
  },
];

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The esbuild plugin that applies `chunkModuleReplacements`. */
export const chunkModuleReplacementPlugin = (replacements = chunkModuleReplacements) => ({
  name: 'chunk-module-replacements',
  setup(build) {
    const specifiers = [...new Set(replacements.flatMap((entry) => entry.specifiers))];
    const seenImporters = new Set();
    const replaced = new Set();
    build.onResolve({ filter: new RegExp(`^(?:${specifiers.map(escapeRegExp).join('|')})$`) }, (args) => {
      const importer = args.importer.split('\\').join('/');
      const entry = replacements.find((candidate) => importer.endsWith(candidate.importer) && candidate.specifiers.includes(args.path));
      if (entry === undefined) return undefined;
      seenImporters.add(entry.importer);
      replaced.add(`${entry.importer} ${args.path}`);
      return { path: join(repositoryRoot, entry.replacement) };
    });
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      const missing = replacements.flatMap((entry) => (seenImporters.has(entry.importer) ? entry.specifiers.filter((specifier) => !replaced.has(`${entry.importer} ${specifier}`)).map((specifier) => `${entry.importer} ${specifier}`) : []));
      if (missing.length > 0) return { errors: [{ text: `chunk module replacements no longer match their library: ${missing.join(', ')}` }] };
      return undefined;
    });
  },
});

/** `#lazy/<name>` -> its module (a package name, or `./path` from the repository root), from package.json. */
export const lazyModules = () => {
  const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8'));
  return Object.fromEntries(Object.entries(manifest.imports ?? {}).filter(([specifier]) => specifier.startsWith(lazyPrefix)));
};

/**
 * esbuild aliases (`<package>=#lazy/<name>`): every `#lazy/*` that maps a package, so an import of that package by
 * anyone (a library included) names the chunk instead of bundling the package. Most of them are the AWS SDK's own
 * on-demand imports: its default credential chain `await import()`s each provider after the environment's (SSO, the
 * shared ini files, a credential process, web identity, the container and instance metadata endpoints), and its HTTP
 * protocols the event-stream codec, for a code-splitting bundler. esbuild without splitting (the CDK's bundling)
 * inlined them all into every bundle: about 150 KB that Lambda, whose credentials are in the environment, parsed at
 * every cold start and never ran. A chunk is built without these aliases (it holds what it imports), so no chunk
 * loads another.
 */
export const libraryChunkAliases = () =>
  Object.entries(lazyModules())
    .filter(([, target]) => !target.startsWith('./'))
    .map(([specifier, target]) => `${target}=${specifier}`);

/** esbuild options for a chunk: the bundle's, without the aliases that name chunks (the chunk of a package is that package). */
const chunkOptionsOf = (esbuildOptions) => ({
  ...esbuildOptions,
  alias: Object.fromEntries(Object.entries(esbuildOptions.alias ?? {}).filter(([, to]) => !to.startsWith(lazyPrefix))),
});

/**
 * A bundle that imports a chunk statically (an alias met a static import) would load it at every cold start, and one
 * that imports a module under a chunk's name (`#lazy/<name>/sub`) would fail at run time: both fail the build.
 */
const misusedChunkImports = (code) => [
  ...[...code.matchAll(/(?:\bfrom|\bimport)\s*["'](#lazy\/[^"']*)["']/g)].map((match) => `static import of ${match[1]}`),
  ...[...code.matchAll(/["'](#lazy\/[a-z0-9][a-z0-9-]*\/[^"']*)["']/g)].map((match) => `import of ${match[1]}, inside a chunk`),
];

/** The `#lazy/*` specifiers a bundle's code names, each once, in a stable order. */
export const lazySpecifiersIn = (code) => [...new Set(code.match(/#lazy\/[a-z0-9][a-z0-9-]*/g) ?? [])].sort();

/**
 * Builds the chunks the bundle `<folder>/<entryFile>` needs, and the package.json that maps them. Returns the files
 * written, relative to the folder. An unknown `#lazy/*` name fails the build: at run time it would be a 500.
 */
export const buildLazyChunks = async (folder, esbuildOptions, entryFile = 'index.mjs') => {
  const modules = lazyModules();
  const code = readFileSync(join(folder, entryFile), 'utf8');
  const misused = misusedChunkImports(code);
  if (misused.length > 0) throw new Error(`${entryFile}: ${misused.join('; ')}`);
  const specifiers = lazySpecifiersIn(code);
  const chunkOptions = chunkOptionsOf(esbuildOptions);
  const imports = {};
  for (const specifier of specifiers) {
    const target = modules[specifier];
    if (target === undefined) throw new Error(`${entryFile} imports ${specifier}, which package.json "imports" does not map`);
    const file = `lazy/${specifier.slice(lazyPrefix.length)}.mjs`;
    const entry = target.startsWith('./') ? { entryPoints: [join(repositoryRoot, target)] } : { stdin: { contents: `export * from ${JSON.stringify(target)};`, resolveDir: repositoryRoot, loader: 'js' } };
    await build({ ...chunkOptions, ...entry, plugins: [...(chunkOptions.plugins ?? []), chunkModuleReplacementPlugin()], absWorkingDir: repositoryRoot, bundle: true, outfile: join(folder, file), metafile: false, write: true });
    imports[specifier] = `./${file}`;
  }
  if (specifiers.length === 0) return [];
  const packageFile = join(folder, 'package.json');
  const existing = existsSync(packageFile) ? JSON.parse(readFileSync(packageFile, 'utf8')) : {};
  writeFileSync(packageFile, `${JSON.stringify({ ...existing, type: 'module', imports }, null, 2)}\n`);
  return ['package.json', ...Object.values(imports).map((file) => file.slice(2))];
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [folder, options] = process.argv.slice(2);
  if (!folder || !options) {
    process.stderr.write('usage: node infra/build/lazy-chunks.mjs <asset folder> <esbuild options as JSON>\n');
    process.exit(2);
  }
  mkdirSync(folder, { recursive: true });
  const json = options.startsWith('base64:') ? Buffer.from(options.slice('base64:'.length), 'base64').toString('utf8') : options;
  const written = await buildLazyChunks(folder, JSON.parse(json));
  if (written.length > 0) process.stdout.write(`lazy chunks: ${written.join(', ')}\n`);
}
