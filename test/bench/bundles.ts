// Benchmark: builds each function's bundle with the CDK construct's own bundling settings
// (infra/constructs/operation-function.ts `functionBundling`), translated into esbuild's API the way aws-cdk-lib's
// aws-lambda-nodejs turns them into esbuild arguments.
import { readFileSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { lazyModules } from '../../infra/constructs/operation-function';

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
  // Only the construct's lazy modules (operation-function.ts `lazyModules`): buildBundle builds them beside the bundle.
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
  if (unknown.length > 0) {
    throw new Error(`functionBundling sets ${unknown.join(', ')}, which test/bench/bundles.ts does not translate yet`);
  }
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
    logLevel: 'error',
  };
};

/** aws-lambda-nodejs names the output index.mjs for ESM, index.js otherwise. */
export const outputFileName = (bundling: BundlingOptions) => (bundling.format === 'esm' ? 'index.mjs' : 'index.js');

/** `node_modules/@scope/name/...` -> `@scope/name`; `shared/schemas/x.ts` -> `shared/schemas`. */
const originOf = (input: string): string => {
  const marker = 'node_modules/';
  const at = input.lastIndexOf(marker);
  if (at !== -1) {
    const parts = input.slice(at + marker.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? input);
  }
  const parts = input.split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : (parts[0] ?? input);
};

export interface BuiltBundle {
  readonly file: string;
  /** Bytes of the output by origin (an npm package, or a folder of this repository), largest first. */
  readonly composition: readonly { readonly origin: string; readonly bytes: number }[];
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly sourceMapBytes: number;
  readonly content: Buffer;
}

export const buildBundle = async (
  entry: string,
  outDir: string,
  bundling: BundlingOptions,
  overrides: { target?: string; absWorkingDir: string },
): Promise<BuiltBundle> => {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, outputFileName(bundling));
  const result = await build({
    ...esbuildOptionsFor(bundling, overrides),
    absWorkingDir: overrides.absWorkingDir,
    entryPoints: [entry],
    outfile: file,
    // Bench-only: a description of the inputs; it does not change the output.
    metafile: true,
  });
  // What the construct's afterBundling hook builds beside index.mjs, with the same settings: modules the function
  // imports by file name only on some cold starts (the tracer). Not part of the bundle's bytes.
  if (bundling.commandHooks) {
    for (const lazy of lazyModules) {
      await build({ ...esbuildOptionsFor(bundling, overrides), sourcemap: false, absWorkingDir: overrides.absWorkingDir, entryPoints: [join(overrides.absWorkingDir, lazy.entry)], outfile: join(outDir, lazy.file) });
    }
  }
  const byOrigin = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const origin = originOf(input);
      byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + bytesInOutput);
    }
  }
  const composition = [...byOrigin].map(([origin, bytes]) => ({ origin, bytes })).sort((a, b) => b.bytes - a.bytes);
  const content = readFileSync(file);
  let sourceMapBytes = 0;
  try {
    sourceMapBytes = readFileSync(`${file}.map`).length;
  } catch {
    // no source map configured
  }
  return { file, composition, bytes: content.length, gzipBytes: gzipSync(content).length, sourceMapBytes, content };
};
