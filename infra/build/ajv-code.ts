// Build: what the generators of shared/compiled/ share to turn JSON Schema into ajv standalone code (`npm run
// openapi`): the schemas as the validators read them (annotations dropped, component references by their ajv id,
// repeated leaves shared), ajv's options, and one validator as a pure expression a bundle drops when it does not
// name it. Used for the request validators of the OpenAPI document (request-validators.ts) and for the schemas the
// service checks outside the HTTP stack: queue messages, the principal (schema-validators.ts).
//
// What is written is smaller than ajv's own output and equivalent to it (`Ajv2020WithoutDynamicScope`, `leanCode`;
// test/unit/validation/lean-code.test.ts compares both on every validator): a cold start compiles every byte.
//
// ajv options: JSON Schema 2020-12, strict about the schemas (an unknown keyword fails the build), no coercion, no
// defaults, no `$data`, `allErrors` (a refusal lists every invalid field; shared/validation/document.ts reports at
// most 100), no messages (the words are ours and never repeat the value).
import { dirname, relative } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import * as ajvCore from 'ajv/dist/core';
import type { Options } from 'ajv/dist/core';
import * as applicator from 'ajv/dist/vocabularies/applicator';
import * as core from 'ajv/dist/vocabularies/core';
import * as format from 'ajv/dist/vocabularies/format';
import { contentVocabulary, metadataVocabulary } from 'ajv/dist/vocabularies/metadata';
import * as next from 'ajv/dist/vocabularies/next';
import * as validation from 'ajv/dist/vocabularies/validation';
import { _ } from 'ajv/dist/compile/codegen';
import standaloneCode from 'ajv/dist/standalone';
import { formats } from '#shared/validation/formats';
import { isNullAlternative } from '#shared/openapi/component-schemas';
import { isJsonObject, type JsonObject, type JsonValue } from '#shared/openapi/types';

const annotations = new Set(['description', 'examples', 'example', 'xml', 'writeOnly', 'readOnly', 'title', 'deprecated', 'default']);
export const schemaId = (component: string) => `urn:business-platform:schema:${component}`;
const componentRef = /^#\/components\/schemas\/(.+)$/;

/** A schema as the validators read it: annotations dropped, component references by their ajv id. */
export const forValidation = (node: JsonValue): JsonValue => {
  if (Array.isArray(node)) return node.map(forValidation);
  if (node === null || typeof node !== 'object') return node;
  // A request's optional member may be null in the document (null means absent); the server drops null members before
  // its validators run (shared/http/codecs/coerce.ts), so they check the member's own schema.
  if (isNullAlternative(node)) return forValidation((node.anyOf as JsonValue[]).find((member) => !(isJsonObject(member) && member.type === 'null')) as JsonValue);
  // A required member's `not: { type: 'null' }` (component-schemas.ts `decorate`) likewise: no null reaches a validator.
  if (isJsonObject(node.not) && Object.keys(node.not).length === 1 && node.not.type === 'null') {
    const { not: _notNull, ...rest } = node;
    return forValidation(rest);
  }
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (annotations.has(key) || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') {
      const match = componentRef.exec(value);
      if (!match) throw new Error(`a $ref the validators cannot follow: ${value}`);
      result.$ref = schemaId(decodeURIComponent(match[1] as string));
    } else if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      // Member names are data, not keywords: keep every one, annotate-like names included.
      result.properties = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, forValidation(schema)]));
    } else {
      result[key] = forValidation(value as JsonValue);
    }
  }
  return result;
};

/**
 * The document writes a field's schema where the field is (zod's `reused: 'inline'`): the same `text()` (at most 200
 * characters, no control characters) is written a hundred times in a payment. ajv would generate its code a hundred
 * times; here every leaf schema of a property or list item (no members, items or references of its own) that is
 * written more than once becomes one schema, referenced (`inlineRefs: false`: one function, called). The rules are
 * the same; the code is a fraction, and so is what a cold start parses and compiles. Branches (`anyOf`, `not`, `if`)
 * are left as written, so an error's schema path still says which branch it explains.
 */
