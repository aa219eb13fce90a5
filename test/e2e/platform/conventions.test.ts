// End to end: HTTP conventions every operation shares, seen from a client of the local stack: routing (unknown
// routes, trailing slashes), the normal stack before any handler, the OpenAPI document, the request id and
// security headers on every response, and problems in XML for clients that prefer it.
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { parseXml } from '#shared/http/codecs/xml';
import { api, apiBaseUrl, tokenFor, type ApiResponse } from '#test/support/http';
import {
  gatewayProblemHeaders,
  problem,
  problemHeaders,
  problemType,
  gatewaySecurityHeaders,
  securityHeaders,
  successHeaders,
  uuidPattern,
  validationProblem,
  viewOf,
} from '#test/support/responses';
import { freshTenantId } from '#test/support/tenant-items';

const tenant = freshTenantId();
let token: string;
let locationId: number;

beforeAll(async () => {
  token = await tokenFor({ tenant });
  const created = await api<{ ID: number }>('/TenantLocation/Save', { token, body: { Name: 'Platform', Address: { City: 'Perth', IsDefaultBilling: true } } });
  expect(created.status).toBe(201);
  locationId = created.json.ID;
});

const noRoute = {
  status: 404,
  headers: gatewayProblemHeaders(),
  body: problem({ status: 404, title: 'Not Found', detail: 'No operation at this path and method.' }),
};

describe('routing', () => {
  test.each([
    ['an unknown path', 'GET', '/Nope'],
    ['an unknown nested path', 'GET', '/TenantLocation/Nope/1'],
    ['a known path with a missing id', 'GET', '/TenantLocation/Get'],
    ['a known path with an extra segment', 'GET', '/TenantLocation/Get/1/extra'],
    ['a known path with another method', 'DELETE', '/TenantLocation/GetAll'],
    ['POST to a GET operation', 'POST', '/TenantLocation/Get/1'],
    ['a path that differs in case', 'GET', '/tenantlocation/getall'],
    ['the API root', 'GET', '/'],
  ])('%s: 404 problem from the gateway, with or without a token', async (_name, method, path) => {
    for (const request of [{ method }, { method, token }]) expect(viewOf(await api(path, request))).toEqual(noRoute);
  });

  test('a path outside the /api stage: 404 problem', async () => {
    const origin = new URL(apiBaseUrl()).origin;
    const response = await fetch(`${origin}/TenantLocation/GetAll`);
    const text = await response.text();
    expect(viewOf({ status: response.status, headers: response.headers, text, json: JSON.parse(text) })).toEqual(noRoute);
  });

  test('an unknown route is a JSON problem even for a client that prefers XML (gateway responses are JSON only)', async () => {
    expect(viewOf(await api('/Nope', { headers: { Accept: 'application/xml' } }))).toEqual(noRoute);
  });

  test.each([
    ['GET', '/TenantLocation/GetAll/', undefined],
    ['GET', '/TenantLocation/Get/{id}/', undefined],
    ['GET', '/TenantLocation/GetDefaultAddress/{id}/?addressType=Billing', undefined],
    ['PUT', '/TenantLocation/Search/', {}],
    ['POST', '/TenantLocation/GetByName/', { SearchString: 'platform' }],
  ])('%s %s matches with a trailing slash, like without', async (method, template, body) => {
    const path = template.replace('{id}', String(locationId));
    const call = (candidate: string) => api(candidate, { method, token, ...(body === undefined ? {} : { body }) });
    const [withSlash, without] = await Promise.all([call(path), call(path.replace(/\/(\?|$)/, '$1'))]);
    expect(withSlash.status).toBe(200);
    expect([withSlash.status, withSlash.json]).toEqual([without.status, without.json]);
  });
});

