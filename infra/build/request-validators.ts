// Build step, part of `npm run openapi` (infra/openapi.ts): ajv compiles the request schemas of the OpenAPI document
// the project emits (shared/openapi/openapi.json) into standalone validators, one module per area in
// shared/compiled/requests/<area>.ts, which the functions' bundles run (shared/http/operation.ts). So the JSON-Schema
// rules the server applies to a request are the document's, by construction: its bodies (the `application/json`
// schema, and the XML form's where it has one of its own) and its path and query parameters, read as OpenAPI's
// simple style reads them (an integer parameter is its plain decimal text).
//
// What the validators leave out: annotations (descriptions, examples, `xml`, `x-*`), and the `allOf` at a
// component's root, which states rules the domain applies beyond the fields' schemas (shape()'s domainRules): the
// domain refuses those with its own words, every problem of the body at once (shared/openapi/README.md).
// ajv options: JSON Schema 2020-12, strict about the schemas (an unknown keyword fails the build), no coercion, no
// defaults, no `$data`, `allErrors` (the problem lists every invalid field; shared/validation/document.ts reports at
// most 100), no messages (the words are ours and never repeat the value).
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { _ } from 'ajv/dist/compile/codegen';
import standaloneCode from 'ajv/dist/standalone';
import { operations } from '#shared/operations/index';
import { formats } from '#shared/validation/formats';
import type { JsonObject, JsonValue, OpenApiDocument } from '#shared/openapi/types';
import { repositoryRoot, staleFiles, writeFiles } from './generated-files';

export const requestsFolder = 'shared/compiled/requests';

const annotations = new Set(['description', 'examples', 'example', 'xml', 'writeOnly', 'readOnly', 'title', 'deprecated', 'default']);
const schemaId = (component: string) => `urn:business-platform:schema:${component}`;
const componentRef = /^#\/components\/schemas\/(.+)$/;

/** A schema as the validators read it: annotations dropped, component references by their ajv id. */
const forValidation = (node: JsonValue): JsonValue => {
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

const isJsonRecord = (value: JsonValue | undefined): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema: JsonValue;
}

interface DocumentOperation {
  readonly operationId?: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: JsonObject }>> };
}

/** The parameters of one location as one object schema (their names are the members). */
const parametersSchema = (parameters: readonly Parameter[], location: 'path' | 'query'): JsonObject | undefined => {
  const chosen = parameters.filter((parameter) => parameter.in === location);
  if (chosen.length === 0) return undefined;
  return {
    type: 'object',
    properties: Object.fromEntries(chosen.map((parameter) => [parameter.name, forValidation(parameter.schema)])),
    required: chosen.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
  };
};

/** The request schemas of one operation of the document, by part: its path and query parameters and its bodies. */
const requestSchemas = (operation: DocumentOperation): [ValidatorPart, JsonObject][] => {
  const parts: [ValidatorPart, JsonObject | undefined][] = [
    ['path', parametersSchema(operation.parameters ?? [], 'path')],
    ['query', parametersSchema(operation.parameters ?? [], 'query')],
  ];
  const content = operation.requestBody?.content;
  if (content) {
    const json = content['application/json']?.schema;
    const xml = content['application/xml']?.schema;
    parts.push(['body', json === undefined ? undefined : (forValidation(json) as JsonObject)]);
    // The XML form has a validator of its own only where the document gives it a schema of its own.
    if (xml !== undefined && JSON.stringify(xml) !== JSON.stringify(json)) parts.push(['xmlBody', forValidation(xml) as JsonObject]);
  }
  return parts.filter((part): part is [ValidatorPart, JsonObject] => part[1] !== undefined);
};

const documentOperations = (document: OpenApiDocument): Map<string, DocumentOperation> => {
  const byId = new Map<string, DocumentOperation>();
  for (const item of Object.values(document.paths ?? {}) as Record<string, unknown>[]) {
    for (const value of Object.values(item)) {
      const operation = value as DocumentOperation;
      if (typeof operation?.operationId === 'string') byId.set(operation.operationId, operation);
    }
  }
  return byId;
};

