// Black-box tests of the operation stack's header handling (shared/http/header-lines.ts, issue 14): header names are
// case-insensitive, and a header that may appear once but is carried ambiguously by API Gateway's event (several
// lines in multiValueHeaders, several case forms, or headers and multiValueHeaders disagreeing) is refused with a
// 400 problem naming it, before the handler runs. Events are built by hand, as API Gateway could send them.
import { describe, expect, it } from '@jest/globals';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerOrderRepeatPattern, onceOnlyHeaders } from '#shared/http/header-lines';
import { problemOutcome } from '#test/support/responses';
import { apiEvent, operationWith, problemHeaders, requestId, type EventOptions } from './support';

const body = '{"Name":"Main"}';
/** A valid value of each once-only header for a Save (so only the repetition can be refused). */
const validValue: Readonly<Record<(typeof onceOnlyHeaders)[number], string>> = {
  Authorization: 'Bearer a.b.c',
  'Content-Type': 'application/json',
  'Content-Encoding': 'identity',
  'Content-Length': String(body.length),
  'Idempotency-Key': 'key-1',
  Host: 'abc123def4.execute-api.eu-west-1.amazonaws.com',
};
/** A second value, different from the first but as valid. */
const otherValue: Readonly<Record<(typeof onceOnlyHeaders)[number], string>> = {
  Authorization: 'Bearer d.e.f',
  'Content-Type': 'application/xml',
  'Content-Encoding': 'gzip',
  'Content-Length': '99',
  'Idempotency-Key': 'key-2',
  Host: 'elsewhere.example',
};

const saveEvent = (options: EventOptions = {}) =>
  apiEvent({ method: 'POST', resource: '/TenantLocation/Save', body, ...options, headers: { 'Content-Type': 'application/json', ...options.headers } });

/** The event with its header maps replaced (the rest of apiEvent's headers kept, except every case form of `name`). */
const withMaps = (
  event: APIGatewayProxyEvent,
  name: string,
  headers: Record<string, string>,
  multiValueHeaders: Record<string, string[]>,
): APIGatewayProxyEvent => {
  const others = <T>(map: Record<string, T>) => Object.fromEntries(Object.entries(map).filter(([key]) => key.toLowerCase() !== name.toLowerCase()));
  return {
    ...event,
    headers: { ...others(event.headers), ...headers },
    multiValueHeaders: { ...others(event.multiValueHeaders), ...multiValueHeaders },
  };
};

const refused = (header: string, lines: number) => {
  const detail =
    lines > 1
      ? `The ${header} header appears on more than one line (header names are case-insensitive); send it once.`
      : `The ${header} header has values that disagree; send it once.`;
  return {
    statusCode: 400,
    headers: problemHeaders(),
    body: { type: 'about:blank', title: 'Bad Request', status: 400, detail, instance: requestId, ...problemOutcome(400, detail) },
  };
};

describe.each(onceOnlyHeaders.map((header) => [header]))('operation stack: %s on more than one line', (header) => {
  const lower = header.toLowerCase();
  const upper = header.toUpperCase();
  const first = validValue[header];
  const second = otherValue[header];

  it.each([
    // API Gateway's own shapes: `headers` keeps the last line of a key, `multiValueHeaders` every line.
    ['the same case twice, the same value', { [header]: first }, { [header]: [first, first] }, 2],
    ['the same case twice, different values', { [header]: second }, { [header]: [first, second] }, 2],
    ['different cases, the same value', { [header]: first, [lower]: first }, { [header]: [first], [lower]: [first] }, 2],
    ['different cases, different values', { [header]: first, [lower]: second }, { [header]: [first], [lower]: [second] }, 2],
    ['three case forms', { [header]: first, [lower]: first, [upper]: second }, { [header]: [first], [lower]: [first], [upper]: [second] }, 3],
    // Events API Gateway does not build, but a function must not trust either map alone.
    ['a repeat in multiValueHeaders only', {}, { [header]: [first, second] }, 2],
    ['one case in headers only, another in multiValueHeaders only', { [lower]: second }, { [header]: [first] }, 2],
    ['headers and multiValueHeaders that disagree', { [header]: second }, { [header]: [first] }, 1],
    ['a multiValueHeaders entry with no line but a headers value', { [header]: first }, { [header]: [] }, 0],
  ])('refuses %s with a 400 naming the header, before the handler', async (_case, headers, multiValueHeaders, lines) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(withMaps(saveEvent(), header, headers, multiValueHeaders));

    expect({ response, handled: seen.length }).toEqual({ response: refused(header, lines), handled: 0 });
  });

  it('refuses it on the webhook too', async () => {
    const { call, seen } = operationWith('providerWebhook');
    const event = apiEvent({
      method: 'POST',
      resource: '/Platform/DocumentAnalyser/Provider/Webhook',
      body: '{"type":"document.uploaded"}',
      headers: { 'Content-Type': 'application/json' },
      authorizer: null,
    });

    const response = await call(withMaps(event, header, { [header]: first, [lower]: second }, { [header]: [first], [lower]: [second] }));

    expect({ response, handled: seen.length }).toEqual({ response: refused(header, 2), handled: 0 });
  });
});

