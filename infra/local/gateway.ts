// Local stack: where a request enters locally. A node:http server that behaves like the stack's API Gateway
// (REST API, stage `api`, Lambda proxy integrations): the routes it is given (the local stack: the template's
// AWS::ApiGateway::Method resources; by default the operations manifest), the REQUEST
// authorizer for bearer operations, the gateway's size and time limits, and its problem responses.
//
// A body whose Content-Type matches one of `binaryMediaTypes` reaches the function base64-encoded with the bytes sent
// (isBase64Encoded true); any other as UTF-8 text, as API Gateway does. The local stack passes the template's
// BinaryMediaTypes (the stack declares every request media type an operation reads, so the function sees the exact
// bytes and refuses invalid UTF-8); without the option, every body is text.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiBasePath, largestRequestBodyBytes, operations as manifestOperations, resourceOf, stageName, type Operation } from '#shared/operations/index';
import { ApiError, PayloadTooLarge, problemKinds } from '#shared/errors';
import { contentLengthExceeds } from '#shared/http/body-limit';
import type { GatewayResponseType } from '#shared/http/gateway-responses';
import { rawHeaderLines, RepeatedHeader, repeatedOnceOnlyHeader } from '#shared/http/header-lines';
import { gatewaySecurityHeaders, requestIdHeader } from '#shared/http/headers';
import { toProblem } from '#shared/http/problem';
import { gatewayEffects, type FaultEngine } from './faults';
import { createAuthorizer } from './gateway-authorizer';
import { renderGatewayResponse, sharedGatewayResponseSet, type GatewayResponseSet } from './gateway-responses';
import {
  buildAuthorizerEvent,
  buildProxyEvent,
  decodePathSegment,
  newRequestIds,
  type IncomingRequest,
  type MatchedRoute,
} from './gateway-event';
import { closeServer, listen } from './local-aws';
import { createApiReference } from './reference-page';
import { maxSigningRequestBytes, signForReferencePage, webhookSigningPath } from './webhook-signing';
import { importFromRepoRoot, inProcessInvoker, InvocationThrottled, InvocationTimeout, type FunctionInvoker, type ModuleResolver } from './lambda-runtime';
import { isJsonObject } from '#shared/openapi/types';

export const authorizerModulePath = 'functions/authorizer.ts';
export { openApiModulePath } from './reference-page';
/** The authorizer's function name, locally as in the IAM edge's identities. */
export const authorizerFunctionName = 'authorizer';

const megabyte = 1024 * 1024;

/**
 * API Gateway's REST quota "total combined size of request line and header values": 10,240 bytes, not adjustable.
 * Past it the gateway refuses the request as too large (REQUEST_TOO_LARGE, 413) before routing.
 */
export const maxRequestLineAndHeaderBytes = 10_240;
/**
 * node:http's own limit on the header section (names, values and line ends), kept well above the quota so the
 * emulation refuses with the gateway's problem. Anything larger still is refused by Node's parser, answered with the
 * same problem from the server's `clientError` handler: no refusal is ever a bare status line.
 */
const nodeMaxHeaderBytes = 64 * 1024;
/**
 * node:http keeps the first 2,000 header lines of a request and silently drops the rest (`maxHeadersCount`). The
 * gateway must see every line (a repeated Authorization at line 2,001 is still repeated), so there is no count limit:
 * the header section's size (above) bounds it.
 */
const nodeMaxHeadersCount = 0;
const logToStderr = (line: string) => void process.stderr.write(`${line}\n`);

