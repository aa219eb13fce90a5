// Build: every module esbuild wraps in a function (its `__esm` and `__commonJS` initialisers: the AWS SDK's modules
// that are also imported dynamically, and every CommonJS module, bn.js and asn1.js in the cipher chunk) gets its
// function compiled once instead of twice. V8 compiles a file lazily: it pre-parses each function at load and
// compiles it fully on its first call, and most wrapped modules are initialised at load, so each was parsed twice (one
// initialised only on the first call is now compiled at load instead: measured, the sum is shorter). A
// function expression in parentheses is compiled at once (V8's "possibly invoked function expression" heuristic),
// so this script puts the argument of each initialiser call in parentheses: `__commonJS((exports, module) => {...})`
// becomes `__commonJS(((exports, module) => {...}))`, the same program. Paired runs of tenantLocationGet on Node 24:
// test/bench/README.md. The source map beside each file is shifted by the inserted characters, so `npm run trace`
// still reads the build's stacks.
//
// Plain JavaScript, run by the construct's afterBundling hook with `node` alone (after lazy-chunks.mjs, before
// source-maps.mjs):   node infra/build/eager-wrappers.mjs <asset folder>
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { javascriptFiles } from './source-maps.mjs';

/** esbuild's lazy initialisers, `(fn, ...) => () => { ...try... }`: a top-level `var` holding an arrow that returns a parameterless arrow with a `try`. */
const isInitialiserHelper = (declaration) => {
  const helper = declaration.initializer;
  if (!helper || !ts.isArrowFunction(helper) || !ts.isArrowFunction(helper.body)) return false;
  const initialiser = helper.body;
  return initialiser.parameters.length === 0 && ts.isBlock(initialiser.body) && initialiser.body.statements.some((statement) => ts.isTryStatement(statement));
};

/**
 * Where the parentheses go: for each call of an initialiser helper whose one argument is a function expression not
 * yet in parentheses, `(` before it and `)` after it. Offsets in UTF-16 code units, ascending.
 */
export const eagerWrapperInsertions = (code) => {
  const source = ts.createSourceFile('bundle.mjs', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const helpers = new Set();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name) && isInitialiserHelper(declaration)) helpers.add(declaration.name.text);
  }
  const insertions = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && helpers.has(node.expression.text) && node.arguments.length === 1) {
      const [argument] = node.arguments;
      if (ts.isArrowFunction(argument) || ts.isFunctionExpression(argument)) insertions.push({ at: argument.getStart(source), text: '(' }, { at: argument.end, text: ')' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return insertions.sort((a, b) => a.at - b.at);
};

const base64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first base64 VLQ of `text` from `index`: its value and where it ends. */
const readVlq = (text, index) => {
  let value = 0;
  let shift = 0;
  let position = index;
  for (;;) {
    const digit = base64.indexOf(text[position++] ?? '');
    if (digit < 0) throw new Error(`source map: not a base64 VLQ at ${index}`);
    value += (digit & 31) << shift;
    shift += 5;
    if ((digit & 32) === 0) break;
  }
  return { value: value & 1 ? -(value >>> 1) : value >>> 1, end: position };
};

const writeVlq = (value) => {
  let rest = value < 0 ? (-value << 1) | 1 : value << 1;
  let text = '';
  do {
    let digit = rest & 31;
    rest >>>= 5;
    if (rest > 0) digit |= 32;
    text += base64[digit];
  } while (rest > 0);
  return text;
};

/**
 * A source map's `mappings` with each generated column moved past the characters inserted before or at it on its
 * line (`insertedColumns[line]`: ascending columns of the original text). Only the first field of a segment (the
 * generated column, relative within its line) changes; the others are relative to earlier segments and stay as written.
 */
export const shiftMappings = (mappings, insertedColumns) =>
  mappings
    .split(';')
    .map((line, lineIndex) => {
      const columns = insertedColumns[lineIndex];
      if (!columns || columns.length === 0 || line === '') return line;
      let column = 0;
      let shiftedPrevious = 0;
      let passed = 0;
      return line
        .split(',')
        .map((segment) => {
          const { value, end } = readVlq(segment, 0);
          column += value;
          while (passed < columns.length && columns[passed] <= column) passed += 1;
          const shifted = column + passed;
          const text = writeVlq(shifted - shiftedPrevious) + segment.slice(end);
          shiftedPrevious = shifted;
          return text;
        })
        .join(',');
    })
    .join(';');

/** The code with its initialisers' functions in parentheses, and the map (if given) shifted to match. */
export const eagerWrappers = (code, map) => {
  const insertions = eagerWrapperInsertions(code);
  let rewritten = '';
  let from = 0;
  for (const { at, text } of insertions) {
    rewritten += code.slice(from, at) + text;
    from = at;
  }
  rewritten += code.slice(from);
  if (!map) return { code: rewritten, map, wrapped: insertions.length / 2 };
  const insertedColumns = [];
  let line = 0;
  let lineStart = 0;
  for (const { at } of insertions) {
    for (let next = code.indexOf('\n', lineStart); next !== -1 && next < at; next = code.indexOf('\n', lineStart)) {
      line += 1;
      lineStart = next + 1;
    }
    (insertedColumns[line] ??= []).push(at - lineStart);
  }
  return { code: rewritten, map: { ...map, mappings: shiftMappings(map.mappings, insertedColumns) }, wrapped: insertions.length / 2 };
};

/** Rewrites every JavaScript file of the asset folder (and its map beside it). Returns `<file>: <wrapped>` for each file changed. */
export const eagerWrappersIn = (folder) => {
  const changed = [];
  for (const file of javascriptFiles(folder)) {
    const mapFile = `${file}.map`;
    const map = existsSync(mapFile) ? JSON.parse(readFileSync(mapFile, 'utf8')) : undefined;
    const result = eagerWrappers(readFileSync(file, 'utf8'), map);
    if (result.wrapped === 0) continue;
    writeFileSync(file, result.code);
    if (result.map) writeFileSync(mapFile, JSON.stringify(result.map));
    changed.push(`${relative(folder, file)}: ${result.wrapped}`);
  }
  return changed;
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [folder] = process.argv.slice(2);
  if (!folder) {
    process.stderr.write('usage: node infra/build/eager-wrappers.mjs <asset folder>\n');
    process.exit(2);
  }
  const changed = eagerWrappersIn(folder);
  if (changed.length > 0) process.stdout.write(`initialisers compiled eagerly: ${changed.join(', ')}\n`);
}
