// Local stack: builds the events API Gateway (REST, v1) hands to a Lambda proxy integration and to a REQUEST
// authorizer, from one incoming HTTP request and the manifest route it matched.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayEventRequestContextWithAuthorizer, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { setOwn } from '#shared/http/header-lines';
import { localAccountId, localRegion } from './local-aws';

export const localApiId = 'localapi00';

/** What the gateway knows about a request before it reaches a function. */
export interface IncomingRequest {
  readonly method: string;
  /** The request path as sent, still percent-encoded, including the stage (`/api/...`). */
  readonly rawPath: string;
  /** The query string without `?`, still percent-encoded; empty when none. */
  readonly rawQuery: string;
  /** Node's `rawHeaders`: names as the client spelled them, alternating with values. */
  readonly rawHeaders: readonly string[];
  readonly sourceIp: string;
  readonly localPort: number;
  readonly requestId: string;
  readonly extendedRequestId: string;
  readonly requestTimeEpoch: number;
}

export interface MatchedRoute {
  readonly operationId: string;
  /** The manifest path as an API Gateway resource: braces kept, no trailing slash (except `/`). */
  readonly resource: string;
  /** The request path without the stage, as sent (API Gateway does not decode `path`). */
  readonly path: string;
  readonly pathParameters: Readonly<Record<string, string>> | null;
}

export const newRequestIds = () => ({
  requestId: randomUUID(),
  extendedRequestId: `${randomBytes(12).toString('base64').replace(/[+/]/g, 'A').slice(0, 15)}=`,
});

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (value: number) => String(value).padStart(2, '0');

/** `$context.requestTime`: CLF-formatted, e.g. `09/Apr/2015:12:34:56 +0000`. */
export const requestTime = (epochMs: number): string => {
  const date = new Date(epochMs);
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
};

/** A stable id per resource, shaped like API Gateway's (six lowercase alphanumerics). */
export const resourceIdOf = (resource: string): string => createHash('sha256').update(resource).digest('hex').slice(0, 6);

export const methodArn = (method: string, path: string, stage: string): string =>
  `arn:aws:execute-api:${localRegion}:${localAccountId}:${localApiId}/${stage}/${method}/${path.replace(/^\//, '')}`;

/** Appends to the list of values of `name`, a list of this map only. */
const appendOwn = (map: Record<string, string[]>, name: string, value: string): void => {
  const values = Object.hasOwn(map, name) ? map[name] : undefined;
  if (values) values.push(value);
  else setOwn(map, name, [value]);
};

const headerMaps = (request: IncomingRequest) => {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const add = (name: string, value: string) => {
    setOwn(headers, name, value);
    appendOwn(multiValueHeaders, name, value);
  };
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    add(request.rawHeaders[index] as string, request.rawHeaders[index + 1] as string);
  }
  // Headers API Gateway adds on its way to the integration (when the client did not send them).
  const sent = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const added: Record<string, string> = {
    'X-Forwarded-For': request.sourceIp,
    'X-Forwarded-Port': String(request.localPort),
    'X-Forwarded-Proto': 'http',
    'X-Amzn-Trace-Id': `Root=1-${Math.floor(request.requestTimeEpoch / 1000).toString(16)}-${randomBytes(12).toString('hex')}`,
  };
  for (const [name, value] of Object.entries(added)) if (!sent.has(name.toLowerCase())) add(name, value);
  return { headers, multiValueHeaders };
};

const decodeOrKeep = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** Path parameters arrive decoded; `+` is a literal plus in a path. */
export const decodePathSegment = decodeOrKeep;

/** Query values arrive decoded, with `+` as a space (form encoding), as API Gateway does. */
const decode = (value: string): string => decodeOrKeep(value.replace(/\+/g, ' '));

