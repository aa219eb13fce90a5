// Integration: the local gateway behaves like the stack's API Gateway (REST, Lambda proxy) for routing, event
// shape, the authorizer step, limits and gateway responses. Runs an in-process gateway over fixture handlers.
import { request as httpRequest } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { openApiModulePath, startGateway, type GatewayOptions, type RunningGateway } from '../../../infra/local/gateway';
import { importFromRepoRoot } from '../../../infra/local/lambda-runtime';
import { gatewaySecurityHeaders } from '../../../shared/http/headers';

const fixture = (name: string) => `test/support/fixtures/${name}.ts`;

const operations: NonNullable<GatewayOptions['operations']> = [
  { operationId: 'thingGet', method: 'GET', path: '/things/{id}', handler: fixture('echo-handler'), auth: 'bearer' },
  { operationId: 'thingSave', method: 'POST', path: '/things/', handler: fixture('echo-handler'), auth: 'bearer' },
  { operationId: 'thingList', method: 'GET', path: '/things/All', handler: fixture('echo-handler'), auth: 'bearer' },
  { operationId: 'hook', method: 'POST', path: '/hooks/provider', handler: fixture('echo-handler'), auth: 'webhook-signature' },
  { operationId: 'slow', method: 'GET', path: '/slow', handler: fixture('slow-handler'), auth: 'webhook-signature' },
  { operationId: 'oversize', method: 'GET', path: '/oversize', handler: fixture('oversize-handler'), auth: 'webhook-signature' },
  { operationId: 'throwing', method: 'GET', path: '/throwing', handler: fixture('throwing-handler'), auth: 'webhook-signature' },
  { operationId: 'malformed', method: 'GET', path: '/malformed', handler: fixture('malformed-handler'), auth: 'webhook-signature' },
];

interface Echo {
  readonly event: APIGatewayProxyEvent;
  readonly context: { functionName: string; awsRequestId: string; remainingTimeInMillis: number };
}

let gateway: RunningGateway;
const gatewayLog: string[] = [];

beforeAll(async () => {
  gateway = await startGateway({
    port: 0,
    operations,
    authorizerModule: fixture('authorizer'),
    resolveModule: (path) =>
      path === openApiModulePath ? Promise.resolve({ buildOpenApiDocument: () => ({ openapi: '3.1.0' }) }) : importFromRepoRoot(path),
    integrationTimeoutMs: 500,
    log: (line) => gatewayLog.push(line),
  });
});

afterAll(() => gateway.close());

const call = (path: string, init: RequestInit = {}) => fetch(`${gateway.baseUrl}${path}`, init);
const allow = (n = 0) => ({ Authorization: `Bearer allow-${n}` });

const expectGatewayProblem = async (response: Response, status: number, title: string) => {
  const requestId = response.headers.get('X-Request-Id');
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.headers.get('Content-Type')).toBe('application/problem+json');
  for (const [name, value] of Object.entries(gatewaySecurityHeaders)) expect(response.headers.get(name)).toBe(value);
  expect(response.status).toBe(status);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toEqual({
    type: 'about:blank',
    title,
    status,
    detail: expect.any(String),
    instance: requestId,
    IsSuccess: false,
    Messages: [body.detail],
    ErrorCode: status,
  });
  return body;
};

