// Build: a function's source maps leave its asset. The bundle and its lazy chunks are built with source maps
// (mappings only, no sources); Lambda would only read them under NODE_OPTIONS=--enable-source-maps, which makes Node
// read and parse a map at module load and costs a cold start what the bench measures (test/bench/README.md, issue 23).
// So the maps are moved out of the asset to `<assembly>/source-maps/<sha256 of the JavaScript file>.mjs.map`, beside
// the template, and the `sourceMappingURL` comment is removed from each file: the asset is exactly what runs, and
// `npm run trace` (infra/trace.ts) finds a file's map again from the file's own bytes.
//
// Plain JavaScript, run by the construct's afterBundling hook with `node` alone (after lazy-chunks.mjs):
//   node infra/build/source-maps.mjs <asset folder> [<maps folder>]
// The maps folder defaults to `source-maps` beside the asset folder: CDK bundles into `<assembly>/bundling-temp-*`.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the maps of an assembly live. */
export const sourceMapsFolderName = 'source-maps';

/** The name a JavaScript file's map is kept under: the SHA-256 of the file's bytes as they run. */
export const sourceMapKey = (code) => createHash('sha256').update(code).digest('hex');

const mappingComment = /\n?\/\/# sourceMappingURL=[^\n]*\n?$/;

/** Every JavaScript file of a folder, at any depth (an asset: the bundle and its lazy chunks). */
export const javascriptFiles = (folder) =>
  readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.m?js$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));

/**
 * Moves the map of every JavaScript file of the asset folder to `<mapsFolder>/<key>.mjs.map` and strips the file's
 * `sourceMappingURL` comment. Returns the files whose maps moved, relative to the folder.
 */
export const moveSourceMaps = (folder, mapsFolder = join(dirname(resolve(folder)), sourceMapsFolderName)) => {
  const moved = [];
  for (const file of javascriptFiles(folder)) {
    const map = `${file}.map`;
    if (!existsSync(map)) continue;
    const code = readFileSync(file, 'utf8').replace(mappingComment, '\n');
    writeFileSync(file, code);
    mkdirSync(mapsFolder, { recursive: true });
    const target = join(mapsFolder, `${sourceMapKey(code)}.mjs.map`);
    // The same bytes have the same map: a second function with an identical bundle keeps the first copy.
    if (existsSync(target)) rmSync(map);
    else renameSync(map, target);
    moved.push(relative(folder, file));
  }
  return moved;
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [folder, mapsFolder] = process.argv.slice(2);
  if (!folder) {
    process.stderr.write('usage: node infra/build/source-maps.mjs <asset folder> [<maps folder>]\n');
    process.exit(2);
  }
  const moved = moveSourceMaps(folder, mapsFolder);
  if (moved.length > 0) process.stdout.write(`source maps moved out of the asset: ${moved.join(', ')}\n`);
}
