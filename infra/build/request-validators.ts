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
import { join } from 'node:path';
import { operations } from '#shared/operations/index';
import type { JsonObject, JsonValue, OpenApiDocument } from '#shared/openapi/types';
import { componentSchemas, forValidation, moduleText, validatorExpression, validatorImports } from './ajv-code';
import { repositoryRoot, staleFiles, writeFiles } from './generated-files';
import { ruleWordsFile, ruleWordsModule } from './rule-words';

export const requestsFolder = 'shared/compiled/requests';

export interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema: JsonValue;
}

export interface DocumentOperation {
  readonly operationId?: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: JsonObject }>> };
}

/**
 * The parameters of one location as one object schema (their names are the members). A query the manifest declares
 * strict (zod's strictObject: a parameter sent by mistake is refused rather than ignored) refuses other members.
 */
const parametersSchema = (parameters: readonly Parameter[], location: 'path' | 'query', strict: boolean): JsonObject | undefined => {
  const chosen = parameters.filter((parameter) => parameter.in === location);
  if (chosen.length === 0) return undefined;
  return {
    type: 'object',
    properties: Object.fromEntries(chosen.map((parameter) => [parameter.name, forValidation(parameter.schema)])),
    required: chosen.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
    ...(strict ? { additionalProperties: false } : {}),
  };
};

/** Whether the manifest's query schema of an operation refuses parameters it does not declare. */
const strictQuery = (operationId: string): boolean => {
  const query = operations.find((operation) => operation.operationId === operationId)?.query as { _zod?: { def?: { catchall?: { _zod?: { def?: { type?: string } } } } } } | undefined;
  return query?._zod?.def?.catchall?._zod?.def?.type === 'never';
};

/** The request schemas of one operation of the document, by part: its path and query parameters and its bodies. */
export const requestSchemas = (operation: DocumentOperation): [ValidatorPart, JsonObject][] => {
  const parts: [ValidatorPart, JsonObject | undefined][] = [
    ['path', parametersSchema(operation.parameters ?? [], 'path', false)],
    ['query', parametersSchema(operation.parameters ?? [], 'query', strictQuery(operation.operationId ?? ''))],
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

export const documentOperations = (document: OpenApiDocument): Map<string, DocumentOperation> => {
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
  const schemas = componentSchemas(components);

  const files = new Map<string, string>();
  for (const [area, ids] of [...areas].sort(([a], [b]) => a.localeCompare(b))) {
    const validators: string[] = [];
    for (const operationId of ids) {
      const operation = byId.get(operationId);
      if (!operation) throw new Error(`${operationId} is not in the OpenAPI document: run npm run openapi`);
      const names = validatorNames(operationId);
      for (const [part, schema] of requestSchemas(operation)) {
        const expression = validatorExpression(names[part], schemas, schema, `urn:business-platform:request:${operationId}:${part}`);
        validators.push(`export const ${names[part]}: DocumentValidator = ${expression};`);
      }
    }
    const code = validators.join('\n\n');
    const output = `${requestsFolder}/${area}.ts`;
    files.set(output, moduleText(header, validatorImports(output, code), code));
  }
  files.set(ruleWordsFile, ruleWordsModule());
  return files;
};

/** The generated modules that differ from what the generator writes from the committed document. */
export const staleRequestValidators = (): string[] => staleFiles(generateRequestValidators(committedDocument()), [requestsFolder]);

/** Writes the modules of `document` into shared/compiled/requests/ (replacing what was there). */
export const writeRequestValidators = (document: OpenApiDocument): number => writeFiles(generateRequestValidators(document), [requestsFolder]);