const sharingLeaves = (schema: JsonObject, leaves: Map<string, string>): JsonObject => {
  const isLeaf = (node: JsonValue): node is JsonObject =>
    node !== null && typeof node === 'object' && !Array.isArray(node) && !['properties', 'items', '$ref', 'additionalProperties', 'anyOf', 'oneOf'].some((key) => key in node);
  const share = (node: JsonValue): JsonValue => {
    if (!isLeaf(node)) return shareWithin(node);
    const text = JSON.stringify(node);
    if (text.length < 40) return node;
    const id = leaves.get(text) ?? `urn:business-platform:leaf:${leaves.size}`;
    leaves.set(text, id);
    return { $ref: id };
  };
  const shareWithin = (node: JsonValue): JsonValue => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    const result: JsonObject = { ...node };
    if (isJsonRecord(node.properties)) result.properties = Object.fromEntries(Object.entries(node.properties).map(([name, field]) => [name, share(field)]));
    if (node.items !== undefined) result.items = share(node.items);
    return result;
  };
  return shareWithin(schema) as JsonObject;
};

export const isJsonRecord = (value: JsonValue | undefined): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);


/** Components (the document's, or a catalog's) as ajv schemas: their root `allOf` left out, repeated leaves shared. */
export const componentSchemas = (components: Readonly<Record<string, JsonObject>>): JsonObject[] => {
  const leaves = new Map<string, string>();
  const schemas: JsonObject[] = Object.entries(components).map(([name, schema]) => {
    // The root allOf of a component holds the domain's rules (shape()'s domainRules): the domain refuses those with
    // its own words, every problem at once (shared/openapi/README.md); patterns sit in a property's allOf.
    const { allOf: _domainRules, ...fields } = forValidation(schema) as JsonObject;
    return { ...sharingLeaves(fields, leaves), $id: schemaId(name) };
  });
  for (const [text, id] of leaves) schemas.push({ ...(JSON.parse(text) as JsonObject), $id: id });
  return schemas;
};

/**
 * JSON Schema 2020-12 without its dynamic scope: every vocabulary of ajv's `Ajv2020` but `$dynamicRef`/`$dynamicAnchor`
 * and `unevaluatedProperties`/`unevaluatedItems`. Those two make ajv's code carry, in every function it generates,
 * a `dynamicAnchors` argument passed on at every call and the reset and record of the members each schema evaluated
 * (about a fifth of the code of a payment's validator); the document uses neither, and should it start to, strict mode
 * refuses the unknown keyword at build time. Each schema is still checked against the 2020-12 meta-schema
 * (`checkedSchema`), as `Ajv2020` checks it.
 */
/** A CommonJS module's `exports.default` (ajv's modules set no `module.exports` of their own: Node's ESM loader sees the exports object, TypeScript the default). */
const defaultOf = <T>(module: { readonly default: T }): T => ((module.default as { readonly default?: T }).default ?? module.default);
const [AjvCore, getApplicatorVocabulary, coreVocabulary, formatVocabulary, nextVocabulary, validationVocabulary] = [
  defaultOf(ajvCore), defaultOf(applicator), defaultOf(core), defaultOf(format), defaultOf(next), defaultOf(validation),
] as const;

class Ajv2020WithoutDynamicScope extends AjvCore {
  constructor(options: Options) {
    super({ ...options, next: true, dynamicRef: false, unevaluated: false, meta: false, validateSchema: false });
  }

  override _addVocabularies(): void {
    super._addVocabularies();
    for (const vocabulary of [coreVocabulary, validationVocabulary, getApplicatorVocabulary(true), formatVocabulary, metadataVocabulary, contentVocabulary, nextVocabulary]) {
      this.addVocabulary(vocabulary);
    }
  }
}

const metaSchemaChecker = new Ajv2020({ strict: false });
const checked = new WeakSet<JsonObject>();
/** A schema once the 2020-12 meta-schema accepts it (the build fails otherwise). */
const checkedSchema = (schema: JsonObject): JsonObject => {
  if (checked.has(schema)) return schema;
  if (!metaSchemaChecker.validateSchema(schema)) throw new Error(`not a JSON Schema 2020-12 schema (${String(schema.$id)}): ${metaSchemaChecker.errorsText()}`);
  checked.add(schema);
  return schema;
};

export const ajvOptions: Options = {
  strictSchema: true,
  strictNumbers: true,
  strictTuples: true,
  // A domain rule's `if` names members its object declares elsewhere; `required` there is what the rule means.
  strictRequired: false,
  strictTypes: false,
  allErrors: true,
  messages: false,
  inlineRefs: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  $data: false,
  code: { source: true, esm: true, formats: _`formats`, optimize: true },
};

