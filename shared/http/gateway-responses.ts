// HTTP conventions: the problem responses API Gateway sends by itself (before or instead of a function). The CDK
// stack installs them as gateway responses and the local gateway answers with the same ones.
import { bearerChallenge, problemKinds, type ProblemKind } from '#shared/errors';
import { failureOutcome } from './failure-outcome';
import { gatewaySecurityHeaders, requestIdHeader } from './headers';

/** API Gateway's GatewayResponseType names (a subset of aws-cdk-lib's ResponseType, kept free of CDK imports). */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'REQUEST_TOO_LARGE'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_REQUEST_BODY'
  | 'BAD_REQUEST_PARAMETERS'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'WAF_FILTERED'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponseDefinition {
  readonly type: GatewayResponseType;
  readonly kind: ProblemKind;
  readonly detail: string;
  /** Headers this response adds to the shared ones (static values: no single quotes). */
  readonly headers?: Readonly<Record<string, string>>;
}

export const gatewayResponses: readonly GatewayResponseDefinition[] = [
  { type: 'UNAUTHORIZED', kind: problemKinds.unauthorized, detail: 'A valid bearer token is required.', headers: bearerChallenge },
  { type: 'ACCESS_DENIED', kind: problemKinds.forbidden, detail: 'The token does not allow this request.' },
  // API Gateway answers an unknown path or method with MISSING_AUTHENTICATION_TOKEN (403 by default).
  { type: 'MISSING_AUTHENTICATION_TOKEN', kind: problemKinds.notFound, detail: 'No operation at this path and method.' },
  { type: 'RESOURCE_NOT_FOUND', kind: problemKinds.notFound, detail: 'No operation at this path and method.' },
  {
    type: 'REQUEST_TOO_LARGE',
    kind: problemKinds.payloadTooLarge,
    detail: "The request exceeds the gateway's limits: a 10 MB body, 10,240 bytes of request line and header values.",
  },
  // The stage throttle is a token bucket refilled every second (100 requests/s): one second is always enough.
  { type: 'THROTTLED', kind: problemKinds.tooManyRequests, detail: 'Too many requests; retry later.', headers: { 'Retry-After': '1' } },
  { type: 'QUOTA_EXCEEDED', kind: problemKinds.tooManyRequests, detail: 'The usage quota is exhausted.' },
  { type: 'BAD_REQUEST_BODY', kind: problemKinds.badRequest, detail: 'The request body is not valid.' },
  { type: 'BAD_REQUEST_PARAMETERS', kind: problemKinds.badRequest, detail: 'A request parameter is missing or not valid.' },
  { type: 'UNSUPPORTED_MEDIA_TYPE', kind: problemKinds.unsupportedMediaType, detail: 'This media type is not accepted.' },
  { type: 'INTEGRATION_FAILURE', kind: problemKinds.badGateway, detail: 'The operation failed to answer.' },
  { type: 'INTEGRATION_TIMEOUT', kind: problemKinds.gatewayTimeout, detail: 'The operation did not answer in time.' },
  { type: 'AUTHORIZER_FAILURE', kind: problemKinds.internal, detail: 'The request could not be authorised.' },
  { type: 'AUTHORIZER_CONFIGURATION_ERROR', kind: problemKinds.internal, detail: 'The request could not be authorised.' },
  { type: 'WAF_FILTERED', kind: problemKinds.forbidden, detail: 'The request was blocked.' },
  { type: 'DEFAULT_4XX', kind: problemKinds.badRequest, detail: 'The request was refused by the gateway.' },
  { type: 'DEFAULT_5XX', kind: problemKinds.internal, detail: 'The gateway failed to handle the request.' },
];

/** Body template: API Gateway substitutes `$context.requestId`; the local gateway does the same. */
export const gatewayProblemTemplate = (definition: GatewayResponseDefinition): string =>
  JSON.stringify({
    type: definition.kind.type,
    title: definition.kind.title,
    status: definition.kind.status,
    detail: definition.detail,
    instance: '$context.requestId',
    ...failureOutcome(definition.kind.status, definition.detail),
  });

/**
 * A static value in a gateway response mapping is a string literal between single quotes ('nosniff'). API Gateway
 * documents no escape for a quote inside the literal, so a value that contains one is refused here rather than
 * deployed as a header that may be cut short or rejected.
 */
const staticValue = (value: string): string => {
  if (value.includes("'")) throw new Error(`Gateway response header values cannot contain single quotes: ${value}`);
  return `'${value}'`;
};

/**
 * Headers on every response API Gateway produces itself, matching what the functions send, as mapping expressions.
 * The request id is the `context.requestId` mapping (unquoted), the same id the problem body carries as `instance`.
 */
export const gatewayResponseHeaders: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(gatewaySecurityHeaders).map(([name, value]) => [name, staticValue(value)])),
  'Content-Type': staticValue('application/problem+json'),
  [requestIdHeader]: 'context.requestId',
};

/**
 * A gateway response as API Gateway is given it (what the CDK stack installs): the status, the body templates by
 * media type, and the response headers as mapping expressions (`'literal'` or `context.<variable>`).
 */
export interface GatewayResponseSettings {
  readonly type: GatewayResponseType;
  readonly statusCode: string;
  readonly templates: Readonly<Record<string, string>>;
  readonly responseHeaders: Readonly<Record<string, string>>;
}

export const gatewayResponseSettings = (definition: GatewayResponseDefinition): GatewayResponseSettings => ({
  type: definition.type,
  statusCode: String(definition.kind.status),
  templates: { 'application/problem+json': gatewayProblemTemplate(definition) },
  responseHeaders: {
    ...gatewayResponseHeaders,
    ...Object.fromEntries(Object.entries(definition.headers ?? {}).map(([name, value]) => [name, staticValue(value)])),
  },
});

export const gatewayResponse = (type: GatewayResponseType): GatewayResponseDefinition => {
  const found = gatewayResponses.find((definition) => definition.type === type);
  if (!found) throw new Error(`No gateway response of type ${type}`);
  return found;
};

/**
 * A gateway response as a function sends it: for a refusal the gateway would have made itself had its authorizer
 * cache not answered instead (a token that expired after its Allow was cached: shared/http/README.md). The same status,
 * body and headers as the installed gateway response (`gatewayResponseSettings`), with the request id substituted as
 * API Gateway substitutes `$context.requestId`; the caller adds `X-Request-Id` as for every answer.
 */
export const gatewayResponseFromFunction = (type: GatewayResponseType, requestId: string) => {
  const definition = gatewayResponse(type);
  return {
    statusCode: definition.kind.status,
    headers: { ...gatewaySecurityHeaders, 'Content-Type': 'application/problem+json', ...definition.headers },
    body: gatewayProblemTemplate(definition).replace('"$context.requestId"', JSON.stringify(requestId)),
  };
};
