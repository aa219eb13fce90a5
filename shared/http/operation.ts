// HTTP entry: the one middy stack every operation (the webhook too) runs, built from the operation's manifest entry.
// Flow: case-insensitive headers -> request id & security headers -> problem responses -> a repeated once-only header
// is refused -> authentication (the principal, and its token not expired) -> content negotiation -> body/path/query
// parsing and validation -> handler -> response serialisation.
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import { principalFromAuthorizerContext, tokenLapse, type Principal } from '#shared/auth/principal';
import {
  ApiError,
  NotAcceptable,
  PayloadTooLarge,
  problemKinds,
  Unauthorized,
  UnsupportedMediaType,
  ValidationFailed,
  WriteOutcomeUnknown,
} from '#shared/errors';
import { describeError, logger } from '#shared/observability/logger';
import type { Operation } from '#shared/operations/operation';
import { limits } from '#shared/schemas/limits';
import { isCompiledOperation, type CompiledOperation } from '#shared/operations/compiled-operation';
import { compileOperation } from '#shared/operations/compile-operation';
import type { SchemaPlan } from '#shared/validation/plan';
import { coerceToPlan } from './codecs/coerce';
import { assertJsonNumbersStorable } from './codecs/json-numbers';
import { parseForm } from './codecs/form';
import { parseJsonBody } from './codecs/json';
import { loadXmlParser, parseXml, serializeXml } from './codecs/xml';
import { gatewayResponseFromFunction, type GatewayResponseType } from './gateway-responses';
import { ambiguousOnceOnlyHeader, eventHeaderLines, normalizedHeaderMaps, RepeatedHeader, type RepeatedHeaderFinding } from './header-lines';
import { gatewaySecurityHeaders, requestIdHeader, securityHeaders } from './headers';
import {
  acceptedContentCodings,
  isShortToken,
  isXmlMediaType,
  negotiate,
  parseMediaType,
  requestMediaTypes,
  responseMediaTypes,
  unsupportedContentCoding,
  type BodyFormat,
} from './media';
import { problemResponse, toApiError } from './problem';
import { applyTenancy } from './tenancy';
import { validate, validateWithDocument } from './validation';

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

const resultBrand = Symbol('HttpResult');

