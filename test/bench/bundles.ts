// Benchmark: builds each function's bundle with the CDK construct's own bundling settings
// (infra/constructs/operation-function.ts `functionBundling`), translated into esbuild's API the way aws-cdk-lib's
// aws-lambda-nodejs turns them into esbuild arguments.
import { readFileSync, rmSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { eagerWrappersIn } from '../../infra/build/eager-wrappers.mjs';
import { buildLazyChunks } from '../../infra/build/lazy-chunks.mjs';
import { moveSourceMaps, sourceMapKey, sourceMapsFolderName } from '../../infra/build/source-maps.mjs';

export { esbuildOptionsFor };

/** aws-lambda-nodejs names the output index.mjs for ESM, index.js otherwise. */
export const outputFileName = (bundling: BundlingOptions) => (bundling.format === 'esm' ? 'index.mjs' : 'index.js');

/** `node_modules/@scope/name/...` -> `@scope/name`; `shared/schemas/x.ts` -> `shared/schemas`. */
export const originOf = (input: string): string => {
  const marker = 'node_modules/';
  const at = input.lastIndexOf(marker);
  if (at !== -1) {
    const parts = input.slice(at + marker.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? input);
  }
  const parts = input.split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : (parts[0] ?? input);
};

/** Where buildBundle keeps the map of one of its JavaScript files (the bundle or a lazy chunk), as the construct does. */
export const sourceMapOf = (file: string, content: string | Buffer = readFileSync(file)): string => {
  const bundleDir = /\/lazy\/[^/]+$/.test(file) ? dirname(dirname(file)) : dirname(file);
  return join(dirname(bundleDir), sourceMapsFolderName, `${sourceMapKey(content)}.mjs.map`);
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
  // What the construct's afterBundling hook adds: the chunks loaded on demand (not counted in the bundle's bytes).
  await buildLazyChunks(outDir, esbuildOptionsFor(bundling, overrides));
  const byOrigin = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const origin = originOf(input);
      byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + bytesInOutput);
    }
  }
  const composition = [...byOrigin].map(([origin, bytes]) => ({ origin, bytes })).sort((a, b) => b.bytes - a.bytes);
  // And then, as that hook does, the wrapped modules' functions in parentheses (infra/build/eager-wrappers.mjs), and
  // every map leaves the folder for source-maps/ beside it (infra/build/source-maps.mjs).
  eagerWrappersIn(outDir);
  moveSourceMaps(outDir);
  const content = readFileSync(file);
  let sourceMapBytes = 0;
  try {
    sourceMapBytes = readFileSync(sourceMapOf(file, content)).length;
  } catch {
    // no source map configured
  }
  return { file, composition, bytes: content.length, gzipBytes: gzipSync(content).length, sourceMapBytes, content };
};
