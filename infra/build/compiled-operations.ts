// Build step, part of `npm run openapi`: the run-time form of every manifest entry, shared/compiled/operations/<area>.ts
// (same export names as shared/operations/<area>.ts), which the functions import instead of the zod manifest. An entry
// carries what the HTTP stack needs and nothing of zod: the route, auth and media family, the body limit, the success
// status and XML root, the function's environment needs, the validators ajv compiled from the OpenAPI document's
// request schemas (request-validators.ts, in shared/compiled/requests/), and from the same schemas the JSON type of
// each path and query parameter and the request bodies' shapes, which coercion and the tenancy rule read
// (request-shapes.ts). The output is committed; test/unit/validation/generated.test.ts fails when it is stale, and
// test/infra/function-bundles.test.ts when a function's bundle still loads zod.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { operations, type Operation } from '#shared/operations/index';
import type { CompiledOperation, DocumentValidators } from '#shared/operations/compiled-operation';
import { needsOf } from '#shared/operations/environment';
import type { JsonObject, OpenApiDocument } from '#shared/openapi/types';
import type { XmlRoot } from '#shared/validation/compiled';
import type { DocumentValidator } from '#shared/validation/document';
import type { RequestShape } from '#shared/validation/shape';
import { componentSchemas, importPath, newAjv } from './ajv-code';
import { createShapeBuilder, parameterTypes } from './request-shapes';
import { parameterWords } from './rule-words';
import { committedDocument, documentOperations, requestSchemas, validatorNames, type DocumentOperation } from './request-validators';
import { repositoryRoot, staleFiles, writeFiles } from './generated-files';

export const operationsFolder = 'shared/compiled/operations';

interface Described {
  readonly _zod: { readonly def: { readonly type: string; readonly element?: z.ZodType } };
  meta?: () => { readonly id?: unknown } | undefined;
}

const idOf = (schema: z.ZodType | undefined): string | undefined => {
  const id = (schema as unknown as Described | undefined)?.meta?.()?.id;
  return id === undefined ? undefined : String(id);
};

/** XML names a response body after its registered schema id (zod `.meta({ id })`). */
export const xmlRootOf = (schema: z.ZodType | undefined): XmlRoot => {
  const def = (schema as unknown as Described | undefined)?._zod.def;
  if (def?.type === 'array') {
    const itemName = idOf(def.element) ?? 'item';
    return { name: `ArrayOf${itemName}`, itemName };
  }
  return { name: idOf(schema) ?? 'Response' };
};

/** The body schemas of an operation in the document: the JSON one, and the XML form's where it has one of its own. */
const bodySchemas = (operation: DocumentOperation): { json?: JsonObject; xml?: JsonObject } => {
  const content = operation.requestBody?.content;
  const json = content?.['application/json']?.schema;
  const xml = content?.['application/xml']?.schema;
  return { ...(json ? { json } : {}), ...(xml && JSON.stringify(xml) !== JSON.stringify(json) ? { xml } : {}) };
};

/** An entry's fields but its validators: `shape(root)` writes a body's shape (one node table per module). */
const entryFields = (operation: Operation, described: DocumentOperation, shape: (schema: JsonObject) => unknown) => {
  const { json, xml } = bodySchemas(described);
  const path = parameterTypes(described.parameters ?? [], 'path');
  const query = parameterTypes(described.parameters ?? [], 'query');
  const words = { ...parameterWords(operation.pathParameters), ...parameterWords(operation.query) };
  if (operation.requestBody && !json) throw new Error(`${operation.operationId} has a request body the document does not describe: run npm run openapi`);
  return {
    compiled: true as const,
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    auth: operation.auth,
    media: operation.media,
    ...(operation.maxBodyBytes === undefined ? {} : { maxBodyBytes: operation.maxBodyBytes }),
    ...(path ? { pathParameters: path } : {}),
    ...(query ? { query } : {}),
    ...(operation.requestBody && json
      ? { requestBody: { shape: shape(json), ...(xml ? { xmlShape: shape(xml) } : {}), required: operation.requestBody.required } }
      : {}),
    ...(operation.success ? { success: { status: operation.success.status, xmlRoot: xmlRootOf(operation.success.schema) } } : {}),
    ...(Object.keys(words).length > 0 ? { parameterWords: words } : {}),
  };
};

const describedOperation = (operations: ReadonlyMap<string, DocumentOperation>, operationId: string): DocumentOperation => {
  const described = operations.get(operationId);
  if (!described) throw new Error(`${operationId} is not in the OpenAPI document: run npm run openapi`);
  return described;
};

const componentsOf = (document: OpenApiDocument) => (document.components?.schemas ?? {}) as Readonly<Record<string, JsonObject>>;

const header = (source: string) =>
  `// Generated by \`npm run openapi\` (infra/build/compiled-operations.ts) from ${source} and shared/openapi/openapi.json: do not edit.\n` +
  '// The zod-free run-time form of those entries; a unit test fails when this file is stale.\n';

const literal = (value: unknown) => JSON.stringify(value).replace(/"(\w+)":/g, '$1: ');

