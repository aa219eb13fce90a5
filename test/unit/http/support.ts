// Test support for the HTTP-layer unit tests: hand-built API Gateway events and Lambda contexts, the headers every
// response must carry, and a reader that turns a response into something one `toEqual` can compare whole.
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { httpOperation } from '#shared/http/operation';
import type { HttpRequest, RequestInternal } from '#shared/http/middlewares/request';
import { logger } from '#shared/observability/logger';
import { operationsById, type OperationId } from '#shared/operations/index';
import type { CompiledOperation } from '#shared/operations/compiled-operation';
import { compiledOperations } from '#shared/compiled/operations/index';
import { requestIdentity } from '#infra/local/gateway-event';
import { problemOutcome } from '#test/support/responses';

// The access log line of every request would bury the test report; the stack's behaviour does not depend on it.
logger.setLogLevel('SILENT');

export const requestId = 'c0ffee00-0000-4000-8000-000000000001';

/**
 * What the authorizer hands to functions: API Gateway turns every context value into a string. The token's `exp` is
 * 1 January 2100, so these requests are never refused as expired.
 */
export const authorizerContext = { tenantId: '7', websiteId: '1', userId: '3', exp: '4102444800' } as const;

/** The principal a function sees for `authorizerContext`. */
export const principal = { tenantId: 7, websiteId: 1, userId: 3 } as const;

/** Written out rather than imported, so a header that silently disappears from the stack fails these tests. */
export const securityHeaders = {
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
} as const;

/** Headers of a successful response of a `standard` operation, in `type`. */
export const successHeaders = (type = 'application/json') => ({
  'Content-Type': `${type}; charset=utf-8`,
  Vary: 'Accept',
  ...securityHeaders,
  'X-Request-Id': requestId,
});

/** Headers of a problem response. */
export const problemHeaders = (format: 'json' | 'xml' = 'json', extra: Record<string, string> = {}) => ({
  'Content-Type': `application/problem+${format}; charset=utf-8`,
  ...extra,
  ...securityHeaders,
  'X-Request-Id': requestId,
});

export const problemType = (slug: string) => `tag:business-platform.api,2026:problems/${slug}`;

/** The problem of a request validation failure, as the stack sends it. */
export const validationProblem = (errors: readonly object[], detail = 'The request is not valid; see errors for each field.') => ({
  type: problemType('validation-failed'),
  title: 'Request validation failed',
  status: 400,
  detail,
  instance: requestId,
  errors,
  ...problemOutcome(400, detail, errors),
});

export const malformedProblem = (detail: string) => ({
  type: problemType('malformed-body'),
  title: 'Malformed request body',
  status: 400,
  detail,
  instance: requestId,
  ...problemOutcome(400, detail),
});

export interface EventOptions {
  readonly method?: string;
  readonly resource?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | null;
  readonly isBase64Encoded?: boolean;
  readonly pathParameters?: Record<string, string> | null;
  readonly query?: Record<string, string> | null;
  /** `null` means the gateway passed no authorizer context at all. */
  readonly authorizer?: Record<string, unknown> | null;
}

/** A REST API (v1) proxy event as API Gateway sends it to a function behind the REQUEST authorizer. */
export const apiEvent = (options: EventOptions = {}): APIGatewayProxyEvent => {
  const method = options.method ?? 'GET';
  const resource = options.resource ?? '/TenantLocation/Get/{id}';
  const path = resource.replace(/\{(\w+)\}/g, (_match, name: string) => options.pathParameters?.[name] ?? name);
  const headers = { Host: 'abc123def4.execute-api.eu-west-1.amazonaws.com', ...options.headers };
  return {
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: options.query ?? null,
    multiValueQueryStringParameters: options.query
      ? Object.fromEntries(Object.entries(options.query).map(([name, value]) => [name, [value]]))
      : null,
    pathParameters: options.pathParameters ?? null,
    stageVariables: null,
    body: options.body ?? null,
    isBase64Encoded: options.isBase64Encoded ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123def4',
      authorizer: options.authorizer === undefined ? { ...authorizerContext, principalId: 'tenant-7/user-3' } : options.authorizer,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: requestIdentity('203.0.113.10', 'unit-test'),
      path: `/api${path}`,
      stage: 'api',
      requestId,
      requestTimeEpoch: 1_767_225_600_000,
      resourceId: 'res123',
      resourcePath: resource,
    },
  };
};