/** REST APIs decode query values; null (not `{}`) when there is no query string. */
const queryMaps = (rawQuery: string) => {
  if (!rawQuery) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const pair of rawQuery.split('&')) {
    if (!pair) continue;
    const separator = pair.indexOf('=');
    const name = decode(separator === -1 ? pair : pair.slice(0, separator));
    const value = separator === -1 ? '' : decode(pair.slice(separator + 1));
    setOwn(single, name, value);
    appendOwn(multi, name, value);
  }
  return Object.keys(single).length === 0
    ? { queryStringParameters: null, multiValueQueryStringParameters: null }
    : { queryStringParameters: single, multiValueQueryStringParameters: multi };
};

const requestContext = <TAuthorizer>(
  request: IncomingRequest,
  route: MatchedRoute,
  stage: string,
  authorizer: TAuthorizer,
): APIGatewayEventRequestContextWithAuthorizer<TAuthorizer> => {
  const host = headerValue(request.rawHeaders, 'host');
  const domainName = host?.replace(/:\d+$/, '') ?? '127.0.0.1';
  return {
    accountId: localAccountId,
    apiId: localApiId,
    authorizer,
    domainName,
    domainPrefix: domainName.split('.')[0] ?? domainName,
    extendedRequestId: request.extendedRequestId,
    httpMethod: request.method,
    identity: requestIdentity(request.sourceIp, headerValue(request.rawHeaders, 'user-agent') ?? null),
    // Unlike the event's `path`, the context's path keeps the stage.
    path: `/${stage}${route.path}`,
    protocol: 'HTTP/1.1',
    requestId: request.requestId,
    requestTime: requestTime(request.requestTimeEpoch),
    requestTimeEpoch: request.requestTimeEpoch,
    resourceId: resourceIdOf(route.resource),
    resourcePath: route.resource,
    stage,
  };
};

/** The caller identity of an API Gateway REST event: only the source IP and user agent are known without IAM/Cognito. */
export const requestIdentity = (sourceIp: string, userAgent: string | null): APIGatewayProxyEvent['requestContext']['identity'] => ({
  accessKey: null,
  accountId: null,
  apiKey: null,
  apiKeyId: null,
  caller: null,
  clientCert: null,
  cognitoAuthenticationProvider: null,
  cognitoAuthenticationType: null,
  cognitoIdentityId: null,
  cognitoIdentityPoolId: null,
  principalOrgId: null,
  sourceIp,
  user: null,
  userAgent,
  userArn: null,
});

/** The last value of a header, matched case-insensitively (the Host and User-Agent of the request context). */
export const headerValue = (rawHeaders: readonly string[], name: string): string | undefined => {
  let found: string | undefined;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === name) found = rawHeaders[index + 1];
  }
  return found;
};

export interface ProxyEventBody {
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
}

export const buildProxyEvent = (
  request: IncomingRequest,
  route: MatchedRoute,
  stage: string,
  body: ProxyEventBody,
  authorizer: Record<string, unknown> | null,
): APIGatewayProxyEvent => ({
  resource: route.resource,
  path: route.path,
  httpMethod: request.method,
  ...headerMaps(request),
  ...queryMaps(request.rawQuery),
  pathParameters: route.pathParameters ? { ...route.pathParameters } : null,
  stageVariables: null,
  requestContext: requestContext(request, route, stage, authorizer),
  body: body.body,
  isBase64Encoded: body.isBase64Encoded,
});

export const buildAuthorizerEvent = (
  request: IncomingRequest,
  route: MatchedRoute,
  stage: string,
): APIGatewayRequestAuthorizerEvent => ({
  type: 'REQUEST',
  methodArn: methodArn(request.method, route.path, stage),
  resource: route.resource,
  path: route.path,
  httpMethod: request.method,
  ...headerMaps(request),
  ...queryMaps(request.rawQuery),
  pathParameters: route.pathParameters ? { ...route.pathParameters } : null,
  stageVariables: null,
  requestContext: requestContext(request, route, stage, undefined),
});