describe('operation stack: header names are case-insensitive', () => {
  it('reads a once-only header in any case form when one line carries it', async () => {
    const { call, seen } = operationWith('tenantLocationSave');
    const event = withMaps(saveEvent(), 'Content-Type', { 'CONTENT-TYPE': 'application/json' }, { 'CONTENT-TYPE': ['application/json'] });

    const response = await call(withMaps(event, 'Idempotency-Key', { 'IDEMPOTENCY-key': 'k-1' }, { 'IDEMPOTENCY-key': ['k-1'] }));

    expect(response.statusCode).toBe(200);
    expect(seen[0]?.body).toEqual(expect.objectContaining({ Name: 'Main' }));
    expect((seen[0] as unknown as { headers: Record<string, string> }).headers).toEqual(
      expect.objectContaining({ 'content-type': 'application/json', 'idempotency-key': 'k-1' }),
    );
  });

  it('combines the lines of a list field such as Accept, in every case form, as one field', async () => {
    const { call } = operationWith('tenantLocationSave');
    const event = withMaps(
      saveEvent(),
      'Accept',
      { Accept: 'application/json;q=0.1', accept: 'application/xml' },
      { Accept: ['text/plain', 'application/json;q=0.1'], accept: ['application/xml'] },
    );

    const response = await call(event);

    expect({ status: response.statusCode, type: response.headers['Content-Type'] }).toEqual({
      status: 200,
      type: 'application/xml; charset=utf-8',
    });
  });

  it('keeps a header named like a member of Object.prototype as an ordinary header', async () => {
    const { call, seen } = operationWith('tenantLocationSave');
    const event = saveEvent();
    const headers = { ...event.headers };
    const multiValueHeaders = { ...event.multiValueHeaders };
    Object.defineProperty(headers, '__proto__', { value: 'x', enumerable: true, configurable: true, writable: true });
    Object.defineProperty(multiValueHeaders, '__proto__', { value: ['x'], enumerable: true, configurable: true, writable: true });

    const response = await call({ ...event, headers, multiValueHeaders });

    const seenHeaders = (seen[0] as unknown as { headers: Record<string, string> }).headers;
    expect({ status: response.statusCode, member: Object.hasOwn(seenHeaders, '__proto__'), prototype: Object.getPrototypeOf(seenHeaders) }).toEqual({
      status: 200,
      member: true,
      prototype: Object.prototype,
    });
  });
});

describe("the web ACL's pattern over HeaderOrder (infra/constructs/api-firewall.ts)", () => {
  // Names that contain a once-only name without being it, so a pattern that matches a part of a name fails.
  const vocabulary = ['Authorization', 'x-authorization', 'Authorization-Extra', 'content-type', 'Content-Type-X', 'X-Content-Type', 'HOST', 'X-Host', 'Idempotency-Key', 'accept', 'Content-Encoding', 'content-length', 'a'];
  let seed = 14;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const samples = Array.from({ length: 400 }, () => Array.from({ length: 1 + Math.floor(next() * 7) }, () => vocabulary[Math.floor(next() * vocabulary.length)] as string));

  it.each(onceOnlyHeaders.map((header) => [header]))('matches exactly the header lists that repeat %s, in any case form and position', (header) => {
    const pattern = new RegExp(headerOrderRepeatPattern(header));
    for (const names of samples) {
      const repeats = names.filter((name) => name.toLowerCase() === header.toLowerCase()).length > 1;
      // WAF's LOWERCASE text transformation, then the names joined by colons.
      expect({ names, matched: pattern.test(names.join(':').toLowerCase()) }).toEqual({ names, matched: repeats });
    }
    // Not vacuous: some samples repeat the header.
    expect(samples.some((names) => pattern.test(names.join(':').toLowerCase()))).toBe(true);
  });
});
