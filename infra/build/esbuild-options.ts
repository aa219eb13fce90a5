// Build: the CDK construct's bundling settings (infra/constructs/operation-function.ts `functionBundling`) as
// esbuild's API options, the way aws-cdk-lib's aws-lambda-nodejs turns them into its esbuild command line. The
// construct's afterBundling hook builds the lazy chunks with them (infra/build/lazy-chunks.mjs), and the bench builds
// bundles with them, so neither can drift from what `cdk synth` builds.
import type { BuildOptions } from 'esbuild';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';

/** Settings of BundlingOptions this translation understands; any other key set in the construct is an error. */
const translatedKeys = new Set([
  'forceDockerBundling',
  'format',
  'target',
  'minify',
  'sourceMap',
  'sourcesContent',
  'mainFields',
  'banner',
  'footer',
  'externalModules',
  'define',
  'loader',
  'keepNames',
  'logLevel',
  'inject',
  // Only `--alias` (below); any other esbuild argument is refused.
  'esbuildArgs',
  // The hook itself (the lazy chunks): users of these options build the chunks with buildLazyChunks.
  'commandHooks',
]);

/**
 * esbuild options equivalent to the CDK's `esbuild --bundle <entry> --platform=node ...` command line for these
 * bundling settings. `target` overrides the construct's target (the bench runs on this machine's Node).
 */
export const esbuildOptionsFor = (bundling: BundlingOptions, overrides: { target?: string } = {}): BuildOptions => {
  const unknown = Object.entries(bundling)
    .filter(([key, value]) => value !== undefined && !translatedKeys.has(key))
    .map(([key]) => key);
  const unknownArgs = Object.keys(bundling.esbuildArgs ?? {}).filter((key) => key !== '--alias');
  if (unknown.length > 0 || unknownArgs.length > 0) {
    throw new Error(`functionBundling sets ${[...unknown, ...unknownArgs.map((key) => `esbuildArgs ${key}`)].join(', ')}, which infra/build/esbuild-options.ts does not translate yet`);
  }
  const alias = aliasesOf(bundling.esbuildArgs?.['--alias']);
  return {
    bundle: true,
    platform: 'node',
    target: overrides.target ?? bundling.target,
    format: bundling.format === 'esm' ? 'esm' : 'cjs',
    minify: bundling.minify ?? false,
    sourcemap: bundling.sourceMap ?? false,
    sourcesContent: bundling.sourcesContent ?? true,
    // aws-lambda-nodejs marks the runtime's SDK external unless externalModules is given.
    external: bundling.externalModules ?? ['@aws-sdk/*'],
    ...(bundling.mainFields ? { mainFields: bundling.mainFields } : {}),
    ...(bundling.banner ? { banner: { js: bundling.banner } } : {}),
    ...(bundling.footer ? { footer: { js: bundling.footer } } : {}),
    ...(bundling.define ? { define: bundling.define } : {}),
    ...(bundling.loader ? { loader: bundling.loader as BuildOptions['loader'] } : {}),
    ...(bundling.keepNames ? { keepNames: true } : {}),
    ...(bundling.inject ? { inject: bundling.inject } : {}),
    ...(alias ? { alias } : {}),
    logLevel: 'error',
  };
};

/** `--alias` as the CDK passes it (one `<from>=<to>` or a list of them, each becoming `--alias:<from>=<to>`), as esbuild's `alias`. */
const aliasesOf = (value: string | boolean | readonly string[] | undefined): Record<string, string> | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') throw new Error('esbuildArgs --alias takes <from>=<to> pairs');
  const entries = (typeof value === 'string' ? [value] : value).map((pair) => {
    const split = pair.indexOf('=');
    if (split <= 0) throw new Error(`esbuildArgs --alias ${pair}: not <from>=<to>`);
    return [pair.slice(0, split), pair.slice(split + 1)] as const;
  });
  return Object.fromEntries(entries);
};
