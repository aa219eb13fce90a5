// Manifest: an operation in its run-time form (the generator writes these into shared/compiled/operations/;
// compile-operation.ts builds one in process). It carries validation plans (shared/validation) instead of zod
// schemas, so the functions that import one bundle no zod; its TypeScript types come from the manifest entry.
import type { Operation } from './operation';
import type { XmlRoot } from '#shared/validation/compiled';
import type { SchemaPlan } from '#shared/validation/plan';
import type { DocumentValidator } from '#shared/validation/document';

/** The validators ajv generated from the OpenAPI document for an operation's request (shared/compiled/requests/). */
export interface DocumentValidators {
  readonly path?: DocumentValidator;
  readonly query?: DocumentValidator;
  readonly body?: DocumentValidator;
  /** The XML form's, where the document gives it a schema of its own. */
  readonly xmlBody?: DocumentValidator;
}
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
  /** The document's validators of the request, run after the plans (shared/http/middlewares/parse-request.ts). */
  readonly document: DocumentValidators;
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