export interface GatewayOptions {
  /** Routes; defaults to the operations manifest. */
  readonly operations?: readonly Pick<Operation, 'operationId' | 'method' | 'path' | 'handler' | 'auth'>[];
  /** Loads a module by its repo-root path (the OpenAPI builder; handlers too unless `invoke` is given); defaults to a real import. */
  readonly resolveModule?: ModuleResolver;
  /**
   * Invokes the functions (operations by operationId, the authorizer as `authorizer`). The local stack runs each
   * isolated (function-host.ts); by default they run in this process through `resolveModule`.
   */
  readonly invoke?: FunctionInvoker;
  readonly authorizerModule?: string;
  /** API Gateway's integration timeout: 29 s. */
  readonly integrationTimeoutMs?: number;
  /** API Gateway's payload limit: 10 MB. */
  readonly maxRequestBytes?: number;
  /** API Gateway's limit on the request line and header values together: 10,240 bytes. */
  readonly maxRequestLineAndHeaderBytes?: number;
  /** Lambda's synchronous invocation payload limit (request event and response): 6 MB. */
  readonly maxLambdaPayloadBytes?: number;
  /** The authorizer's result TTL: 300 s, like the stack. */
  readonly authorizerCacheTtlMs?: number;
  /**
   * node:http's limits on a slow client (its defaults: 60 s for the header section, 300 s for the whole request,
   * checked every 30 s); past them the request is refused with a 408 problem. Tests shorten them.
   */
  readonly headersTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly connectionsCheckingIntervalMs?: number;
  /** The fault mode (faults.ts): an `apigateway` throttle answers THROTTLED before the authorizer and the function. */
  readonly faults?: FaultEngine;
  /** How long a keep-alive connection may sit idle between requests before the gateway closes it: 60 s, as every local server (listen). */
  readonly idleConnectionTimeoutMs?: number;
  readonly binaryMediaTypes?: readonly string[];
  /**
   * The responses the gateway makes by itself, by type: the local stack's are the template's
   * AWS::ApiGateway::GatewayResponse resources; by default the shared definitions, as the CDK stack installs them.
   */
  readonly gatewayResponses?: GatewayResponseSet;
  /**
   * The stack's webhook accepts the local development secret, so the reference page's signer (webhook-signing.ts,
   * `POST /api/docs/sign-webhook`) signs the page's webhook events with it; otherwise it refuses them (403).
   */
  readonly webhookSigning?: boolean;
  readonly log?: (line: string) => void;
}

export interface RunningGateway {
  readonly server: Server;
  /** `http://127.0.0.1:<port>/api` */
  readonly baseUrl: string;
  close(): Promise<void>;
}

interface CompiledRoute {
  readonly operation: NonNullable<GatewayOptions['operations']>[number];
  readonly resource: string;
  readonly pattern: RegExp;
  readonly parameterNames: readonly string[];
  /** Literal segments first, as API Gateway prefers `/a/b` over `/a/{id}`. */
  readonly specificity: number;
}


const compileRoute = (operation: CompiledRoute['operation']): CompiledRoute => {
  const resource = resourceOf(operation.path);
  const parameterNames: string[] = [];
  const segments = resource
    .split('/')
    .slice(1)
    .map((segment) => {
      const parameter = /^\{([A-Za-z0-9_]+)(\+?)\}$/.exec(segment);
      if (!parameter) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameterNames.push(parameter[1] as string);
      return parameter[2] ? '(.+)' : '([^/]+)';
    });
  const body = resource === '/' ? '' : `/${segments.join('/')}`;
  return {
    operation,
    resource,
    pattern: new RegExp(`^${body}/?$`),
    parameterNames,
    specificity: segments.length * 2 - parameterNames.length,
  };
};

const createRouter = (operations: NonNullable<GatewayOptions['operations']>) => {
  const routes = operations.map(compileRoute).sort((a, b) => b.specificity - a.specificity);
  /** `path` is the request path without the stage, still encoded. */
  return (method: string, path: string): { route: CompiledRoute; matched: MatchedRoute } | undefined => {
    for (const route of routes) {
      if (route.operation.method !== method) continue;
      const match = route.pattern.exec(path === '' ? '/' : path);
      if (!match) continue;
      const pathParameters =
        route.parameterNames.length === 0
          ? null
          : Object.fromEntries(route.parameterNames.map((name, index) => [name, decodePathSegment(match[index + 1] as string)]));
      return { route, matched: { operationId: route.operation.operationId, resource: route.resource, path, pathParameters } };
    }
    return undefined;
  };
};

