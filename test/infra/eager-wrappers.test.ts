// Infra test: the afterBundling step that puts each esbuild initialiser's function in parentheses
// (infra/build/eager-wrappers.mjs) changes nothing but those parentheses, reaches every wrapped module of a real
// function's bundle and its cipher chunk, is idempotent, and keeps the source map true: every token of the output
// maps to the same original position as before. (A run of the rewritten bundle: test/infra/bundle-tracing.test.ts.)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { eagerWrapperInsertions, eagerWrappers, shiftMappings } from '../../infra/build/eager-wrappers.mjs';
import type { RawSourceMap } from '../../infra/build/eager-wrappers.mjs';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { buildLazyChunks } from '../../infra/build/lazy-chunks.mjs';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { operationsById } from '#shared/operations/index';

const folder = mkdtempSync(join(tmpdir(), 'eager-wrappers-'));
beforeAll(async () => {
  const options = esbuildOptionsFor(functionBundling);
  await build({ ...options, absWorkingDir: repositoryRoot, entryPoints: [join(repositoryRoot, operationsById.scheduledTaskSave.handler)], outfile: join(folder, 'index.mjs') });
  expect(await buildLazyChunks(folder, options)).toContain('lazy/secret-cipher.mjs');
}, 120_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const read = (file: string) => ({ code: readFileSync(join(folder, file), 'utf8'), map: JSON.parse(readFileSync(join(folder, `${file}.map`), 'utf8')) as RawSourceMap });

/** Line and column (0-based, UTF-16) of an offset. */
const positionOf = (text: string, offset: number): [number, number] => {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return [line, offset - (before.lastIndexOf('\n') + 1)];
};

describe('eager-wrappers.mjs', () => {
  // The SDK's modules that it also imports on demand (esbuild's __esm) are most of them: in the bundle a few since those
  // imports are chunks (infra/build/lazy-chunks.mjs libraryChunkAliases), hundreds in the shared-ini chunk; the cipher
  // chunk's Encryption SDK and bn.js/asn1.js (__esm, __commonJS) are many.
  const wrappedAtLeast: Record<string, number> = { 'index.mjs': 1, 'lazy/secret-cipher.mjs': 20, 'lazy/credential-provider-ini.mjs': 100 };
  it.each(Object.keys(wrappedAtLeast))('%s: only parentheses around each initialiser function, every one of them, once', (file) => {
    const { code, map } = read(file);
    const result = eagerWrappers(code, map);
    const insertions = eagerWrapperInsertions(code);
    expect(result.wrapped).toBeGreaterThanOrEqual(wrappedAtLeast[file]!);
    expect(insertions.map((insertion) => insertion.text).join('')).toBe('()'.repeat(result.wrapped));
    // Removing what was inserted gives the original back, character for character.
    let restored = '';
    let from = 0;
    let shift = 0;
    for (const { at } of insertions) {
      restored += result.code.slice(from, at + shift);
      from = at + shift + 1;
      shift += 1;
    }
    restored += result.code.slice(from);
    expect(restored).toBe(code);
    // Each inserted `(` opens a function expression: `((a,b)=>` or `(function`.
    for (const { at, text } of insertions) if (text === '(') expect(code.slice(at, at + 9)).toMatch(/^(\(|function|async|[A-Za-z_$])/);
    // A second pass finds nothing left to do.
    expect(eagerWrappers(result.code, result.map).wrapped).toBe(0);
  });

  it.each(Object.keys(wrappedAtLeast))('%s: every identifier maps to the same original position after the rewrite', (file) => {
    const { code, map } = read(file);
    const result = eagerWrappers(code, map);
    const before = new SourceMap(map as never);
    const after = new SourceMap(result.map as never);
    const identifiers = /[A-Za-z_$][\w$]*/g;
    const old = [...code.matchAll(identifiers)];
    const rewritten = [...result.code.matchAll(identifiers)];
    expect(rewritten.length).toBe(old.length);
    let mapped = 0;
    old.forEach((token, index) => {
      if (index % 13 !== 0) return;
      const original = (entry: object) => { const { originalSource, originalLine, originalColumn, name } = entry as Record<string, unknown>; return { originalSource, originalLine, originalColumn, name }; };
      const was = before.findEntry(...positionOf(code, token.index));
      const is = after.findEntry(...positionOf(result.code, rewritten[index]!.index));
      expect(original(is)).toEqual(original(was));
      if ('originalSource' in was) mapped += 1;
    });
    expect(mapped).toBeGreaterThan(100);
  });

  it('shifts a generated column past characters inserted before or at it, on its own line only', () => {
    // Line 0: segments at columns 0, 5, 10; line 1: one at 3. Inserted: line 0 at 5 and 8.
    expect(shiftMappings('AAAA,KAAK,KAAK;GAAG', [[5, 8]])).toBe('AAAA,MAAK,MAAK;GAAG');
  });
});