/** Which validators each operation has (the parts of its request the document describes). */
export const requestParts = (document: OpenApiDocument): Map<string, ValidatorPart[]> =>
  new Map([...documentOperations(document)].map(([operationId, operation]) => [operationId, requestSchemas(operation).map(([part]) => part)]));

/** The committed document (the generated modules are made from it). */
export const committedDocument = (): OpenApiDocument =>
  JSON.parse(readFileSync(join(repositoryRoot, 'shared/openapi/openapi.json'), 'utf8')) as OpenApiDocument;

/** The export names of an operation's validators in its area's module. */
export const validatorNames = (operationId: string) =>
  ({ path: `${operationId}Path`, query: `${operationId}Query`, body: `${operationId}Body`, xmlBody: `${operationId}XmlBody` }) as const;

export type ValidatorPart = keyof ReturnType<typeof validatorNames>;

const newAjv = () => {
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

const header = [
  '// @ts-nocheck -- generated JavaScript (ajv standalone code); its exports are typed at the end.',
  '// Generated by `npm run openapi` (infra/build/request-validators.ts) from shared/openapi/openapi.json: do not edit.',
  "// The request validators of this area's operations; a unit test fails when this file is stale.",
].join('\n');

/** Every generated module: path relative to the root -> content. */
export const generateRequestValidators = (document: OpenApiDocument): Map<string, string> => {
  const components = (document.components?.schemas ?? {}) as Readonly<Record<string, JsonObject>>;
  const byId = documentOperations(document);
  const areas = new Map<string, string[]>();
  for (const operation of operations) areas.set(operation.area, [...(areas.get(operation.area) ?? []), operation.operationId]);

  // Components and their shared leaves, as every validator of the build reads them.
  const leaves = new Map<string, string>();
  const schemas: JsonObject[] = Object.entries(components).map(([name, schema]) => {
    // The root allOf of a component holds the domain's rules (see above); patterns sit in a property's allOf.
    const { allOf: _domainRules, ...fields } = forValidation(schema) as JsonObject;
    return { ...sharingLeaves(fields, leaves), $id: schemaId(name) };
  });
  for (const [text, id] of leaves) schemas.push({ ...(JSON.parse(text) as JsonObject), $id: id });

  /**
   * One validator as a pure expression: ajv's code for it (and what it references) inside a function called once. A
   * bundle keeps only the validators its function's entry names: esbuild drops an unused `@__PURE__` call, while
   * ajv's module-level code (`validate.evaluated = ...`) would keep every validator of the area in every bundle.
   */
  const validatorCode = (name: string, schema: JsonObject, id: string): string => {
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
    return `export const ${name}: DocumentValidator = /* @__PURE__ */ (() => {${code.replace(exported, '')}\nreturn ${root};})();`;
  };

  const files = new Map<string, string>();
  for (const [area, ids] of [...areas].sort(([a], [b]) => a.localeCompare(b))) {
    const validators: string[] = [];
    for (const operationId of ids) {
      const operation = byId.get(operationId);
      if (!operation) throw new Error(`${operationId} is not in the OpenAPI document: run npm run openapi`);
      const names = validatorNames(operationId);
      for (const [part, schema] of requestSchemas(operation)) {
        validators.push(validatorCode(names[part], schema, `urn:business-platform:request:${operationId}:${part}`));
      }
    }
    const code = validators.join('\n\n');
    const output = `${requestsFolder}/${area}.ts`;
    const text = [
      header,
      `import type { DocumentValidator } from '${relative(dirname(output), 'shared/validation/document').replace(/^(?!\.)/, './')}';`,
      `import { formats${/\bstringLength\b/.test(code) ? ', stringLength' : ''} } from '${relative(dirname(output), 'shared/validation/formats').replace(/^(?!\.)/, './')}';`,
      '',
      code,
      '',
    ].join('\n');
    files.set(output, text);
  }
  return files;
};

/** The generated modules that differ from what the generator writes from the committed document. */
export const staleRequestValidators = (): string[] => staleFiles(generateRequestValidators(committedDocument()), [requestsFolder]);

/** Writes the modules of `document` into shared/compiled/requests/ (replacing what was there). */
export const writeRequestValidators = (document: OpenApiDocument): number => writeFiles(generateRequestValidators(document), [requestsFolder]);