/** A handler's answer when the manifest's success status is not the whole story (201 + Location, 202, ...). */
export interface HttpResult {
  readonly [resultBrand]: true;
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

export const respond = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResult => ({
  [resultBrand]: true,
  status,
  body,
  headers,
});

const isHttpResult = (value: unknown): value is HttpResult =>
  typeof value === 'object' && value !== null && resultBrand in value;

interface Internal extends Record<string, unknown> {
  responseType?: string;
  startedAt?: number;
  ambiguousHeader?: RepeatedHeaderFinding | undefined;
  principal?: Principal;
  /** The answer is a gateway response (`GatewayRefusal`): it keeps the gateway's security headers. */
  gatewayAnswer?: boolean;
}

/**
 * A refusal the gateway itself makes for a request it sees (an expired token, when no cached Allow stands in the
 * way): a function that meets one answers the gateway's own response, so the client gets the same answer whichever
 * refused it.
 */
class GatewayRefusal extends Error {
  override readonly name = 'GatewayRefusal';
  constructor(readonly type: GatewayResponseType, reason: string) {
    super(reason);
  }
}

/** The validated input of each in-flight event, handed from parseRequest to the handler without touching either. */
const validatedInputs = new WeakMap<APIGatewayProxyEvent, OperationRequest<unknown>>();

type HttpRequest = Request<APIGatewayProxyEvent, unknown, Error, Context, Internal>;
type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, unknown, Error, Context, Internal>;

const requestIdOf = (request: HttpRequest): string =>
  request.event.requestContext?.requestId ?? request.context.awsRequestId ?? 'unknown';

const header = (event: APIGatewayProxyEvent, name: string): string | undefined => event.headers?.[name] ?? undefined;

/**
 * Header names are case-insensitive (RFC 9110 §5.1), but API Gateway keys the event's maps by the names as sent.
 * Replaces both maps by their case-insensitive form (lower-case names, every line kept: `header-lines.ts`), so no
 * reader can pick one of `Content-Type` and `content-type`, and notes a once-only header that several lines carry,
 * or whose `headers` and `multiValueHeaders` disagree, for `refuseAmbiguousHeaders`. (@middy/http-header-normalizer,
 * used before, kept whichever case form it met last, and so hid the conflict.)
 */
const caseInsensitiveHeaders = (): HttpMiddleware => ({
  before: (request) => {
    const inspected = eventHeaderLines(request.event);
    Object.assign(request.event, normalizedHeaderMaps(inspected.lines));
    request.internal.ambiguousHeader = ambiguousOnceOnlyHeader(inspected);
  },
});

/** A once-only header carried ambiguously is refused (400, naming it) before anything reads a header. */
const refuseAmbiguousHeaders = (): HttpMiddleware => ({
  before: (request) => {
    if (request.internal.ambiguousHeader) throw new RepeatedHeader(request.internal.ambiguousHeader);
  },
});

/** Adds the request id and security headers to every response, and writes one access log line. */
const responseHeaders = (operation: CompiledOperation): HttpMiddleware => {
  const finish = (request: HttpRequest) => {
    const response = request.response as APIGatewayProxyResult | undefined;
    if (!response) return;
    const security = request.internal.gatewayAnswer ? gatewaySecurityHeaders : securityHeaders;
    response.headers = { ...response.headers, ...security, [requestIdHeader]: requestIdOf(request) };
    logger.info('request completed', {
      operationId: operation.operationId,
      status: response.statusCode,
      durationMs: request.internal.startedAt === undefined ? undefined : Date.now() - request.internal.startedAt,
    });
    logger.removeKeys(['requestId', 'tenantId', 'operationId']);
  };
  return {
    before: (request) => {
      request.internal.startedAt = Date.now();
      logger.addContext(request.context);
      logger.appendKeys({ requestId: requestIdOf(request), operationId: operation.operationId });
    },
    after: finish,
    onError: finish,
  };
};

const prefersXml = (operation: CompiledOperation, accept: string | undefined): boolean =>
  operation.media === 'standard' && isXmlMediaType(negotiate(accept, responseMediaTypes[operation.media]) ?? '');

/** An operation whose method may write (anything but GET). */
const mayWrite = (operation: CompiledOperation): boolean => operation.method !== 'GET';

/**
 * The rule of a write that runs out of time (README.md, "A write that runs out of time"): middy's early timeout, or a
 * request to a dependency that timed out (`TimeoutError` both), leaves what the write sent in flight, and it may still
 * commit. A read answers 503 with Retry-After (a retry is harmless); a write answers 504 without it, and says that
 * only a retry with the same Idempotency-Key is safe.
 */
const answerOf = (operation: CompiledOperation, error: unknown) =>
  mayWrite(operation) && error instanceof Error && error.name === 'TimeoutError' ? new WriteOutcomeUnknown(error) : toApiError(error);

/** Turns any error into a problem response (XML when the client prefers XML). Logs 5xx with safe fields only. */
const problemResponses = (operation: CompiledOperation): HttpMiddleware => ({
  onError: (request) => {
    if (request.error instanceof GatewayRefusal) {
      logger.info('request refused', { status: 401, reason: request.error.message });
      request.internal.gatewayAnswer = true;
      request.response = gatewayResponseFromFunction(request.error.type, requestIdOf(request));
      return;
    }
    const error = answerOf(operation, request.error);
    if (error.status >= 500) logger.error('request failed', describeError(request.error));
    else logger.info('request refused', { status: error.status, problemType: error.kind.type });
    request.response = problemResponse(error, requestIdOf(request), prefersXml(operation, header(request.event, 'accept')));
  },
});

/**
 * Who is calling: the principal from the authorizer's context, before anything else reads the request (the gateway
 * runs its authorizer before the function, after refusing a repeated once-only header). API Gateway serves the
 * authorizer's Allow from its cache for the result TTL whatever the token's `exp` says, so the context carries the
 * token's window and a token that has lapsed since is refused here, with the gateway's own 401 (the answer the
 * gateway gives the same token on a cache miss). A context without a valid principal or `exp` is refused too (401).
 */
const authenticate = (operation: CompiledOperation): HttpMiddleware => ({
  before: (request) => {
    if (operation.auth !== 'bearer') return;
    const authorized = principalFromAuthorizerContext(request.event.requestContext?.authorizer);
    if (!authorized) throw new Unauthorized();
    const lapse = tokenLapse(authorized.validity);
    if (lapse) throw new GatewayRefusal('UNAUTHORIZED', `token ${lapse}`);
    request.internal.principal = authorized.principal;
    logger.appendKeys({ tenantId: authorized.principal.tenantId });
  },
});

/** Chooses the response media type first (406 before any work) and serialises the handler's answer into it. */
const contentNegotiation = (operation: CompiledOperation): HttpMiddleware => {
  const available = responseMediaTypes[operation.media];
  const xmlRoot = operation.success?.xmlRoot ?? { name: 'Response' };
  return {
    before: (request) => {
      const chosen = negotiate(header(request.event, 'accept'), available);
      if (!chosen) throw new NotAcceptable(available);
      request.internal.responseType = chosen;
    },
    after: (request) => {
      const answer = request.response;
      const result = isHttpResult(answer) ? answer : respond(operation.success?.status ?? 200, answer);
      const type = request.internal.responseType ?? available[0];
      const headers: Record<string, string> = { ...result.headers };
      let body = '';
      if (result.body !== undefined) {
        headers['Content-Type'] = `${type}; charset=utf-8`;
        body = isXmlMediaType(type) ? serializeXml(xmlRoot, result.body) : JSON.stringify(result.body);
      }
      if (operation.media === 'standard') headers.Vary = 'Accept';
      request.response = { statusCode: result.body === undefined && result.status === 200 ? 204 : result.status, headers, body };
    },
  };
};

/**
 * A body in a content coding the service does not decode (any but `identity`) is refused with 415 naming the coding,
 * and `Accept-Encoding` says which codings would have been accepted (RFC 9110 §15.5.16). Every header line counts.
 */
const refuseContentCoding = (event: APIGatewayProxyEvent): void => {
  if (event.body === null || event.body === undefined || event.body === '') return;
  const single = header(event, 'content-encoding');
  const coding = unsupportedContentCoding([...(event.multiValueHeaders?.['content-encoding'] ?? []), ...(single === undefined ? [] : [single])]);
  if (coding === undefined) return;
  const named = isShortToken(coding) ? `"${coding}"` : 'a content coding';
  throw new ApiError(
    problemKinds.unsupportedMediaType,
    `The body is encoded with ${named}, which this API does not decode; send it without a content coding.`,
    { headers: { 'Accept-Encoding': acceptedContentCodings.join(', ') } },
  );
};

const decodeBody = (event: APIGatewayProxyEvent, maxBytes: number): string => {
  if (event.body === null || event.body === undefined) return '';
  const padding = event.body.endsWith('==') ? 2 : event.body.endsWith('=') ? 1 : 0;
  const size = event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) - padding : Buffer.byteLength(event.body, 'utf8');
  if (size > maxBytes) throw new PayloadTooLarge(maxBytes);
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) throw new PayloadTooLarge(maxBytes);
  return text;
};