/** An ajv instance with the generators' options, whose `addSchema` and `compile` check each schema first. */
export const newAjv = () => {
  const ajv = new Ajv2020WithoutDynamicScope(ajvOptions);
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format as Parameters<typeof ajv.addFormat>[1]);
  const addSchema = ajv.addSchema.bind(ajv);
  const compile = ajv.compile.bind(ajv);
  return Object.assign(ajv, {
    addSchema: (schema: JsonObject) => addSchema(checkedSchema(schema)),
    compile: (schema: JsonObject) => compile(checkedSchema(schema)),
  });
};


/** The end (exclusive) of the JSON value that starts at `start` in `text`. */
const jsonEnd = (text: string, start: number): number => {
  let depth = 0;
  for (let at = start; at < text.length; at += 1) {
    const char = text[at];
    if (char === '"') {
      for (at += 1; text[at] !== '"'; at += 1) if (text[at] === '\\') at += 1;
    } else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) return at + 1;
    }
  }
  throw new Error('a schema constant of ajv\'s code does not end');
};

/**
 * What the code reads of a schema constant (`reads`: the member after each reference, `undefined` for the whole):
 * nothing, then no constant; `.enum` (an error's `allowedValues`) as it is; `.properties` only to ask whether a member
 * is declared (`hasOwnProperty`), so each member's schema becomes `0`. Any other read keeps the whole schema.
 */
const keptOfSchema = (schema: JsonObject, reads: readonly (string | undefined)[]): JsonObject | undefined => {
  if (reads.length === 0) return undefined;
  if (!reads.every((read) => read === '.enum' || read === '.properties')) return schema;
  const kept: JsonObject = {};
  if (reads.includes('.enum')) kept.enum = schema.enum as JsonValue;
  if (reads.includes('.properties') && isJsonRecord(schema.properties)) kept.properties = Object.fromEntries(Object.keys(schema.properties).map((member) => [member, 0]));
  return kept;
};

/** The members of an error ajv writes, in the order `failed` (shared/validation/error-list.ts) takes them. */
const errorMembers = ['instancePath', 'schemaPath', 'keyword', 'params'] as const;

/**
 * The values of an error object ajv writes (`{instancePath:...,schemaPath:"...",keyword:"...",params:{...}}`) as the
 * arguments of `failed`: the four member names are the bytes a minifier cannot shorten, written at each of hundreds of
 * places. Splits the object's text at its top-level commas (outside strings and brackets). Undefined for an error of
 * any other form (`{}`, the placeholder ajv pushes inside a `not`; a `propertyNames` error's fifth member): it stays
 * an object, pushed as it is.
 */
const errorArguments = (object: string): string | undefined => {
  const members: string[] = [];
  let depth = 0;
  let start = 1;
  for (let at = 1; at < object.length - 1; at += 1) {
    const char = object[at];
    if (char === '"') {
      for (at += 1; object[at] !== '"'; at += 1) if (object[at] === '\\') at += 1;
    } else if (char === '{' || char === '[' || char === '(') depth += 1;
    else if (char === '}' || char === ']' || char === ')') depth -= 1;
    else if (char === ',' && depth === 0) {
      members.push(object.slice(start, at));
      start = at + 1;
    }
  }
  members.push(object.slice(start, -1));
  if (depth !== 0 || members.length !== errorMembers.length) return undefined;
  const values = members.map((member, index) => {
    const name = errorMembers[index] as string;
    // `{instancePath,...}`: ajv's shorthand for the validator's own instancePath.
    if (member === name) return member;
    return member.startsWith(`${name}:`) ? member.slice(name.length + 1) : undefined;
  });
  return values.every((value) => value !== undefined) ? values.join(', ') : undefined;
};

/**
 * ajv's standalone code, smaller and equivalent (the same errors, in the same order, for every value):
 * - the arguments ajv passes every validator for keywords the schemas do not use (`parentData`, `parentDataProperty`
 *   for keywords that read the parent, `rootData` for `$data`), in each signature and at each of its calls: the build
 *   fails if one is read anywhere else;
 * - each error pushed with `failed(vErrors, instancePath, schemaPath, keyword, params)` and each called validator's
 *   errors appended with `joined`, instead of the same five statements and the error's four member names written out
 *   at each of the hundreds of places;
 * - of the copies of the schemas (`const schema12 = {...}`; esbuild keeps unused locals), what no code reads
 *   (`keptOfSchema`).
 */
