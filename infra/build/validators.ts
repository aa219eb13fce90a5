// Build step (part of `npm run openapi`): writes shared/compiled/, the zod-free run-time form of the zod schemas the
// functions use. Every operation of the manifest gets a compiled entry in shared/compiled/operations/<area>.ts (same
// export name as in shared/operations/<area>.ts), and the few schemas functions use outside the HTTP stack (listed
// below) get one in shared/compiled/<their path>. The output is committed; test/unit/validation/generated.test.ts
// fails when it is stale, and test/infra/function-bundles.test.ts when a function's bundle still loads zod.
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { operations, type Operation } from '#shared/operations/index';
import { createPlanBuilder } from '#shared/validation/compile';
import { compileOperationWith } from '#shared/operations/compile-operation';
import { needsOf } from '#shared/operations/environment';
import type { NodePlan } from '#shared/validation/plan';
import { committedDocument, requestParts, validatorNames, type ValidatorPart } from './request-validators';
import { repositoryRoot, staleFiles, writeFiles } from './generated-files';

export const compiledFolder = 'shared/compiled';
/** The folders of shared/compiled/ this generator writes (requests/ is request-validators.ts's). */
const planFolders = ['shared/compiled/operations'];

type Builder = ReturnType<typeof createPlanBuilder>;

/**
 * Merges structurally identical nodes (the hundreds of `text().optional()` of the big bodies are one node) and
 * drops nodes no root reaches. Returns the new table and the old -> new index map.
 */
const compact = (nodes: readonly NodePlan[], roots: readonly number[]) => {
  const childKeys = new Set(['node', 'element', 'inner', 'in', 'out']);
  const keyOf = (node: NodePlan, rep: readonly number[]) =>
    JSON.stringify(node, (key, value: unknown) => {
      if (childKeys.has(key) && typeof value === 'number') return rep[value];
      if (key === 'options' && Array.isArray(value)) return value.map((index: number) => rep[index]);
      if (value instanceof RegExp) return `regexp:${value.toString()}`;
      return value;
    });
  let rep = nodes.map((_, index) => index);
  for (;;) {
    const first = new Map<string, number>();
    const next = nodes.map((node, index) => {
      const key = keyOf(node, rep);
      const found = first.get(key);
      if (found === undefined) first.set(key, index);
      return found ?? index;
    });
    if (next.every((value, index) => value === rep[index])) break;
    rep = next;
  }
  // Renumber the representatives reachable from the roots, in depth-first order from the roots.
  const order = new Map<number, number>();
  const visit = (index: number) => {
    const target = rep[index] as number;
    if (order.has(target)) return;
    order.set(target, order.size);
    const node = nodes[target] as NodePlan;
    for (const child of children(node)) visit(child);
  };
  for (const root of roots) visit(root);
  const map = (index: number) => order.get(rep[index] as number) as number;
  const table: NodePlan[] = [];
  for (const [old, fresh] of order) table[fresh] = remap(nodes[old] as NodePlan, map);
  return { table, map };
};

const children = (node: NodePlan): number[] => {
  switch (node.type) {
    case 'object':
      return [...Object.values(node.shape).map((field) => field.node), ...(node.catchall && node.catchall !== 'never' ? [node.catchall.node] : [])];
    case 'array':
      return [node.element];
    case 'optional':
    case 'nullable':
      return [node.inner];
    case 'pipe':
      return [node.in, node.out];
    case 'union':
      return [...node.options];
    default:
      return [];
  }
};

const remap = (node: NodePlan, map: (index: number) => number): NodePlan => {
  switch (node.type) {
    case 'object':
      return {
        ...node,
        shape: Object.fromEntries(Object.entries(node.shape).map(([key, field]) => [key, { ...field, node: map(field.node) }])),
        ...(node.catchall && node.catchall !== 'never' ? { catchall: { ...node.catchall, node: map(node.catchall.node) } } : {}),
      };
    case 'array':
      return { ...node, element: map(node.element) };
    case 'optional':
    case 'nullable':
      return { ...node, inner: map(node.inner) };
    case 'pipe':
      return { ...node, in: map(node.in), out: map(node.out) };
    case 'union':
      return { ...node, options: node.options.map(map) };
    default:
      return node;
  }
};

/** The node table as TypeScript: one node per line, regular expressions hoisted into constants. */
const renderNodes = (table: readonly NodePlan[]) => {
  const patterns = new Map<string, string>();
  const lines = table.map((node, index) => {
    const text = JSON.stringify(node, (_key, value: unknown) => {
      if (!(value instanceof RegExp)) return value;
      const literal = value.toString();
      if (!patterns.has(literal)) patterns.set(literal, `pattern${patterns.size}`);
      return `@@${patterns.get(literal)}@@`;
    }).replace(/"@@(pattern\d+)@@"/g, '$1');
    return `  /* ${index} */ ${text},`;
  });
  const constants = [...patterns].map(([literal, name]) => `const ${name} = ${literal};`);
  return [...constants, '', 'const nodes: readonly NodePlan[] = [', ...lines, '];'].join('\n');
};

const header = (source: string) =>
  `// Generated by \`npm run openapi\` (infra/build/validators.ts) from ${source}: do not edit.\n` +
  '// The zod-free run-time form of those schemas; a unit test fails when this file is stale.\n';