/** node:http, for what fetch cannot send: repeated header lines. */
const rawGet = (path: string, headers: Record<string, string | string[]>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest(`${gateway.baseUrl}${path}`, { headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });

describe('event shape', () => {
  it('builds the REST v1 proxy event: resource, paths, parameters, multi-value maps, stage and authorizer context', async () => {
    const response = await rawGet('/things/abc%20d+e?tag=a&tag=b%2Bc&q=x+y', {
      Authorization: 'Bearer allow-1',
      'X-Multi': ['first', 'second'],
      'User-Agent': 'gateway-test',
    });

    expect(response.status).toBe(200);
    const { event, context } = JSON.parse(response.body) as Echo;
    expect(event).toMatchObject({
      resource: '/things/{id}',
      path: '/things/abc%20d+e',
      httpMethod: 'GET',
      pathParameters: { id: 'abc d+e' },
      queryStringParameters: { tag: 'b+c', q: 'x y' },
      multiValueQueryStringParameters: { tag: ['a', 'b+c'], q: ['x y'] },
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
    });
    expect(event.headers).toMatchObject({ Authorization: 'Bearer allow-1', 'X-Multi': 'second', 'User-Agent': 'gateway-test' });
    expect(event.multiValueHeaders).toMatchObject({ 'X-Multi': ['first', 'second'] });
    expect(event.headers['X-Forwarded-For']).toBe('127.0.0.1');
    expect(event.requestContext).toMatchObject({
      accountId: '123456789012',
      stage: 'api',
      path: '/api/things/abc%20d+e',
      resourcePath: '/things/{id}',
      httpMethod: 'GET',
      protocol: 'HTTP/1.1',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      extendedRequestId: expect.any(String),
      requestTime: expect.stringMatching(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/),
      requestTimeEpoch: expect.any(Number),
      resourceId: expect.stringMatching(/^[0-9a-z]{6}$/),
      identity: { sourceIp: '127.0.0.1', userAgent: 'gateway-test', accountId: null, caller: null, user: null, apiKey: null },
      // API Gateway passes the authorizer's context values as strings, plus principalId and integrationLatency.
      authorizer: {
        tenantId: '7',
        websiteId: '1',
        userId: '3',
        admin: 'true',
        principalId: 'tenant-7/user-3',
        integrationLatency: expect.any(Number),
      },
    });
    expect(context).toMatchObject({ functionName: 'thingGet', awsRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(context.remainingTimeInMillis).toBeGreaterThan(0);
    expect(context.remainingTimeInMillis).toBeLessThanOrEqual(500);
  });

  it('passes the body as text, null maps when there is no query or path parameter, and the function response through', async () => {
    const response = await call('/things', {
      method: 'POST',
      headers: { ...allow(), 'Content-Type': 'application/xml' },
      body: '<Thing><Name>Ünïcode</Name></Thing>',
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('X-Echo')).toBe('single');
    expect(response.headers.get('X-Echo-Multi')).toBe('one, two');
    expect(response.headers.get('x-amzn-RequestId')).toMatch(/^[0-9a-f-]{36}$/);
    const { event } = (await response.json()) as Echo;
    expect(event).toMatchObject({
      resource: '/things',
      path: '/things',
      body: '<Thing><Name>Ünïcode</Name></Thing>',
      isBase64Encoded: false,
      pathParameters: null,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
    });
    expect(event.requestContext.requestId).toBe(response.headers.get('x-amzn-RequestId'));
  });

  it('keeps query parameters and headers named like members of Object.prototype as ordinary members', async () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const query = names.map((name, index) => `${name}=q${index}`).join('&');
    const response = await rawGet(`/things/5?${query}&constructor=again`, {
      ...allow(),
      ...Object.fromEntries(names.map((name, index) => [name, `h${index}`])),
    });

    expect(response.status).toBe(200);
    const { event } = JSON.parse(response.body) as Echo;
    const entries = (map: object | null) => Object.entries(map ?? {}).filter(([name]) => names.includes(name));
    expect(entries(event.queryStringParameters)).toEqual([['__proto__', 'q0'], ['constructor', 'again'], ['toString', 'q2'], ['hasOwnProperty', 'q3']]);
    expect(entries(event.multiValueQueryStringParameters)).toEqual([
      ['__proto__', ['q0']],
      ['constructor', ['q1', 'again']],
      ['toString', ['q2']],
      ['hasOwnProperty', ['q3']],
    ]);
    expect(entries(event.headers)).toEqual(names.map((name, index) => [name, `h${index}`]));
    expect(entries(event.multiValueHeaders)).toEqual(names.map((name, index) => [name, [`h${index}`]]));
  });

  it('calls a webhook-signature operation without the authorizer', async () => {
    const response = await call('/hooks/provider', { method: 'POST', body: '{}' });

    expect(response.status).toBe(200);
    const { event } = (await response.json()) as Echo;
    expect(event.requestContext.authorizer).toBeNull();
  });
});

describe('routing', () => {
  it.each([
    ['/things/abc/', '/things/{id}', { id: 'abc' }],
    ['/things/All', '/things/All', null],
    ['/things/All/', '/things/All', null],
  ])('matches %s with or without a trailing slash, literal segments before parameters', async (path, resource, pathParameters) => {
    const response = await call(path, { headers: allow() });

    expect(response.status).toBe(200);
    const { event } = (await response.json()) as Echo;
    expect(event.resource).toBe(resource);
    expect(event.pathParameters).toEqual(pathParameters);
  });

  it('matches a manifest path declared with a trailing slash both ways', async () => {
    for (const path of ['/things', '/things/']) {
      const response = await call(path, { method: 'POST', headers: allow(), body: 'x' });
      expect(response.status).toBe(200);
    }
  });

  it.each([
    ['an unknown path', '/nothing/here', 'GET'],
    ['a known path with another method', '/things/abc', 'DELETE'],
    ['a path below a known one', '/things/abc/more', 'GET'],
  ])('answers %s with the gateway 404 problem', async (_, path, method) => {
    await expectGatewayProblem(await call(path, { method, headers: allow() }), 404, 'Not Found');
  });

  it('answers a path outside the stage with the gateway 404 problem', async () => {
    await expectGatewayProblem(await fetch(gateway.baseUrl.replace(/\/api$/, '/elsewhere')), 404, 'Not Found');
  });

  it('serves the OpenAPI document', async () => {
    const response = await call('/openapi.json');

    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(await response.json()).toEqual({ openapi: '3.1.0' });
  });
});

describe('authorizer', () => {
  it('answers 401 when the Authorization header is missing', async () => {
    await expectGatewayProblem(await call('/things/abc'), 401, 'Unauthorized');
  });

  it("answers 401 when the authorizer throws 'Unauthorized'", async () => {
    await expectGatewayProblem(await call('/things/abc', { headers: { Authorization: 'Bearer nonsense' } }), 401, 'Unauthorized');
  });

  it('answers 403 for a Deny policy and for an Allow that does not cover the method ARN', async () => {
    await expectGatewayProblem(await call('/things/abc', { headers: { Authorization: 'Bearer deny' } }), 403, 'Forbidden');
    await expectGatewayProblem(await call('/things/abc', { headers: { Authorization: 'Bearer elsewhere' } }), 403, 'Forbidden');
  });

  it('answers 500 when the authorizer fails otherwise', async () => {
    await expectGatewayProblem(
      await call('/things/abc', { headers: { Authorization: 'Bearer broken' } }),
      500,
      'Internal Server Error',
    );
  });

  it('caches the result per Authorization header and evaluates it against each method ARN', async () => {
    const invocationFor = async (path: string, token: string) => {
      const response = await call(path, { headers: { Authorization: `Bearer ${token}` } });
      return ((await response.json()) as Echo).event.requestContext.authorizer?.invocation as string;
    };

    const first = await invocationFor('/things/abc', 'allow-100');
    const sameToken = await invocationFor('/things/All', 'allow-100');
    const otherToken = await invocationFor('/things/abc', 'allow-101');

    expect(sameToken).toBe(first);
    expect(otherToken).not.toBe(first);
  });
});

describe('limits and failures', () => {
  it('answers 413 for a body over 10 MB sent with Content-Length', async () => {
    const response = await call('/hooks/provider', { method: 'POST', body: Buffer.alloc(10 * 1024 * 1024 + 1, 'a') });

    await expectGatewayProblem(response, 413, 'Content Too Large');
  });

  it('answers 413 for a streamed (chunked) body over 10 MB', async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(98);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 11) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await call('/hooks/provider', { method: 'POST', body, duplex: 'half' } as RequestInit);

    await expectGatewayProblem(response, 413, 'Content Too Large');
  });

  it('answers 504 when the function outlives the integration timeout', async () => {
    await expectGatewayProblem(await call('/slow'), 504, 'Gateway Timeout');
  });

  it('answers 502 when the response exceeds the Lambda payload limit', async () => {
    await expectGatewayProblem(await call('/oversize'), 502, 'Bad Gateway');
  });

  it('answers 502 without the error message when the function throws', async () => {
    const response = await call('/throwing');

    const body = await expectGatewayProblem(response, 502, 'Bad Gateway');
    expect(JSON.stringify(body)).not.toContain('secret');
  });

  it('answers 502 for a result that is not a valid proxy result', async () => {
    await expectGatewayProblem(await call('/malformed'), 502, 'Bad Gateway');
    expect(gatewayLog.some((line) => line.includes('malformed proxy response: body must be a string'))).toBe(true);
  });
});