describe('the normal stack around every operation', () => {
  // Authentication, then path validation, answer before any handler runs.
  test('authentication, negotiation and validation still come first', async () => {
    const unauthorized = await api('/Payment/5/refund', { body: { IsQueue: true } });
    expect(viewOf(unauthorized)).toEqual({
      status: 401,
      headers: gatewayProblemHeaders({ 'www-authenticate': 'Bearer realm="api"' }),
      body: problem({ status: 401, title: 'Unauthorized', detail: 'A valid bearer token is required.' }),
    });
    expect(viewOf(await api('/Payment/abc/refund', { token, body: { IsQueue: true } }))).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ parameter: 'id', detail: 'must be a positive 32-bit integer' }]),
    });
    expect(viewOf(await api('/Payment/5/refund', { token, body: { IsQueue: 'often' } }))).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ pointer: '/IsQueue', detail: expect.any(String) }]),
    });
    expect(viewOf(await api('/Payment/5/refund', { token, body: { IsQueue: true, TenantID: tenant + 1 } })).status).toBe(403);
    expect(viewOf(await api('/ScheduledTasks/', { method: 'POST', token, body: {}, headers: { Accept: 'image/png' } })).status).toBe(406);
    expect(viewOf(await api('/ScheduledTasks/', { method: 'POST', token, body: 'x', headers: { 'Content-Type': 'text/plain' } })).status).toBe(415);
  });
});

/** The committed document as the local stack serves it: its first server is the address it was fetched from. */
const servedFrom = (serverUrl: string) => {
  const committed = JSON.parse(readFileSync(new URL('../../../shared/openapi/openapi.json', import.meta.url), 'utf8')) as { servers: object[] };
  const [local, ...others] = committed.servers;
  return { ...committed, servers: [{ ...local, url: serverUrl }, ...others] };
};

/** GET /api/openapi.json with a Host header of the test's choosing (fetch cannot set one). */
const openApiWithHost = (host: string) =>
  new Promise<{ status: number; document: { servers: { url: string }[] } }>((resolve, reject) => {
    const base = new URL(apiBaseUrl());
    const request = httpGet({ hostname: base.hostname, port: base.port, path: `${base.pathname}/openapi.json`, headers: { Host: host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, document: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });

describe('the OpenAPI document', () => {
  test.each(['/openapi.json', '/openapi.json/'])('GET %s serves shared/openapi/openapi.json without a token, naming the address it was fetched from', async (path) => {
    const response = await api(path);
    expect(viewOf(response)).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json', ...gatewaySecurityHeaders, 'x-request-id': expect.stringMatching(uuidPattern) },
      body: servedFrom(apiBaseUrl()),
    });
    expect(response.json).toMatchObject({ openapi: '3.1.0' });
  });

  test('the stack runs on a port of its own, and the document names that port, not the default one', async () => {
    expect(new URL(apiBaseUrl()).port).not.toBe('3000');
    expect((await api<{ servers: { url: string }[] }>('/openapi.json')).json.servers[0]?.url).toBe(apiBaseUrl());
  });

  test.each([
    ['a name and port', (port: string) => `localhost:${port}`, (port: string) => `http://localhost:${port}/api`],
    ['a name in upper case, no port', () => 'Docs.Example.TEST', () => 'http://docs.example.test/api'],
    ['an IPv4 address and port', (port: string) => `127.0.0.1:${port}`, (port: string) => `http://127.0.0.1:${port}/api`],
    ['a bracketed IPv6 address and port', (port: string) => `[::1]:${port}`, (port: string) => `http://[::1]:${port}/api`],
  ])('the first server follows a valid Host header: %s', async (_name, host, expected) => {
    const port = new URL(apiBaseUrl()).port;
    const { status, document } = await openApiWithHost(host(port));
    expect(status).toBe(200);
    expect(document.servers[0]?.url).toBe(expected(port));
  });

  test.each([
    ['empty', ''],
    ['a path', 'evil.example/x'],
    ['user info', 'user@evil.example'],
    ['a space', 'evil example'],
    ['markup', '"><script>alert(1)</script>'],
    ['a query', 'evil.example?x=1'],
    ['port 0', 'evil.example:0'],
    ['a port over 65535', 'evil.example:65536'],
    ['two ports', 'evil.example:80:80'],
    ['an empty port', 'evil.example:'],
    ['a label starting with a hyphen', '-evil.example'],
    ['an empty label', 'evil..example'],
    ['an unbracketed IPv6 address', '::1'],
    ['a bracketed non-address', '[evil.example]'],
    ['a scheme', 'http://evil.example'],
    ['a label over 63 characters', `${'a'.repeat(64)}.example`],
  ])('a Host header that is not host[:port] (%s): the first server is the address the stack listens on', async (_name, host) => {
    const { status, document } = await openApiWithHost(host);
    expect(status).toBe(200);
    expect(document.servers[0]?.url).toBe(apiBaseUrl());
  });

  test('only with GET', async () => {
    expect(viewOf(await api('/openapi.json', { method: 'POST', body: {} }))).toEqual(noRoute);
  });
});

describe('every response carries a fresh X-Request-Id and the security headers', () => {
  const requests: [string, () => Promise<ApiResponse>, number, Readonly<Record<string, string>>?][] = [
    ['200 from a function', () => api(`/TenantLocation/Get/${locationId}`, { token }), 200],
    ['201 from a function', () => api('/TenantLocation/Save', { token, body: { Name: `Headers ${Date.now()}` } }), 201],
    ['200 in XML', () => api('/TenantLocation/GetAll', { token, headers: { Accept: 'text/xml' } }), 200],
    ['400 from a function', () => api('/TenantLocation/Get/abc', { token }), 400],
    ['401 from the gateway', () => api('/TenantLocation/GetAll'), 401, gatewaySecurityHeaders],
    ['404 from the gateway', () => api('/Nope'), 404, gatewaySecurityHeaders],
    ['404 from a function', () => api('/TenantLocation/Get/999999', { token }), 404],
    ['406 from a function', () => api('/TenantLocation/GetAll', { token, headers: { Accept: 'image/png' } }), 406],
    // Over the most any operation reads: refused before any function, as the web ACL does (shared/http/body-limit.ts).
    ['413 from the front door', () => api('/TenantLocation/Save', { token, body: { Name: 'x'.repeat(1024 * 1024 + 1) } }), 413, gatewaySecurityHeaders],
    ['415 from a function', () => api('/TenantLocation/Save', { token, body: 'Name', headers: { 'Content-Type': 'text/plain' } }), 415],
    ['200 OpenAPI (served by the local gateway itself)', () => api('/openapi.json'), 200, gatewaySecurityHeaders],
  ];

  test.each(requests)('%s', async (_name, send, status, expectedSecurityHeaders = securityHeaders) => {
    const response = await send();
    const view = viewOf(response);
    expect(view.status).toBe(status);
    expect(view.headers).toMatchObject({ ...expectedSecurityHeaders, 'x-request-id': expect.stringMatching(uuidPattern) });
  });

  test('request ids are unique', async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, () => api(`/TenantLocation/Get/${locationId}`, { token })));
    expect(new Set(responses.map((response) => response.headers.get('x-request-id'))).size).toBe(10);
  });

  test('a successful answer in each JSON type says which, with Vary: Accept', async () => {
    for (const type of ['application/json', 'text/json']) {
      expect(viewOf(await api(`/TenantLocation/Get/${locationId}`, { token, headers: { Accept: type } })).headers).toEqual(successHeaders(type));
    }
  });
});