const importPath = (from: string, to: string) => {
  const path = relative(dirname(from), to).replace(/\.ts$/, '');
  return path.startsWith('.') ? path : `./${path}`;
};

const exportNameOf = (module: Record<string, unknown>, operation: Operation, area: string) => {
  const name = Object.keys(module).find((key) => module[key] === operation);
  if (!name) throw new Error(`${operation.operationId} is not exported by shared/operations/${area}.ts: export it there`);
  return name;
};

const renderOperations = async (area: string, list: readonly Operation[], parts: ReadonlyMap<string, readonly ValidatorPart[]>): Promise<[string, string]> => {
  const source = `shared/operations/${area}.ts`;
  const output = `${compiledFolder}/operations/${area}.ts`;
  const module = (await import(pathToFileURL(join(repositoryRoot, source)).href)) as Record<string, unknown>;
  const builder: Builder = createPlanBuilder();
  const entries = list.map((operation) => ({ name: exportNameOf(module, operation, area), needs: needsOf(operation), entry: compileOperationWith(operation, builder.add) }));
  const roots = entries.flatMap(({ entry }) => [entry.pathParameters, entry.query, entry.requestBody?.schema, entry.requestBody?.xmlSchema].filter((root): root is number => root !== undefined));
  const { table, map } = compact(builder.nodes, roots);
  const plan = (root: number | undefined) => (root === undefined ? undefined : `/* @__PURE__ */ plan(${map(root)})`);
  const body = entries.map(({ name, needs, entry }) => {
    const fields = [
      `compiled: true`,
      `operationId: ${JSON.stringify(entry.operationId)}`,
      `method: ${JSON.stringify(entry.method)}`,
      `path: ${JSON.stringify(entry.path)}`,
      `auth: ${JSON.stringify(entry.auth)}`,
      `media: ${JSON.stringify(entry.media)}`,
      ...(entry.maxBodyBytes === undefined ? [] : [`maxBodyBytes: ${entry.maxBodyBytes}`]),
      ...(entry.pathParameters === undefined ? [] : [`pathParameters: ${plan(entry.pathParameters)}`]),
      ...(entry.query === undefined ? [] : [`query: ${plan(entry.query)}`]),
      ...(entry.requestBody
        ? [
            `requestBody: { schema: ${plan(entry.requestBody.schema)}, ${entry.requestBody.xmlSchema === undefined ? '' : `xmlSchema: ${plan(entry.requestBody.xmlSchema)}, `}required: ${entry.requestBody.required} }`,
          ]
        : []),
      ...(entry.success ? [`success: ${JSON.stringify(entry.success).replace(/"(\w+)":/g, '$1: ')}`] : []),
      `document: { ${(parts.get(entry.operationId) ?? []).map((part) => `${part}: requests.${validatorNames(entry.operationId)[part]}`).join(', ')} }`,
      `needs: ${JSON.stringify(needs).replace(/"(\w+)":/g, '$1: ')}`,
    ];
    return `export const ${name}: CompiledOperation<typeof source.${name}> = {\n${fields.map((field) => `  ${field},`).join('\n')}\n};`;
  });
  const text = [
    header(source),
    `import type { CompiledOperation } from '${importPath(output, 'shared/operations/compiled-operation.ts')}';`,
    `import type { NodePlan, SchemaPlan } from '${importPath(output, 'shared/validation/plan.ts')}';`,
    `import type * as source from '${importPath(output, source)}';`,
    `import * as requests from '../requests/${area}';`,
    '',
    renderNodes(table),
    '',
    'const plan = (root: number): SchemaPlan => ({ nodes, root });',
    '',
    body.join('\n\n'),
    '',
    `export const ${camel(area)}Operations = [${entries.map(({ name }) => name).join(', ')}] as const;`,
    '',
  ].join('\n');
  return [output, text];
};

const camel = (area: string) => area.replace(/-(\w)/g, (_match, letter: string) => letter.toUpperCase()).replace(/s$/, '');

/** Every generated file: path relative to the root -> content. */
export const generateCompiledModules = async (parts = requestParts(committedDocument())): Promise<Map<string, string>> => {
  const files = new Map<string, string>();
  const areas = new Map<string, Operation[]>();
  for (const operation of operations) areas.set(operation.area, [...(areas.get(operation.area) ?? []), operation]);
  for (const [area, list] of [...areas].sort(([a], [b]) => a.localeCompare(b))) {
    const [path, text] = await renderOperations(area, list, parts);
    files.set(path, text);
  }
  const index = [
    header('shared/operations/index.ts'),
    ...[...areas.keys()].sort().map((area) => `import { ${camel(area)}Operations } from './${area}';`),
    '',
    '/** Every operation in compiled form (the function that answers 501 finds its operation here). */',
    `export const compiledOperations = [${[...areas.keys()].sort().map((area) => `...${camel(area)}Operations`).join(', ')}] as const;`,
    '',
  ].join('\n');
  files.set(`${compiledFolder}/operations/index.ts`, index);
  return files;
};

/** The files of shared/compiled/operations and schemas that differ from what the generator writes now. */
export const staleCompiledModules = async (): Promise<string[]> => staleFiles(await generateCompiledModules(), planFolders);

/** Writes shared/compiled/operations/ and shared/compiled/schemas/ (replacing what was there); `npm run openapi` runs it. */
export const writeCompiledModules = async (): Promise<number> => writeFiles(await generateCompiledModules(), planFolders);