const bodyFormatOf = (operation: CompiledOperation, contentType: string | undefined): BodyFormat => {
  const accepted = requestMediaTypes[operation.media] as Readonly<Record<string, BodyFormat>>;
  const acceptedList = Object.keys(accepted);
  const media = contentType === undefined ? undefined : parseMediaType(contentType);
  const format = media && Object.hasOwn(accepted, media.type) ? accepted[media.type] : undefined;
  const charset = media?.parameters.charset?.toLowerCase();
  if (!format || (charset !== undefined && !['utf-8', 'utf8', 'us-ascii'].includes(charset))) {
    throw new UnsupportedMediaType(acceptedList);
  }
  return format;
};

/**
 * Content-Type is a singleton field (RFC 9110 §5.3): lines that disagree leave the body's type unknown, so the body is
 * refused (415) rather than read as whichever line came last, as API Gateway's `headers` map would have it.
 */
const contentTypeOf = (event: APIGatewayProxyEvent): string | undefined => {
  const lines = new Set((event.multiValueHeaders?.['content-type'] ?? []).map((value) => value.trim().toLowerCase()));
  return lines.size > 1 ? undefined : header(event, 'content-type');
};

const decoders: Record<BodyFormat, (text: string) => unknown | Promise<unknown>> = {
  // Well-formed, within the depth bound, no member named twice (codecs/json.ts), then every number storable exactly
  // as written (codecs/json-numbers.ts).
  json: (text) => {
    const decoded = parseJsonBody(text);
    assertJsonNumbersStorable(text);
    return decoded;
  },
  // The parser library is loaded on the first XML body, never at cold start (codecs/xml.ts).
  xml: async (text) => {
    await loadXmlParser();
    return parseXml(text);
  },
  form: parseForm,
};