/** Reads an RFC 9457 Appendix B problem back into the shape of its JSON form (numbers and booleans arrive as text). */
const problemFromXml = (xml: string) => {
  const parsed = parseXml(xml) as Record<string, unknown>;
  const listOf = (wrapper: unknown): unknown[] | undefined => {
    const items = (wrapper as { i?: unknown } | undefined)?.i;
    return items === undefined ? undefined : Array.isArray(items) ? items : [items];
  };
  const errors = listOf(parsed.errors);
  return {
    ...parsed,
    status: Number(parsed.status),
    ...(errors === undefined ? {} : { errors }),
    IsSuccess: parsed.IsSuccess === 'true',
    Messages: listOf(parsed.Messages),
    ErrorCode: Number(parsed.ErrorCode),
  };
};

describe('problems in XML for clients that prefer XML', () => {
  test.each(['application/xml', 'text/xml', 'application/json;q=0.5, application/xml'])(
    'Accept: %s gives application/problem+xml in the RFC 7807 namespace, equal to the JSON problem',
    async (accept) => {
      const [json, xml] = await Promise.all([
        api('/TenantLocation/Get/999999', { token }),
        api('/TenantLocation/Get/999999', { token, headers: { Accept: accept } }),
      ]);
      expect(viewOf(xml)).toEqual({ status: 404, headers: problemHeaders('xml'), body: expect.stringContaining('<problem xmlns="urn:ietf:rfc:7807">') });
      expect(problemFromXml(xml.text)).toEqual({ ...(json.json as object), instance: xml.headers.get('x-request-id') });
    },
  );

  test('a validation problem lists its errors as <i> members', async () => {
    const xml = await api('/TenantLocation/Save', {
      token,
      body: '<TenantLocationInfo><ID>abc</ID><name>x</name></TenantLocationInfo>',
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
    });
    expect(viewOf(xml)).toEqual({ status: 400, headers: problemHeaders('xml'), body: expect.any(String) });
    expect(problemFromXml(xml.text)).toEqual({
      ...validationProblem([
        { pointer: '/ID', detail: expect.any(String) },
        { pointer: '/name', detail: 'is not a known field (names are case-sensitive)' },
      ]),
      instance: xml.headers.get('x-request-id'),
    });
  });

  test('a JSON preference keeps problems in JSON', async () => {
    const response = await api('/TenantLocation/Get/999999', { token, headers: { Accept: 'application/xml;q=0.1, application/json' } });
    expect(viewOf(response).headers).toEqual(problemHeaders('json'));
  });
});

