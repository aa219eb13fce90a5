// Build: what the generators of shared/compiled/ share to turn JSON Schema into ajv standalone code (`npm run
// openapi`): the schemas as the validators read them (annotations dropped, component references by their ajv id,
// repeated leaves shared), ajv's options, and one validator as a pure expression a bundle drops when it does not
// name it. Used for the request validators of the OpenAPI document (request-validators.ts) and for the schemas the
// service checks outside the HTTP stack: queue messages, the principal (schema-validators.ts).
//
// ajv options: JSON Schema 2020-12, strict about the schemas (an unknown keyword fails the build), no coercion, no
// defaults, no `$data`, `allErrors` (a refusal lists every invalid field; shared/validation/document.ts reports at
// most 100), no messages (the words are ours and never repeat the value).
import { dirname, relative } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { _ } from 'ajv/dist/compile/codegen';
import standaloneCode from 'ajv/dist/standalone';
import { formats } from '#shared/validation/formats';
import type { JsonObject, JsonValue } from '#shared/openapi/types';

const annotations = new Set(['description', 'examples', 'example', 'xml', 'writeOnly', 'readOnly', 'title', 'deprecated', 'default']);
export const schemaId = (component: string) => `urn:business-platform:schema:${component}`;
const componentRef = /^#\/components\/schemas\/(.+)$/;

/** A schema as the validators read it: annotations dropped, component references by their ajv id. */
export const forValidation = (node: JsonValue): JsonValue => {
  if (Array.isArray(node)) return node.map(forValidation);
  if (node === null || typeof node !== 'object') return node;
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

export const newAjv = () => {
  const ajv = new Ajv2020({
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
  });
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format as Parameters<typeof ajv.addFormat>[1]);
  return ajv;
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
  const exported = new RegExp(`export const ${name} = (validate\\d+);`);
  const root = exported.exec(code)?.[1];
  if (root === undefined) throw new Error(`ajv wrote no export ${name}`);
  return `/* @__PURE__ */ (() => {${code.replace(exported, '')}\nreturn ${root};})()`;
};

/** An import path from the generated module `output` to the repository file `target` (no extension). */
export const importPath = (output: string, target: string): string => {
  const path = relative(dirname(output), target).replace(/\.ts$/, '');
  return path.startsWith('.') ? path : `./${path}`;
};

/** The imports of a module of generated validators: the validator type and the formats (and string length) they call. */
export const validatorImports = (output: string, code: string): string[] => [
  `import type { DocumentValidator } from '${importPath(output, 'shared/validation/document')}';`,
  `import { formats${/\bstringLength\b/.test(code) ? ', stringLength' : ''} } from '${importPath(output, 'shared/validation/formats')}';`,
];

/** A generated module's text: its header, its imports, then its code. */
export const moduleText = (header: string, imports: readonly string[], code: string): string => [header, ...imports, '', code, ''].join('\n');