/**
 * The query parameters of an operation that reads them: each may appear once. A parameter sent twice (`?a=1&a=2`) is
 * refused (400, naming it) rather than read as whichever came last, which is all `queryStringParameters` keeps.
 */
const singleQueryParameters = (event: APIGatewayProxyEvent): Record<string, string | undefined> => {
  const repeated = Object.entries(event.multiValueQueryStringParameters ?? {})
    .filter(([, values]) => (values?.length ?? 0) > 1)
    .map(([parameter]) => ({ parameter, detail: 'appears more than once: send it once' }));
  if (repeated.length > 0) throw new ValidationFailed(repeated);
  return event.queryStringParameters ?? {};
};

/** Parses, coerces and validates path, query and body. */
const parseRequest = (operation: CompiledOperation): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    const { principal } = request.internal;

    const path = operation.pathParameters ? validate(operation.pathParameters, event.pathParameters ?? {}, 'path') : undefined;
    const query = operation.query ? validate(operation.query, singleQueryParameters(event), 'query') : undefined;
    // The document's rules too: its parameters as OpenAPI's simple style reads them (an integer is a number).
    validateWithDocument(operation.document.path, path, 'path');
    validateWithDocument(operation.document.query, query, 'query');

    // An operation without a body never reads one, so only a body it would read is refused for its coding.
    if (operation.requestBody) refuseContentCoding(event);
    const rawBody = decodeBody(event, operation.maxBodyBytes ?? limits.requestBodyBytes);
    let body: unknown;
    if (operation.requestBody && rawBody.trim() !== '') {
      const format = bodyFormatOf(operation, contentTypeOf(event));
      const decoded = await decoders[format](rawBody);
      if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) {
        throw new ValidationFailed([{ pointer: '', detail: 'the body must be an object' }]);
      }
      const schema = (format === 'xml' ? operation.requestBody.xmlSchema : undefined) ?? operation.requestBody.schema;
      const coerced = coerceToPlan(decoded, schema, format === 'json' ? 'typed' : 'text');
      const sent = principal ? applyTenancy(coerced, principal, schema) : coerced;
      body = validate(schema, sent);
      validateWithDocument((format === 'xml' ? operation.document.xmlBody : undefined) ?? operation.document.body, sent);
    } else if (operation.requestBody?.required) {
      throw new ValidationFailed([{ pointer: '', detail: 'a request body is required' }], 'A request body is required.');
    } else if (operation.requestBody) {
      body = validate(operation.requestBody.schema, principal ? applyTenancy({}, principal, operation.requestBody.schema) : {});
    }

    validatedInputs.set(event, {
      body,
      path,
      query,
      principal,
      requestId: requestIdOf(request),
      headers: event.headers ?? {},
      rawBody,
      context: request.context,
    } as OperationRequest<unknown>);
  },
});

export type OperationHandler<O> = (request: OperationRequest<O>) => Promise<unknown>;

const buildHandler = <O>(operation: CompiledOperation, handle: OperationHandler<O>) =>
  middy<APIGatewayProxyEvent, unknown, Error, Context, Internal>({ timeoutEarlyInMillis: 500 })
    .use(caseInsensitiveHeaders())
    .use(responseHeaders(operation))
    .use(problemResponses(operation))
    .use(refuseAmbiguousHeaders())
    .use(authenticate(operation))
    .use(contentNegotiation(operation))
    .use(parseRequest(operation))
    .handler(async (event) => {
      const input = validatedInputs.get(event);
      if (!input) throw new Error('parseRequest did not run');
      return handle(input as OperationRequest<O>);
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
  return { operation, handler: (handle) => buildHandler(operation, handle) };
}
