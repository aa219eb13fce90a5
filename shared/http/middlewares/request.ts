// HTTP middlewares: what they share. The request every middleware of the stack sees (middy's), what each one writes
// on it, and what the handler receives. Each middleware writes its result onto the request, as middy's own do:
// `request.internal` for what later middlewares read (the principal, the chosen media type, ...), and
// `request.context` for what the handler reads (`parse-request.ts` puts the validated input there; middy calls the
// handler with the event and the context only).
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { z } from 'zod';
import type { Principal } from '#shared/auth/principal';
import type { RepeatedHeaderFinding } from '#shared/http/header-lines';
import type { Invocation } from '#shared/invocation';

type BodyOf<O> = O extends { requestBody: { schema: infer S extends z.ZodType; required: infer R } }
  ? R extends true
    ? z.output<S>
    : z.output<S> | undefined
  : undefined;
type PathOf<O> = O extends { pathParameters: infer S extends z.ZodType } ? z.output<S> : undefined;
type QueryOf<O> = O extends { query: infer S extends z.ZodType } ? z.output<S> : undefined;
type PrincipalOf<O> = O extends { auth: 'bearer' } ? Principal : undefined;

/** What a handler receives: the validated request, and nothing it would have to parse itself. */
export interface OperationRequest<O> {
  readonly body: BodyOf<O>;
  readonly path: PathOf<O>;
  readonly query: QueryOf<O>;
  readonly principal: PrincipalOf<O>;
  readonly requestId: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly rawBody: string;
  readonly context: Context;
}

/** What the middlewares write for each other, on `request.internal`. */
export interface RequestInternal extends Record<string, unknown> {
  /** `access-log.ts`: when the request arrived. */
  startedAt?: number;
  /** `case-insensitive-headers.ts`: a once-only header carried ambiguously, refused by `refuse-ambiguous-headers.ts`. */
  ambiguousHeader?: RepeatedHeaderFinding | undefined;
  /** `authenticate.ts`: who is calling (bearer operations). */
  principal?: Principal;
  /** `content-negotiation.ts`: the response's media type. */
  responseType?: string;
  /** `problem-responses.ts`: the answer is the gateway's own response (it keeps the gateway's security headers). */
  gatewayAnswer?: boolean;
}

/** The Lambda context as the handler gets it: `parse-request.ts` adds the validated input. */
export interface OperationContext extends Context {
  operationRequest?: OperationRequest<unknown>;
  /** `operation.ts`: the invocation the handler runs in (its writes' outcome, read by `problem-responses.ts`). */
  invocation?: Invocation;
}

export type HttpRequest = Request<APIGatewayProxyEvent, unknown, Error, OperationContext, RequestInternal>;
export type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, unknown, Error, OperationContext, RequestInternal>;

/** API Gateway's request id (the problem's `instance`, `X-Request-Id`), else the invocation's. */
export const requestIdOf = (request: Pick<HttpRequest, 'event' | 'context'>): string =>
  request.event.requestContext?.requestId ?? request.context.awsRequestId ?? 'unknown';

/** A header of the event, once `case-insensitive-headers.ts` has run (lower-case names). */
export const headerOf = (event: APIGatewayProxyEvent, name: string): string | undefined => event.headers?.[name] ?? undefined;