const gatewayHeaders = (requestId: string): Record<string, string> => ({
  ...gatewaySecurityHeaders,
  [requestIdHeader]: requestId,
  'x-amzn-RequestId': requestId,
});

/**
 * What the gateway refuses a request with: one of its gateway responses (as the template declares it), or a problem
 * of its own for what API Gateway has no gateway response type for (a once-only header on several lines, an unknown
 * `Expect`, a client too slow to send its request), with the gateway's headers.
 */
type Refusal = GatewayResponseType | ApiError;

/** The problem of an unknown expectation (RFC 9110 §10.1.1): only `100-continue` is defined. */
const expectationFailed = () =>
  new ApiError(problemKinds.expectationFailed, 'The Expect header asks for an expectation this API does not meet; only 100-continue is supported.');
/** The problem of a client that did not send its header section, or its whole request, in time (node:http's limits). */
const requestTimedOut = () => new ApiError(problemKinds.requestTimeout, 'The request was not received in time.');

/** Sends a refusal as API Gateway renders it (gateway-responses.ts), with the request id it adds. */
const gatewayResponder = (responses: GatewayResponseSet) => {
  const render = (refusal: Refusal, requestId: string) => {
    if (refusal instanceof ApiError) {
      // The function stack's own problem (the same answer whichever refuses it), with the gateway's headers.
      const body = JSON.stringify(toProblem(refusal, requestId));
      const headers = { 'Content-Type': 'application/problem+json', 'Content-Length': String(Buffer.byteLength(body)), ...refusal.headers, ...gatewayHeaders(requestId) };
      return { status: refusal.status, headers, body };
    }
    const rendered = renderGatewayResponse(responses, refusal, { requestId, stage: stageName });
    return { ...rendered, headers: { ...rendered.headers, 'x-amzn-RequestId': requestId } };
  };
  return {
    send: (response: ServerResponse, refusal: Refusal, requestId: string, close = false) => {
      const { status, headers, body } = render(refusal, requestId);
      response.writeHead(status, { ...headers, ...(close ? { Connection: 'close' } : {}) });
      response.end(body);
    },
    /**
     * For requests node:http takes off its own path (a CONNECT) or refuses before they become requests (header section
     * too large, unparsable, too slow): raw HTTP, then the connection is closed. Returns the request id it answered with.
     */
    writeToSocket: (socket: Socket, refusal: Refusal): string => {
      const { requestId } = newRequestIds();
      const { status, headers, body } = render(refusal, requestId);
      const head = Object.entries({ ...headers, Connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head.join('')}\r\n${body}`);
      return requestId;
    },
  };
};

/** A refusal's name in the access log: the gateway response type, or the problem's status. */
const refusalName = (refusal: Refusal): string => (refusal instanceof ApiError ? String(refusal.status) : refusal);

/**
 * What each connection has in flight: the responses it owes (node:http answers pipelined requests in order, so a
 * refusal written straight to the socket must wait for them), and the request whose body is being read (a body
 * node:http cannot parse, or that comes too slowly, is that request's to refuse, through its own response).
 */
interface Connection {
  readonly owed: Set<ServerResponse>;
  readonly whenSettled: (() => void)[];
  reading?: { readonly request: IncomingMessage; readonly refuse: (refusal: Refusal) => void };
}
const connections = new WeakMap<Socket, Connection>();

const connectionOf = (socket: Socket): Connection => {
  let connection = connections.get(socket);
  if (!connection) {
    connection = { owed: new Set(), whenSettled: [] };
    connections.set(socket, connection);
  }
  return connection;
};

/** Notes a response the connection owes until it is sent (or the connection is gone). */
const owe = (socket: Socket, response: ServerResponse): void => {
  const connection = connectionOf(socket);
  connection.owed.add(response);
  const settle = () => {
    if (!connection.owed.delete(response) || connection.owed.size > 0) return;
    for (const next of connection.whenSettled.splice(0)) next();
  };
  response.once('finish', settle);
  response.once('close', settle);
};

/** Runs `next` once every response the connection owes has been sent: at once when it owes none. */
const afterOwedResponses = (socket: Socket, next: () => void): void => {
  const connection = connectionOf(socket);
  if (connection.owed.size === 0) next();
  else connection.whenSettled.push(next);
};

/** The size API Gateway's quota counts: the request line (`GET /api/x HTTP/1.1`) and every header value, in bytes. */
const requestLineAndHeaderBytes = (request: IncomingMessage): number => {
  const requestLine = `${request.method ?? ''} ${request.url ?? ''} HTTP/${request.httpVersion}`;
  let size = Buffer.byteLength(requestLine, 'latin1');
  for (let index = 1; index < request.rawHeaders.length; index += 2) {
    size += Buffer.byteLength(request.rawHeaders[index] as string, 'latin1');
  }
  return size;
};

/**
 * Reads the body up to `limit` bytes; past it, stops keeping data (the rest is drained and dropped). A body node:http
 * refuses while it is read (bad chunked encoding, too slow: the server's `clientError`) resolves to that refusal.
 */
const readBody = (request: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | { readonly refused: Refusal }> =>
  new Promise((resolve, reject) => {
    if (contentLengthExceeds(request.headers['content-length'], limit)) {
      request.resume();
      resolve('too-large');
      return;
    }
    const connection = connectionOf(request.socket);
    connection.reading = { request, refuse: (refused) => resolve({ refused }) };
    request.once('end', () => {
      if (connection.reading?.request === request) delete connection.reading;
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        chunks.length = 0;
        request.resume();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });

const mediaTypeMatches = (pattern: string, contentType: string): boolean => {
  const [type = '', subtype = ''] = (contentType.split(';')[0] ?? '').trim().toLowerCase().split('/');
  const [patternType = '', patternSubtype = ''] = pattern.toLowerCase().split('/');
  return (patternType === '*' || patternType === type) && (patternSubtype === '*' || patternSubtype === subtype);
};

class MalformedProxyResult extends Error {
  override readonly name = 'MalformedProxyResult';
}

interface HttpResult {
  readonly statusCode: number;
  readonly headers: Map<string, { name: string; values: string[] }>;
  readonly body: Buffer;
}

const isHeaderValue = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** Checks a Lambda proxy result the way API Gateway does; anything else is a 502 "Malformed Lambda proxy response". */
const toHttpResult = (result: unknown): HttpResult => {
  if (!isJsonObject(result)) throw new MalformedProxyResult('the function returned no object');
  const statusCode = typeof result.statusCode === 'string' ? Number(result.statusCode) : result.statusCode;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
    throw new MalformedProxyResult('statusCode must be an integer HTTP status');
  }
  if (result.body !== undefined && result.body !== null && typeof result.body !== 'string') {
    throw new MalformedProxyResult('body must be a string');
  }
  if (result.isBase64Encoded !== undefined && typeof result.isBase64Encoded !== 'boolean') {
    throw new MalformedProxyResult('isBase64Encoded must be a boolean');
  }
  const headers = new Map<string, { name: string; values: string[] }>();
  // multiValueHeaders win over headers for the same name, as API Gateway merges them.
  if (result.multiValueHeaders !== undefined && result.multiValueHeaders !== null) {
    if (!isJsonObject(result.multiValueHeaders)) throw new MalformedProxyResult('multiValueHeaders must be an object');
    for (const [name, values] of Object.entries(result.multiValueHeaders)) {
      if (!Array.isArray(values) || !values.every(isHeaderValue)) throw new MalformedProxyResult(`multiValueHeaders.${name} must be a list`);
      headers.set(name.toLowerCase(), { name, values: values.map(String) });
    }
  }
  if (result.headers !== undefined && result.headers !== null) {
    if (!isJsonObject(result.headers)) throw new MalformedProxyResult('headers must be an object');
    for (const [name, value] of Object.entries(result.headers)) {
      if (!isHeaderValue(value)) throw new MalformedProxyResult(`headers.${name} must be a string`);
      if (!headers.has(name.toLowerCase())) headers.set(name.toLowerCase(), { name, values: [String(value)] });
    }
  }
  const text = typeof result.body === 'string' ? result.body : '';
  return { statusCode, headers, body: Buffer.from(text, result.isBase64Encoded === true ? 'base64' : 'utf8') };
};

/**
 * What a log line shows of a request target: the path, never its query or a URL's user information, which a client
 * may fill with a credential (`?access_token=`, `user:password@`): every line names the path alone, as the access
 * line does.
 */
const loggedTarget = (target: string | undefined): string => {
  const path = (target ?? '').split('?', 1)[0] ?? '';
  return path.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/@]*@/, '$1');
};

export const createGatewayHandler = (options: GatewayOptions = {}, responder = gatewayResponder(options.gatewayResponses ?? sharedGatewayResponseSet())) => {
  const operations = options.operations ?? manifestOperations;
  const resolveModule = options.resolveModule ?? importFromRepoRoot;
  const invoke = options.invoke ?? inProcessInvoker(resolveModule);
  const integrationTimeoutMs = options.integrationTimeoutMs ?? 29_000;
  const maxRequestBytes = options.maxRequestBytes ?? 10 * megabyte;
  const maxHeaderBytes = options.maxRequestLineAndHeaderBytes ?? maxRequestLineAndHeaderBytes;
  const maxLambdaPayloadBytes = options.maxLambdaPayloadBytes ?? 6 * megabyte;
  const binaryMediaTypes = options.binaryMediaTypes ?? [];
  const log = options.log ?? logToStderr;
  const route = createRouter(operations);
  const authorizerModule = options.authorizerModule ?? authorizerModulePath;
  const authorize = createAuthorizer({
    invoke: (event) => invoke({ functionName: authorizerFunctionName, handler: authorizerModule }, event, integrationTimeoutMs),
    cacheTtlMs: options.authorizerCacheTtlMs ?? 300_000,
  });
  const serveReference = createApiReference({ resolveModule, headers: gatewayHeaders });

  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    owe(request.socket, response);
    const started = Date.now();
    const { requestId, extendedRequestId } = newRequestIds();
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    const queryStart = url.indexOf('?');
    const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
    const rawQuery = queryStart === -1 ? '' : url.slice(queryStart + 1);
    const finish = (outcome: string) => log(`[gateway] ${method} ${loggedTarget(rawPath)} ${response.statusCode} ${Date.now() - started}ms ${requestId}${outcome ? ` ${outcome}` : ''}`);
    const reject = (refusal: Refusal, detail = '', close = false) => {
      responder.send(response, refusal, requestId, close);
      finish(detail || refusalName(refusal));
    };

    // The front door refuses oversized request lines and headers before any routing, authorizer or function.
    const headerBytes = requestLineAndHeaderBytes(request);
    if (headerBytes > maxHeaderBytes) {
      reject('REQUEST_TOO_LARGE', `request line and header values of ${headerBytes} bytes exceed ${maxHeaderBytes}`, true);
      request.resume();
      return;
    }
    // RFC 9112 §3.2: an HTTP/1.1 request without a Host is refused (400). node:http would answer it with a bare
    // status line (requireHostHeader is off for that).
    const lines = rawHeaderLines(request.rawHeaders);
    if (!lines.has('host') && request.httpVersion !== '1.0') {
      reject('DEFAULT_4XX', 'no Host header', true);
      request.resume();
      return;
    }
    // A header that may appear once (Host, Authorization, Content-Type, ...: header-lines.ts) on several lines, in any
    // case form, is refused here: before routing, before the authorizer runs or its cache is read, before any function.
    const repeated = repeatedOnceOnlyHeader(lines);
    if (repeated) {
      // The function stack's own problem naming the header, so the answer is the same whichever refuses it.
      reject(new RepeatedHeader(repeated), repeated.header === 'Host' ? 'several Host headers' : `${repeated.header} header on ${repeated.lines} lines`, true);
      request.resume();
      return;
    }
    /** The body, up to API Gateway's 10 MB; undefined once it has answered a body it cannot take. */
    const readWholeBody = async (): Promise<Buffer | undefined> => {
      const body = await readBody(request, maxRequestBytes);
      if (body === 'too-large') {
        reject('REQUEST_TOO_LARGE', '', true);
        // Drain what the client is still sending, but not forever.
        setTimeout(() => request.socket.destroy(), 10_000).unref();
        return undefined;
      }
      if (!Buffer.isBuffer(body)) {
        // node:http could not read the body (it closes the connection after this answer).
        reject(body.refused, `the body could not be read: ${refusalName(body.refused)}`, true);
        return undefined;
      }
      return body;
    };

    // The web ACL's BodyTooLarge rule (shared/http/body-limit.ts): a Content-Length above the most any operation
    // reads is the functions' 413 here, before routing or any function, which would get an event past Lambda's
    // payload limit. Answered once the body is in, as API Gateway has the request before its web ACL answers: a
    // client still sending would otherwise meet a closed connection instead of the answer.
    const declaredLength = request.headers['content-length'];
    if (contentLengthExceeds(declaredLength, largestRequestBodyBytes)) {
      if (await readWholeBody()) reject(new PayloadTooLarge(largestRequestBodyBytes), `Content-Length ${declaredLength} above ${largestRequestBodyBytes}`);
      return;
    }

    const underStage = rawPath === apiBasePath || rawPath.startsWith(`${apiBasePath}/`);
    const path = underStage ? rawPath.slice(apiBasePath.length) || '/' : undefined;
    const found = path === undefined ? undefined : route(method, path);
    if (!found) {
      // The OpenAPI document and the reference page (reference-page.ts): local only, no token. HEAD answers as GET
      // does, without the body (node:http sends none for a HEAD request).
      if ((method === 'GET' || method === 'HEAD') && path !== undefined) {
        try {
          if (await serveReference(request, response, path, requestId)) return finish('');
        } catch (error) {
          log(`[gateway] ${requestId} cannot serve ${rawPath}: ${String(error)}`);
          return reject('INTEGRATION_FAILURE');
        }
      }
      // The reference page's webhook signer (webhook-signing.ts): local only, the webhook's path only.
      if (method === 'POST' && path !== undefined && resourceOf(path) === webhookSigningPath) {
        const body = await readBody(request, maxSigningRequestBytes);
        if (body === 'too-large') return reject('REQUEST_TOO_LARGE', '', true);
        if (!Buffer.isBuffer(body)) return reject(body.refused, `the body could not be read: ${refusalName(body.refused)}`, true);
        let signed: string;
        try {
          signed = signForReferencePage(body, request.headers['content-type'], options.webhookSigning === true);
        } catch (error) {
          if (error instanceof ApiError) return reject(error, `signing refused: ${error.detail}`);
          log(`[gateway] ${requestId} cannot sign for the reference page: ${String(error)}`);
          return reject('INTEGRATION_FAILURE');
        }
        const answer = JSON.stringify({ body: signed });
        response.writeHead(200, { ...gatewayHeaders(requestId), 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(answer)) });
        response.end(answer);
        return finish('signed for the reference page');
      }
      // API Gateway answers an unknown path or method with MISSING_AUTHENTICATION_TOKEN.
      reject('MISSING_AUTHENTICATION_TOKEN');
      return;
    }

    const body = await readWholeBody();
    if (!body) return;

    const incoming: IncomingRequest = {
      method,
      rawPath,
      rawQuery,
      rawHeaders: request.rawHeaders,
      sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
      localPort: request.socket.localPort ?? 0,
      requestId,
      extendedRequestId,
      requestTimeEpoch: started,
    };

    // The stage's throttle, injected by the fault mode (the template's 100 requests/s are not emulated): 429 before
    // the authorizer or the function, so nothing of the request runs.
    if (options.faults?.decide({ service: 'apigateway', operation: 'request', caller: found.route.operation.operationId }, gatewayEffects)) {
      return reject('THROTTLED', 'throttled (a fault)');
    }

    let authorizer: Record<string, unknown> | null = null;
    if (found.route.operation.auth === 'bearer') {
      const outcome = await authorize(buildAuthorizerEvent(incoming, found.matched, stageName), request.rawHeaders);
      if (outcome.kind === 'unauthorized') return reject('UNAUTHORIZED');
      if (outcome.kind === 'denied') return reject('ACCESS_DENIED');
      if (outcome.kind === 'error') {
        return reject('AUTHORIZER_CONFIGURATION_ERROR', `authorizer failed: ${String(outcome.error)}`);
      }
      authorizer = outcome.authorizer;
    }

    const contentType = request.headers['content-type'] ?? '';
    const binary = body.length > 0 && binaryMediaTypes.some((pattern) => mediaTypeMatches(pattern, contentType));
    const event: APIGatewayProxyEvent = buildProxyEvent(
      incoming,
      found.matched,
      stageName,
      { body: body.length === 0 ? null : body.toString(binary ? 'base64' : 'utf8'), isBase64Encoded: binary },
      authorizer,
    );
    if (Buffer.byteLength(JSON.stringify(event)) > maxLambdaPayloadBytes) {
      return reject('INTEGRATION_FAILURE', 'the event exceeds the Lambda invocation payload limit');
    }

    let result: HttpResult;
    try {
      const { operationId, handler } = found.route.operation;
      const returned = await invoke({ functionName: operationId, handler }, event, integrationTimeoutMs);
      if (Buffer.byteLength(JSON.stringify(returned ?? null)) > maxLambdaPayloadBytes) {
        return reject('INTEGRATION_FAILURE', 'the response exceeds the Lambda payload limit');
      }
      result = toHttpResult(returned);
    } catch (error) {
      // The integration's own timeout is API Gateway's 504; a function that ends at its own timeout is a Lambda error, 502.
      if (error instanceof InvocationTimeout && error.limit === 'caller') return reject('INTEGRATION_TIMEOUT');
      if (error instanceof InvocationTimeout) {
        log(`[gateway] ${requestId} ${found.route.operation.operationId} failed: ${error.message}`);
        return reject('INTEGRATION_FAILURE', 'function timed out');
      }
      // Lambda's 429 reaches the client as API Gateway's INTEGRATION_FAILURE, as any Lambda error: nothing ran.
      if (error instanceof InvocationThrottled) {
        log(`[gateway] ${requestId} ${found.route.operation.operationId} throttled: ${error.message}`);
        return reject('INTEGRATION_FAILURE', 'function throttled');
      }
      log(`[gateway] ${requestId} ${found.route.operation.operationId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return reject('INTEGRATION_FAILURE', error instanceof MalformedProxyResult ? `malformed proxy response: ${error.message}` : 'function error');
    }

    if (!result.headers.has('content-type')) result.headers.set('content-type', { name: 'Content-Type', values: ['application/json'] });
    for (const { name, values } of result.headers.values()) response.setHeader(name, values.length === 1 ? (values[0] as string) : values);
    if (!result.headers.has('x-amzn-requestid')) response.setHeader('x-amzn-RequestId', requestId);
    response.setHeader('x-amz-apigw-id', extendedRequestId);
    response.setHeader('Content-Length', String(result.body.length));
    response.writeHead(result.statusCode);
    response.end(result.body);
    finish('');
  };
};

/** What a request node:http refuses by itself is answered with: its own answer would be a bare status line. */
const clientErrorRefusal = (code: string | undefined): Refusal =>
  code === 'HPE_HEADER_OVERFLOW' ? 'REQUEST_TOO_LARGE' : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? requestTimedOut() : 'DEFAULT_4XX';

export const startGateway = async (options: GatewayOptions & { port: number; host?: string }): Promise<RunningGateway> => {
  const responder = gatewayResponder(options.gatewayResponses ?? sharedGatewayResponseSet());
  const log = options.log ?? logToStderr;
  const handle = createGatewayHandler(options, responder);
  const server = createServer(
    {
      maxHeaderSize: nodeMaxHeaderBytes,
      requireHostHeader: false,
      ...(options.headersTimeoutMs === undefined ? {} : { headersTimeout: options.headersTimeoutMs }),
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeout: options.requestTimeoutMs }),
      ...(options.connectionsCheckingIntervalMs === undefined ? {} : { connectionsCheckingInterval: options.connectionsCheckingIntervalMs }),
    },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        log(`[gateway] unexpected failure: ${String(error)}`);
        if (!response.headersSent) responder.send(response, 'DEFAULT_5XX', 'unknown');
        else response.destroy();
      });
    },
  );
  server.maxHeadersCount = nodeMaxHeadersCount;
  // Every way node:http takes a request off the 'request' path is answered with a gateway problem, never dropped and
  // never a bare status line (infra/local/README.md, "How faithful the gateway is"). An `Upgrade` request (WebSocket,
  // h2c) needs no listener: without an 'upgrade' listener node:http serves it as an ordinary request, the Upgrade
  // ignored (RFC 9110 §7.8), as API Gateway's REST APIs do.
  //
  // Unparsable, too large or too slow: a request node:http could not read. The answers the connection still owes
  // (pipelined requests before it) are sent first; a body it could not read is its own request's to refuse.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = clientErrorRefusal(error.code);
    const reading = connections.get(socket)?.reading;
    if (reading && !reading.request.complete) {
      reading.refuse(refusal);
      return;
    }
    afterOwedResponses(socket, () => {
      if (!socket.writable) return void socket.destroy();
      const requestId = responder.writeToSocket(socket, refusal);
      log(`[gateway] refused a request node:http could not read (${error.code ?? error.message}): ${refusalName(refusal)} ${requestId}`);
    });
  });
  // CONNECT (a tunnel through a proxy): its target is an authority (`host:port`), not a path under the API, so no
  // route can match; node:http hands the socket over and, with no listener, closes it unanswered.
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    afterOwedResponses(socket, () => {
      if (!socket.writable) return void socket.destroy();
      const requestId = responder.writeToSocket(socket, 'DEFAULT_4XX');
      log(`[gateway] CONNECT ${loggedTarget(request.url)} 400 refused: no route takes a CONNECT ${requestId}`);
    });
  });
  // An Expect other than 100-continue (node:http answers those itself, then emits 'request'): 417 as a problem, and
  // the connection is closed, since the client may still send a body it was not asked for.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    owe(request.socket, response);
    const { requestId } = newRequestIds();
    responder.send(response, expectationFailed(), requestId, true);
    request.resume();
    log(`[gateway] ${request.method ?? ''} ${loggedTarget(request.url)} 417 unknown expectation ${requestId}`);
  });
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port, host, options.idleConnectionTimeoutMs);
  return { server, baseUrl: `http://${host}:${port}${apiBasePath}`, close: () => closeServer(server) };
};
