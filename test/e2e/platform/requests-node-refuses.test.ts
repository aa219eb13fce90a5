// End to end (issue 21, section 2): every way a request can reach the local gateway and leave, answered with a gateway
// problem (its body, X-Request-Id, the gateway's security headers), never dropped and never node:http's bare status
// line: CONNECT, an unknown Expect, an HTTP/2 preface, an HTTP/0.9 request line, a bad chunked body, Content-Length
// with Transfer-Encoding, a header section beyond node:http's limit, more header lines than node:http keeps by
// default, and a malformed request pipelined after a valid one (the valid one's answer comes first). An Upgrade
// request is served as an ordinary one. Raw sockets, through the local stack. (Node's header and request timeouts are
// tested on an in-process gateway with short limits: test/integration/local-stack/gateway.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readStackLog } from '#test/support/document-events-http';
import { apiBaseUrl, rawExchange, tokenFor, type RawExchange } from '#test/support/http';
import { gatewayProblemHeaders, problem, viewOf } from '#test/support/responses';
import { freshTenantId, openTenantTable, type TenantTable } from '#test/support/tenant-items';

const tenant = freshTenantId();
let table: TenantTable;
let token: string;
let host: string;

beforeAll(async () => {
  table = openTenantTable();
  token = await tokenFor({ tenant });
  host = new URL(apiBaseUrl()).host;
});

afterAll(() => table.close());

/** A request's bytes: the request line, the Host and bearer lines, then `lines`, then the body as it is. */
const request = (requestLine: string, lines: readonly string[] = [], body = '') =>
  `${requestLine}\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n${body}`;

const getAll = (lines: readonly string[] = []) => request('GET /api/TenantLocation/GetAll HTTP/1.1', lines);
const save = (lines: readonly string[], body: string) =>
  request('POST /api/TenantLocation/Save HTTP/1.1', ['Content-Type: application/json', ...lines], body);

const gatewayProblem = (status: number, title: string, detail: string) => ({
  status,
  headers: gatewayProblemHeaders(),
  body: problem({ status, title, detail }),
});
const badRequest = gatewayProblem(400, 'Bad Request', 'The request was refused by the gateway.');

/** Each response as one comparable value (viewOf checks X-Request-Id, x-amzn-RequestId and `instance`), and whether the gateway closed. */
const outcome = ({ responses, rest, closedByServer }: RawExchange) => ({ responses: responses.map(viewOf), rest, closedByServer });

