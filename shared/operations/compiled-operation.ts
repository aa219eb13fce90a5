// Manifest: an operation in its run-time form (the generator writes these into shared/compiled/operations/;
// compile-operation.ts builds one in process). It carries validation plans (shared/validation) instead of zod
// schemas, so the functions that import one bundle no zod; its TypeScript types come from the manifest entry.
import type { Operation } from './operation';
import type { XmlRoot } from '#shared/validation/compiled';
import type { SchemaPlan } from '#shared/validation/plan';
import type { FunctionNeeds } from './environment';

declare const sourceOperation: unique symbol;

/** A manifest entry in its run-time form: what the HTTP stack needs, with plans in place of schemas. */
export interface CompiledOperation<O extends Operation = Operation> {
  readonly compiled: true;
  readonly operationId: O['operationId'];
  readonly method: O['method'];
  readonly path: O['path'];
  readonly auth: O['auth'];
  readonly media: O['media'];
  readonly maxBodyBytes?: number;
  readonly pathParameters?: SchemaPlan;
  readonly query?: SchemaPlan;
  readonly requestBody?: { readonly schema: SchemaPlan; readonly xmlSchema?: SchemaPlan; readonly required: boolean };
  readonly success?: { readonly status: number; readonly xmlRoot: XmlRoot };
  /**
   * What the function's environment must hold (its table access, grants and stack settings), written by the generator
   * into the entries the functions import: `httpOperation` checks it when the function loads. An entry compiled in
   * process (a test's stack around a handler of its own) carries none.
   */
  readonly needs?: FunctionNeeds;
  /** Types only: the manifest entry this was compiled from (the handler's input types derive from it). */
  readonly [sourceOperation]?: O;
}

export type SourceOf<C> = C extends CompiledOperation<infer O> ? O : never;

export const isCompiledOperation = (operation: Operation | CompiledOperation): operation is CompiledOperation =>
  (operation as Partial<CompiledOperation>).compiled === true;
