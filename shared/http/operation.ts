// HTTP entry: the one middy stack every operation (the webhook too) runs, built from the operation's manifest entry.
// This file is the composition; each middleware is a module of middlewares/ that writes its result onto the request
// (middlewares/request.ts). Flow: case-insensitive headers -> request id, security headers & access log (the logger's
// per-request keys, reset by Powertools' `resetKeys` after the line) -> problem responses -> a repeated once-only
// header is refused -> authentication (the principal, and its token not expired) -> content negotiation ->
// body/path/query parsing and validation -> handler -> response serialisation.
import { loadFunctionEnvironment } from '#shared/operations/environment';
import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Operation } from '#shared/operations/operation';
import { isCompiledOperation, type CompiledOperation } from '#shared/operations/compiled-operation';
import { compileOperation } from '#shared/operations/compile-operation';
import { accessLog } from './middlewares/access-log';
import { authenticate } from './middlewares/authenticate';
import { caseInsensitiveHeaders } from './middlewares/case-insensitive-headers';
import { contentNegotiation } from './middlewares/content-negotiation';
import { parseRequest } from './middlewares/parse-request';
import { problemResponses } from './middlewares/problem-responses';
import { refuseAmbiguousHeaders } from './middlewares/refuse-ambiguous-headers';
import type { OperationContext, OperationRequest, RequestInternal } from './middlewares/request';

export type { OperationRequest } from './middlewares/request';
export { respond, type HttpResult } from './result';

export type OperationHandler<O> = (request: OperationRequest<O>) => Promise<unknown>;

/**
 * The stack, in order. middy runs `before` top-down and `after`/`onError` bottom-up, so the problem response exists
 * before the access log adds its headers, writes its line and resets the logger's keys.
 */
const buildHandler = <O>(operation: CompiledOperation, handle: OperationHandler<O>) =>
  middy<APIGatewayProxyEvent, unknown, Error, OperationContext, RequestInternal>({ timeoutEarlyInMillis: 500 })
    .use(caseInsensitiveHeaders())
    .use(accessLog(operation))
    .use(problemResponses(operation))
    .use(refuseAmbiguousHeaders())
    .use(authenticate(operation))
    .use(contentNegotiation(operation))
    .use(parseRequest(operation))
    .handler(async (_event, context) => {
      if (!context.operationRequest) throw new Error('parseRequest did not run');
      return handle(context.operationRequest as OperationRequest<O>);
    });

export interface HttpOperation<O> {
  readonly operation: CompiledOperation;
  handler(handle: OperationHandler<O>): ReturnType<typeof buildHandler<O>>;
}

/**
 * Builds the Lambda handler of one operation:
 * `httpOperation(tenantLocationGet).handler(async ({ principal, path }) => ...)`. The handler returns the response body
 * (sent with the manifest's success status) or `respond(...)`. A function takes its entry in compiled form, from
 * `shared/compiled/operations/<area>.ts` (generated from the manifest by `npm run openapi`): it carries the
 * operation's validation plans, not its zod schemas, so the bundle loads no zod. A manifest entry is accepted too
 * (tests, tools) and compiled in process to the same plans.
 */
export function httpOperation<O extends Operation>(operation: CompiledOperation<O>): HttpOperation<O>;
export function httpOperation<O extends Operation>(operation: O): HttpOperation<O>;
export function httpOperation(source: Operation | CompiledOperation): HttpOperation<Operation> {
  const operation = isCompiledOperation(source) ? source : compileOperation(source);
  // Once, when the function loads: every variable its grants and settings set, or a cold start naming the missing one.
  if (operation.needs) loadFunctionEnvironment(operation.needs);
  return { operation, handler: (handle) => buildHandler(operation, handle) };
}
