// Manifest: a manifest entry (zod schemas) in its run-time form (plans). The generator writes these for the
// functions (shared/compiled/operations/); the HTTP stack builds one itself when it is handed a manifest entry
// directly (tests, tools), so both paths run the same code on the same plans.
import type { z } from 'zod';
import type { Operation } from './operation';
import type { CompiledOperation } from './compiled-operation';
import type { XmlRoot } from '#shared/validation/compiled';
import { createPlanBuilder } from '#shared/validation/compile';
import type { SchemaPlan } from '#shared/validation/plan';

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

/** The inputs of an operation as node indexes into `add`'s table. */
export const compileOperationWith = (operation: Operation, add: (schema: z.ZodType, where: string) => number) => {
  const at = (part: string) => `${operation.operationId}.${part}`;
  return {
    compiled: true as const,
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    auth: operation.auth,
    media: operation.media,
    ...(operation.maxBodyBytes === undefined ? {} : { maxBodyBytes: operation.maxBodyBytes }),
    ...(operation.pathParameters ? { pathParameters: add(operation.pathParameters, at('path')) } : {}),
    ...(operation.query ? { query: add(operation.query, at('query')) } : {}),
    ...(operation.requestBody
      ? {
          requestBody: {
            schema: add(operation.requestBody.schema, at('body')),
            ...(operation.requestBody.xmlSchema ? { xmlSchema: add(operation.requestBody.xmlSchema, at('xmlBody')) } : {}),
            required: operation.requestBody.required,
          },
        }
      : {}),
    ...(operation.success ? { success: { status: operation.success.status, xmlRoot: xmlRootOf(operation.success.schema) } } : {}),
  };
};

const compiledOperations = new WeakMap<Operation, CompiledOperation>();

/** The run-time form of a manifest entry, built in process (cached per entry). */
export const compileOperation = <O extends Operation>(operation: O): CompiledOperation<O> => {
  const known = compiledOperations.get(operation);
  if (known) return known as CompiledOperation<O>;
  const builder = createPlanBuilder();
  const { pathParameters, query, requestBody, ...rest } = compileOperationWith(operation, builder.add);
  const plan = (root: number): SchemaPlan => ({ nodes: builder.nodes, root });
  const compiled: CompiledOperation = {
    ...rest,
    // The document's validators are generated for the manifest's operations (shared/compiled/requests/, taken by the
    // compiled entries of shared/compiled/operations/); an entry compiled in process runs its plans only.
    document: {},
    ...(pathParameters === undefined ? {} : { pathParameters: plan(pathParameters) }),
    ...(query === undefined ? {} : { query: plan(query) }),
    ...(requestBody
      ? {
          requestBody: {
            schema: plan(requestBody.schema),
            ...(requestBody.xmlSchema === undefined ? {} : { xmlSchema: plan(requestBody.xmlSchema) }),
            required: requestBody.required,
          },
        }
      : {}),
  };
  compiledOperations.set(operation, compiled);
  return compiled as CompiledOperation<O>;
};