/** A JSON request to an operation. */
export const jsonEvent = (options: EventOptions & { readonly json: unknown }): APIGatewayProxyEvent =>
  apiEvent({
    ...options,
    headers: { 'Content-Type': 'application/json', ...options.headers },
    body: JSON.stringify(options.json),
  });

/** A Lambda context as the runtime passes it; the stack reads the remaining time to stop before the deadline. */
export const lambdaContext = (): Context => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'business-platform-TenantLocationSave',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:business-platform-TenantLocationSave',
  memoryLimitInMB: '512',
  awsRequestId: '11111111-2222-4333-8444-555555555555',
  logGroupName: '/aws/lambda/business-platform-TenantLocationSave',
  logStreamName: '2026/01/01/[$LATEST]0123456789abcdef',
  getRemainingTimeInMillis: () => 29_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

export interface ReadResponse {
  readonly statusCode: number;
  readonly headers: Record<string, unknown>;
  /** Parsed when the response is JSON (problem or not), the raw text otherwise. */
  readonly body: unknown;
}

/** The whole response, with a JSON body parsed so a test compares values rather than key order and spacing. */
export const read = (response: unknown): ReadResponse => {
  const { statusCode, headers = {}, body } = response as APIGatewayProxyResult;
  const type = String((headers as Record<string, unknown>)['Content-Type'] ?? '');
  return { statusCode, headers, body: /json/.test(type) && body !== '' ? (JSON.parse(body) as unknown) : body };
};


/** Calls a wrapped Lambda handler as the runtime would and reads the whole response. */
export const invoke = async (
  handler: (event: APIGatewayProxyEvent, context: Context) => unknown,
  event: APIGatewayProxyEvent,
): Promise<ReadResponse> => read(await handler(event, lambdaContext()));

/** What a handler fake saw of the request the stack validated. */
export interface SeenRequest {
  readonly body: unknown;
  readonly path: unknown;
  readonly query: unknown;
  readonly principal: unknown;
  readonly requestId: string;
  readonly rawBody: string;
}

/** A stored tenant location as a handler would return it. */
export const storedLocation = {
  ID: 5,
  TenantLocationID: 5,
  Name: 'Main & Co',
  Address: { City: 'Nelson', IsDefaultBilling: true },
  IsActive: true,
  IsDefault: false,
  TenantID: 7,
  WebsiteID: 1,
  UserID: 3,
  Version: 2,
  CreatedDateTime_utc: '2026-01-02T03:04:05.000Z',
  ModifiedDateTime_utc: '2026-01-03T03:04:05.000Z',
  CreatedByUserID: 3,
  ModifiedByUserID: 3,
} as const;

/** The real stack of one operation around a handler fake that records what it was handed. */
export const operationWith = <Id extends OperationId>(operationId: Id, answer: (request: SeenRequest) => unknown = () => storedLocation) => {
  const seen: SeenRequest[] = [];
  // The functions' own form of the entry: its shapes and the document's validators (shared/compiled/).
  const compiled = compiledOperations.find((operation) => operation.operationId === operationId);
  if (!compiled) throw new Error(`${operationId} has no compiled entry: run npm run openapi`);
  // Without its environment needs: these tests hold the HTTP stack, with no function environment around it (the
  // check at load has its own tests, test/unit/operations/function-load.test.ts).
  const stackOnly = { ...compiled, needs: undefined } as CompiledOperation<(typeof operationsById)[Id]>;
  const handler = httpOperation(stackOnly).handler(async (request) => {
    seen.push(request as unknown as SeenRequest);
    return answer(request as unknown as SeenRequest);
  });
  return { handler, seen, call: (event: APIGatewayProxyEvent) => invoke(handler, event) };
};

/** The request one middleware of the stack sees (middy's), for testing a middleware alone: its `before`, `after` or `onError` is called with it. */
export const middlewareRequest = (event: APIGatewayProxyEvent, internal: RequestInternal = {}): HttpRequest => ({
  event,
  context: lambdaContext(),
  response: undefined,
  error: null,
  internal,
});

/** Runs one hook of a middleware (they are optional in middy's type) on a request. */
export const run = async (hook: ((request: HttpRequest) => unknown) | undefined, request: HttpRequest): Promise<HttpRequest> => {
  if (!hook) throw new Error('the middleware has no such hook');
  await hook(request);
  return request;
};