const exportNameOf = (module: Record<string, unknown>, operation: Operation, area: string) => {
  const name = Object.keys(module).find((key) => module[key] === operation);
  if (!name) throw new Error(`${operation.operationId} is not exported by shared/operations/${area}.ts: export it there`);
  return name;
};

const camel = (area: string) => area.replace(/-(\w)/g, (_match, letter: string) => letter.toUpperCase()).replace(/s$/, '');

const renderArea = async (area: string, list: readonly Operation[], document: OpenApiDocument): Promise<[string, string]> => {
  const source = `shared/operations/${area}.ts`;
  const output = `${operationsFolder}/${area}.ts`;
  const module = (await import(pathToFileURL(join(repositoryRoot, source)).href)) as Record<string, unknown>;
  const described = documentOperations(document);
  const builder = createShapeBuilder(componentsOf(document));
  const body = list.map((operation) => {
    const documentOperation = describedOperation(described, operation.operationId);
    const entry = entryFields(operation, documentOperation, (schema) => `@@/* @__PURE__ */ shape(${builder.add(schema)})@@`);
    const names = validatorNames(operation.operationId);
    const validators = requestSchemas(documentOperation).map(([part]) => `${part}: requests.${names[part]}`);
    const name = exportNameOf(module, operation, area);
    const fields = [
      ...Object.entries(entry).map(([key, value]) => `${key}: ${literal(value).replace(/"@@(.*?shape\(\d+\))@@"/g, (_match, call: string) => call)}`),
      `document: { ${validators.join(', ')} }`,
      `needs: ${literal(needsOf(operation))}`,
    ];
    return `export const ${name}: CompiledOperation<typeof source.${name}> = {\n${fields.map((field) => `  ${field},`).join('\n')}\n};`;
  });
  const text = [
    header(source),
    `import type { CompiledOperation } from '${importPath(output, 'shared/operations/compiled-operation')}';`,
    `import type { RequestShape, ShapeNode } from '${importPath(output, 'shared/validation/shape')}';`,
    `import type * as source from '${importPath(output, source)}';`,
    `import * as requests from '../requests/${area}';`,
    '',
    '/** The request bodies\' shapes (shared/validation/shape.ts): what coercion and the tenancy rule read. */',
    'const nodes: readonly ShapeNode[] = [',
    ...builder.nodes.map((node, index) => `  /* ${index} */ ${JSON.stringify(node)},`),
    '];',
    '',
    'const shape = (root: number): RequestShape => ({ nodes, root });',
    '',
    body.join('\n\n'),
    '',
    `export const ${camel(area)}Operations = [${list.map((operation) => exportNameOf(module, operation, area)).join(', ')}] as const;`,
    '',
  ].join('\n');
  return [output, text];
};

/** Every generated file: path relative to the root -> content. */
export const generateCompiledOperations = async (document: OpenApiDocument = committedDocument()): Promise<Map<string, string>> => {
  const files = new Map<string, string>();
  const areas = new Map<string, Operation[]>();
  for (const operation of operations) areas.set(operation.area, [...(areas.get(operation.area) ?? []), operation]);
  const sorted = [...areas.keys()].sort();
  for (const area of sorted) {
    const [path, text] = await renderArea(area, areas.get(area) ?? [], document);
    files.set(path, text);
  }
  const index = [
    header('shared/operations/index.ts'),
    ...sorted.map((area) => `import { ${camel(area)}Operations } from './${area}';`),
    '',
    '/** Every operation in compiled form (the function that answers 501 finds its operation here). */',
    `export const compiledOperations = [${sorted.map((area) => `...${camel(area)}Operations`).join(', ')}] as const;`,
    '',
  ].join('\n');
  files.set(`${operationsFolder}/index.ts`, index);
  return files;
};

/** The files of shared/compiled/operations/ that differ from what the generator writes now. */
export const staleCompiledOperations = async (): Promise<string[]> => staleFiles(await generateCompiledOperations(), [operationsFolder]);

/** Writes shared/compiled/operations/ (replacing what was there); `npm run openapi` runs it. */
export const writeCompiledOperations = async (document: OpenApiDocument): Promise<number> => writeFiles(await generateCompiledOperations(document), [operationsFolder]);

/**
 * A manifest entry in its run-time form, built in process from the committed document (tests and tools that hand the
 * stack an entry of their own making): the same fields, shapes and validators as the generated entry, the validators
 * compiled by ajv with the same options, and no environment needs (it checks nothing when it loads).
 */
export const compileOperation = <O extends Operation>(operation: O, document: OpenApiDocument = committedDocument()): CompiledOperation<O> => {
  const described = describedOperation(documentOperations(document), operation.operationId);
  const components = componentsOf(document);
  const builder = createShapeBuilder(components);
  const entry = entryFields(operation, described, (schema): RequestShape => ({ nodes: builder.nodes, root: builder.add(schema) }));
  const ajv = newAjv();
  for (const schema of componentSchemas(components)) ajv.addSchema(schema);
  const document_: DocumentValidators = Object.fromEntries(
    requestSchemas(described).map(([part, schema]) => [part, ajv.compile(schema) as unknown as DocumentValidator]),
  );
  return { ...entry, document: document_ } as unknown as CompiledOperation<O>;
};
