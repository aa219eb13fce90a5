// Build: the committed generated files of `npm run openapi` (shared/compiled/), written and checked one way: a
// generator gives its files (path relative to the root -> content) and the folders it owns.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const listFiles = (folder: string): string[] => {
  try {
    return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? listFiles(join(folder, entry.name)) : [join(folder, entry.name)],
    );
  } catch {
    return [];
  }
};

/** The files that differ from what the generator writes now: missing, stale, or extra in the folders it owns. */
export const staleFiles = (files: ReadonlyMap<string, string>, folders: readonly string[]): string[] => {
  const present = folders.flatMap((folder) => listFiles(join(repositoryRoot, folder))).map((file) => relative(repositoryRoot, file));
  const stale = [...files].filter(([path, text]) => {
    try {
      return readFileSync(join(repositoryRoot, path), 'utf8') !== text;
    } catch {
      return true;
    }
  });
  return [...stale.map(([path]) => path), ...present.filter((path) => !files.has(path))].sort();
};

/** Replaces the folders the generator owns with its files; answers how many it wrote. */
export const writeFiles = (files: ReadonlyMap<string, string>, folders: readonly string[]): number => {
  for (const folder of folders) rmSync(join(repositoryRoot, folder), { recursive: true, force: true });
  for (const [path, text] of files) {
    mkdirSync(dirname(join(repositoryRoot, path)), { recursive: true });
    writeFileSync(join(repositoryRoot, path), text);
  }
  return files.size;
};
