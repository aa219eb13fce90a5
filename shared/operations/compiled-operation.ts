// Manifest: an operation in its run-time form (`npm run openapi` writes these into shared/compiled/operations/,
// infra/build/compiled-operations.ts). It carries the validators ajv compiled from the OpenAPI document's request
// schemas and, from the same schemas, the parameters' JSON types and the bodies' shapes (shared/validation/shape.ts)
// instead of zod schemas, so the functions that import one bundle no zod; its TypeScript types come from the manifest
// entry.
import type { Operation } from './operation';
import type { XmlRoot } from '#shared/validation/compiled';
import type { DocumentValidator } from '#shared/validation/document';
import type { ParameterTypes, RequestShape } from '#shared/validation/shape';

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

/** A manifest entry in its run-time form: what the HTTP stack needs, with validators and shapes in place of schemas. */
export interface CompiledOperation<O extends Operation = Operation> {
  readonly compiled: true;
  readonly operationId: O['operationId'];
  readonly method: O['method'];
  readonly path: O['path'];
  readonly auth: O['auth'];
  readonly media: O['media'];
  readonly maxBodyBytes?: number;
  /** The path parameters the document declares, each with its JSON type. */
  readonly pathParameters?: ParameterTypes;
  /** The query parameters the document declares, each with its JSON type. */
  readonly query?: ParameterTypes;
  /** A parameter's own words (its schema's `error`), said by every refusal of it (infra/build/rule-words.ts). */
  readonly parameterWords?: Readonly<Record<string, string>>;
  /** The body's shape, and the XML form's where the document gives it a schema of its own. */
  readonly requestBody?: { readonly shape: RequestShape; readonly xmlShape?: RequestShape; readonly required: boolean };
  readonly success?: { readonly status: number; readonly xmlRoot: XmlRoot };
  /** The document's validators of the request: the one validation of every part (shared/http/middlewares/parse-request.ts). */
  readonly document: DocumentValidators;
  /**
   * What the function's environment must hold (its table access, grants and stack settings), written by the generator
   * into the entries the functions import: `httpOperation` checks it when the function loads. An entry compiled in
   * process (infra/build/compiled-operations.ts `compileOperation`: a test's stack around a handler of its own) carries none.
   */
  readonly needs?: FunctionNeeds;
  /** Types only: the manifest entry this was compiled from (the handler's input types derive from it). */
  readonly [sourceOperation]?: O;
}

export type SourceOf<C> = C extends CompiledOperation<infer O> ? O : never;

export const isCompiledOperation = (operation: Operation | CompiledOperation): operation is CompiledOperation =>
  (operation as Partial<CompiledOperation>).compiled === true;