describe('requests node:http takes off the request path', () => {
  it('CONNECT: a 400 gateway problem (its target is an authority, which no route takes), then the connection closes', async () => {
    const exchange = await rawExchange(`CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n`);

    expect(outcome(exchange)).toEqual({ responses: [badRequest], rest: '', closedByServer: true });
  });

  it('an Expect other than 100-continue: a 417 gateway problem, nothing stored, the connection closed', async () => {
    const before = await table.items(tenant);
    const body = JSON.stringify({ Name: 'Expected something' });

    const [read, write] = [
      await rawExchange(getAll(['Expect: something'])),
      await rawExchange(save(['Expect: something', `Content-Length: ${body.length}`], body)),
    ];

    const expectationFailed = gatewayProblem(417, 'Expectation Failed', 'The Expect header asks for an expectation this API does not meet; only 100-continue is supported.');
    expect([outcome(read), outcome(write)]).toEqual([
      { responses: [expectationFailed], rest: '', closedByServer: true },
      { responses: [expectationFailed], rest: '', closedByServer: true },
    ]);
    expect(await table.items(tenant)).toEqual(before);
  });

  it("logs a refused request's path, never its query or a URL's user information (a client may put a credential there)", async () => {
    const exchanges = [
      await rawExchange(request('GET /api/TenantLocation/GetAll?access_token=QuerySecret17 HTTP/1.1', ['Expect: something'])),
      await rawExchange(`CONNECT agent:ConnectSecret17@127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n`),
      await rawExchange(request(`GET http://agent:AbsoluteSecret17@${host}/api/TenantLocation/GetAll?access_token=AbsoluteQuery17 HTTP/1.1`, ['Connection: close'])),
    ];
    const requestIds = exchanges.map((exchange) => exchange.responses[0]?.headers.get('x-request-id') as string);
    expect(requestIds.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    const { text } = await readStackLog(requestIds);
    const lines = text.split('\n').filter((line) => requestIds.some((id) => line.includes(id)));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((line) => /Secret17|Query17/.test(line))).toEqual([]);
  });

  it('Expect: 100-continue is met: 100 Continue, then the answer', async () => {
    const body = JSON.stringify({ Name: 'Continued' });

    const exchange = await rawExchange(save(['Expect: 100-continue', `Content-Length: ${body.length}`, 'Connection: close'], body));

    expect(exchange.responses.map((response) => response.status)).toEqual([100, 201]);
    expect(exchange.responses[1]?.json).toMatchObject({ Name: 'Continued' });
  });

  it.each([
    ['WebSocket', ['Connection: Upgrade, close', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==']],
    ['h2c', ['Connection: Upgrade, HTTP2-Settings, close', 'Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA']],
  ])('an Upgrade to %s is ignored (RFC 9110 §7.8): the request is served as an ordinary one', async (_protocol, lines) => {
    const exchange = await rawExchange(getAll(lines));

    expect({ statuses: exchange.responses.map((response) => response.status), closedByServer: exchange.closedByServer }).toEqual({
      statuses: [200],
      closedByServer: true,
    });
    expect(Array.isArray(exchange.responses[0]?.json)).toBe(true);
  });
});

describe('requests node:http cannot read: a gateway problem, then the connection closes', () => {
  it.each([
    ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', false],
    ['an HTTP/0.9 request line (no version, so no headers)', 'GET /api/TenantLocation/GetAll\r\n', true],
    ['a method node:http does not know', request('BREW /api/TenantLocation/GetAll HTTP/1.1'), false],
    ['a header line without a colon', getAll(['Not a header']), false],
    ['Content-Length and Transfer-Encoding together', save(['Content-Length: 2', 'Transfer-Encoding: chunked'], '2\r\n{}\r\n0\r\n\r\n'), false],
  ])('%s: 400', async (_case, bytes, halfClose) => {
    expect(outcome(await rawExchange(bytes, { halfClose }))).toEqual({ responses: [badRequest], rest: '', closedByServer: true });
  });

  it('a bad chunked body (a chunk size that is not hex): 400 from the request itself, nothing stored', async () => {
    const before = await table.items(tenant);
    const json = JSON.stringify({ Name: 'Badly chunked' });

    const exchange = await rawExchange(save(['Transfer-Encoding: chunked'], `${json.length.toString(16)}\r\n${json}\r\nzz\r\nmore\r\n0\r\n\r\n`));

    expect(outcome(exchange)).toEqual({ responses: [badRequest], rest: '', closedByServer: true });
    expect(await table.items(tenant)).toEqual(before);
    // The request's own answer (its id, its access-log line), not a second one written past it on the socket.
    const requestId = exchange.responses[0]?.headers.get('x-request-id') as string;
    const { text, ours } = await readStackLog([requestId]);
    if (ours) expect(text).toMatch(new RegExp(`\\[gateway\\] POST /api/TenantLocation/Save 400 \\d+ms ${requestId} the body could not be read: DEFAULT_4XX`));
  });

  it("a header section beyond node:http's limit (64 KiB): the gateway's 413", async () => {
    const exchange = await rawExchange(getAll([`X-Big: ${'b'.repeat(70 * 1024)}`]));

    expect(outcome(exchange)).toEqual({
      responses: [gatewayProblem(413, 'Content Too Large', "The request exceeds the gateway's limits: a 10 MB body, 10,240 bytes of request line and header values.")],
      rest: '',
      closedByServer: true,
    });
  });

  it('more than 2,000 header lines (node:http keeps 2,000 by default): every line is seen, so a repeated Authorization after them is refused', async () => {
    const filler = Array.from({ length: 2_000 }, (_, index) => `X-Filler-${index}: a`);

    const exchange = await rawExchange(getAll([...filler, `Authorization: Bearer ${token}`, 'Connection: close']));

    const detail = 'The Authorization header appears on more than one line (header names are case-insensitive); send it once.';
    expect(outcome(exchange)).toEqual({ responses: [gatewayProblem(400, 'Bad Request', detail)], rest: '', closedByServer: true });
  });
});

describe('pipelined requests on one keep-alive connection', () => {
  it('two valid requests: both answered, in order', async () => {
    const exchange = await rawExchange(getAll() + getAll(['Connection: close']));

    expect(exchange.responses.map((response) => response.status)).toEqual([200, 200]);
    expect(exchange.closedByServer).toBe(true);
  });

  it.each([
    ['a malformed request', 'GARBAGE\r\n\r\n', badRequest],
    ['a CONNECT', 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n', badRequest],
  ])('a valid request, then %s: the first is answered (200) first, then the second refused, then the connection closes', async (_case, second, refusal) => {
    const exchange = await rawExchange(getAll() + second);

    const { responses, ...rest } = outcome(exchange);
    expect(rest).toEqual({ rest: '', closedByServer: true });
    expect(responses).toEqual([expect.objectContaining({ status: 200, body: expect.any(Array) }), refusal]);
  });

  it('a valid write, then a malformed request: the write is answered (201) and stored once, then the 400', async () => {
    const json = JSON.stringify({ Name: 'Pipelined write' });

    const exchange = await rawExchange(save([`Content-Length: ${json.length}`], json) + 'GARBAGE\r\n\r\n');

    expect(exchange.responses.map((response) => response.status)).toEqual([201, 400]);
    expect(viewOf(exchange.responses[1] as NonNullable<(typeof exchange.responses)[1]>)).toEqual(badRequest);
    const stored = (await table.items(tenant)).filter((item) => item.Name === 'Pipelined write');
    expect(stored).toHaveLength(1);
  });
});