describe("problems carry the platform's outcome members, for clients that check IsSuccess", () => {
  test('from a function: IsSuccess false, Messages the detail then each field error, ErrorCode the status', async () => {
    const response = await api('/TenantLocation/Save', { token, body: { name: 'x' } });
    expect(viewOf(response).status).toBe(400);
    expect(response.json).toMatchObject({
      status: 400,
      IsSuccess: false,
      Messages: ['The request is not valid; see errors for each field.', '/name: is not a known field (names are case-sensitive)'],
      ErrorCode: 400,
    });
  });

  test.each([
    ['an unknown route', '/No/Such/Route', 404, 'No operation at this path and method.'],
    ['no token', '/TenantLocation/GetAll', 401, 'A valid bearer token is required.'],
  ])('from the gateway (%s)', async (_case, path, status, detail) => {
    const response = await api(path, status === 401 ? {} : { token });
    expect(viewOf(response).status).toBe(status);
    expect(response.json).toMatchObject({ status, detail, IsSuccess: false, Messages: [detail], ErrorCode: status });
  });
});

describe('client-given names that are members of Object.prototype are ordinary (unknown) names', () => {
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];

  test.each(names)('addressType=%s: 400 naming addressType', async (name) => {
    const response = await api(`/TenantLocation/GetDefaultAddress/${locationId}?addressType=${name}`, { token });
    expect(viewOf(response)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ parameter: 'addressType', detail: 'must be Billing, Delivery, Service or Postal (or 1, 2, 3, 4)' }]),
    });
  });

  test.each(['toString', 'hasOwnProperty'])('a Search filter member named %s, in JSON and as a form: 400 unknown field', async (name) => {
    const expected = { status: 400, headers: problemHeaders(), body: validationProblem([{ pointer: `/${name}`, detail: 'is not a known field (names are case-sensitive)' }]) };
    const json = await api('/TenantLocation/Search', { method: 'PUT', token, body: { [name]: 'x' } });
    const form = await api('/TenantLocation/Search', {
      method: 'PUT',
      token,
      body: `${name}=x`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect([viewOf(json), viewOf(form)]).toEqual([expected, expected]);
  });

  test('headers with these names leave a request as it was', async () => {
    const headers = Object.fromEntries(names.filter((name) => name !== '__proto__').map((name) => [name, 'x']));
    const response = await api(`/TenantLocation/GetDefaultAddress/${locationId}?addressType=Billing`, { token, headers });
    expect(viewOf(response)).toEqual({ status: 200, headers: successHeaders('application/json'), body: { City: 'Perth', IsDefaultBilling: true, LocationID: locationId } });
  });

  // The operation's query is strict: a parameter it does not declare is refused by name, whatever the name
  // (`__proto__` included: an own member of the parameters, never their prototype).
  test('query parameters with these names are parameters the operation does not declare: 400 naming each', async () => {
    const query = names.map((name, index) => `${name}=${index}`).join('&');
    const response = await api(`/TenantLocation/GetDefaultAddress/${locationId}?addressType=Billing&${query}`, { token });
    expect(viewOf(response)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem(names.map((name) => ({ parameter: name, detail: 'is not a known field (names are case-sensitive)' }))),
    });
  });
});