export const leanCode = (code: string, name: string): string => {
  const string = '"(?:[^"\\\\]|\\\\.)*"';
  let lean = code
    .replaceAll('{instancePath="", parentData, parentDataProperty, rootData=data}={}', '{instancePath=""}={}')
    .replace(new RegExp(`,parentData:data\\d*,parentDataProperty:(?:${string}|i\\d+),rootData\\}`, 'g'), '}')
    .replaceAll(',parentData,parentDataProperty,rootData}', '}')
    .replace(/const (err\d+) = (\{.*?\});if\(vErrors === null\)\{vErrors = \[\1\];\}else \{vErrors\.push\(\1\);\}errors\+\+;/g, (_, _error, object: string) => {
      const values = errorArguments(object);
      return values === undefined ? `vErrors = pushed(vErrors, ${object});errors++;` : `vErrors = failed(vErrors, ${values});errors++;`;
    })
    .replace(/vErrors = vErrors === null \? (validate\d+|wrapper\d+\.validate)\.errors : vErrors\.concat\(\1\.errors\);/g, 'vErrors = joined(vErrors, $1.errors);');
  for (const leftover of [/\b(?:parentData|parentDataProperty|rootData)\b/, /\berr\d+\b/, /vErrors\.(?:push|concat)\(/]) {
    const found = leftover.exec(lean);
    if (found) throw new Error(`ajv's code for ${name} has a form leanCode does not rewrite: ${lean.slice(Math.max(0, found.index - 80), found.index + 80)}`);
  }
  for (const [, constant] of [...lean.matchAll(/const (schema\d+) = /g)]) {
    const declaration = `const ${constant} = `;
    const start = lean.indexOf(declaration);
    const end = jsonEnd(lean, start + declaration.length);
    if (lean[end] !== ';') throw new Error(`ajv's schema constant ${constant} is not one JSON value`);
    const reads = [...lean.matchAll(new RegExp(`\\b${constant}\\b(\\.[A-Za-z$]+)?`, 'g'))].slice(1).map((read) => read[1]);
    const schema = JSON.parse(lean.slice(start + declaration.length, end)) as JsonObject;
    const kept = keptOfSchema(schema, reads);
    lean = lean.slice(0, start) + (kept === undefined ? '' : `${declaration}${JSON.stringify(kept)};`) + lean.slice(end + 1);
  }
  return lean;
};

/**
 * One validator as a pure expression: ajv's code for `schema` (and what it references of `schemas`) inside a function
 * called once. A bundle keeps only the validators its code names: esbuild drops an unused `@__PURE__` call, while
 * ajv's module-level code (`validate.evaluated = ...`) would keep every validator of a module in every bundle.
 */
export const validatorExpression = (name: string, schemas: readonly JsonObject[], schema: JsonObject, id: string): string => {
  const ajv = newAjv();
  for (const known of schemas) ajv.addSchema(known);
  ajv.addSchema({ ...schema, $id: id });
  const code = standaloneCode(ajv, { [name]: id })
    .replace(/^"use strict";/, '')
    .replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, 'stringLength');
  if (/\brequire\(/.test(code)) throw new Error(`the validator ${name} requires a module the generator does not import`);
  const lean = leanCode(code, name);
  const exported = new RegExp(`export const ${name} = (validate\\d+);`);
  const root = exported.exec(lean)?.[1];
  if (root === undefined) throw new Error(`ajv wrote no export ${name}`);
  return `/* @__PURE__ */ (() => {${lean.replace(exported, '')}\nreturn ${root};})()`;
};

/** An import path from the generated module `output` to the repository file `target` (no extension). */
export const importPath = (output: string, target: string): string => {
  const path = relative(dirname(output), target).replace(/\.ts$/, '');
  return path.startsWith('.') ? path : `./${path}`;
};

/** The import of the error-list helpers `leanCode` writes calls to, those the code calls. */
const errorListImport = (output: string, code: string): string[] => {
  const used = ['failed', 'joined', 'pushed'].filter((helper) => new RegExp(`\\b${helper}\\(`).test(code));
  return used.length === 0 ? [] : [`import { ${used.join(', ')} } from '${importPath(output, 'shared/validation/error-list')}';`];
};

/** The imports of a module of generated validators: the validator type, the formats (and string length) and the error-list helpers they call. */
export const validatorImports = (output: string, code: string): string[] => [
  `import type { DocumentValidator } from '${importPath(output, 'shared/validation/document')}';`,
  `import { formats${/\bstringLength\b/.test(code) ? ', stringLength' : ''} } from '${importPath(output, 'shared/validation/formats')}';`,
  ...errorListImport(output, code),
];

/** A generated module's text: its header, its imports, then its code. */
export const moduleText = (header: string, imports: readonly string[], code: string): string => [header, ...imports, '', code, ''].join('\n');
