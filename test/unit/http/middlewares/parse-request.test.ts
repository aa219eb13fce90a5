// parse-request.ts alone: path, query and body parsed, coerced, given the caller's tenancy and validated, and the
// handler's input written to request.context.operationRequest; every refusal before the handler.
import { describe, expect, it } from '@jest/globals';
import { PayloadTooLarge, UnsupportedMediaType, ValidationFailed } from '#shared/errors';
import { decodeBody, parseRequest } from '#shared/http/middlewares/parse-request';
import { compileOperation } from '#infra/build/compiled-operations';
import { operationsById } from '#shared/operations/index';
import { apiEvent, jsonEvent, middlewareRequest, principal, requestId, run } from '../support';

const save = parseRequest(compileOperation(operationsById.tenantLocationSave));
const defaultAddress = parseRequest(compileOperation(operationsById.tenantLocationGetDefaultAddress));
/** The header map as case-insensitive-headers.ts leaves it (lower-case names), which this middleware reads. */
const lowerCase = (headers: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).flatMap(([name, value]) => (value === undefined ? [] : [[name.toLowerCase(), value]])));

describe('parseRequest', () => {
  it('writes the validated body, with the caller\'s tenancy, to request.context.operationRequest', async () => {
    const event = jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'Main' } });
    event.headers = lowerCase(event.headers);
    const request = await run(save.before, middlewareRequest(event, { principal }));
    expect(request.context.operationRequest).toEqual({
      body: expect.objectContaining({ Name: 'Main', TenantID: 7, WebsiteID: 1, UserID: 3 }),
      path: undefined,
      query: undefined,
      principal,
      requestId,
      headers: event.headers,
      rawBody: '{"Name":"Main"}',
      context: request.context,
    });
  });

  it('coerces and validates path and query parameters', async () => {
    const event = apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: '5' }, query: { addressType: 'Billing' } });
    const request = await run(defaultAddress.before, middlewareRequest(event, { principal }));
    expect(request.context.operationRequest).toMatchObject({ path: { id: 5 }, query: { addressType: 'Billing' }, body: undefined });
  });

  it('refuses a query parameter sent twice, naming it', async () => {
    const event = apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: '5' } });
    event.multiValueQueryStringParameters = { addressType: ['Billing', 'Delivery'] };
    event.queryStringParameters = { addressType: 'Delivery' };
    await expect(run(defaultAddress.before, middlewareRequest(event))).rejects.toEqual(
      new ValidationFailed([{ parameter: 'addressType', detail: 'appears more than once: send it once' }]),
    );
  });

  it('refuses a body in a content coding (415), a body too large (413), an unsupported media type (415) and no body (400)', async () => {
    const body = (headers: Record<string, string>, text: string) => apiEvent({ method: 'POST', resource: '/TenantLocation/Save', headers: lowerCase(headers), body: text });
    await expect(run(save.before, middlewareRequest(body({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, '{}')))).rejects.toMatchObject({
      status: 415,
      headers: { 'Accept-Encoding': 'identity' },
    });
    await expect(run(save.before, middlewareRequest(body({ 'Content-Type': 'application/json' }, 'x'.repeat(1024 * 1024 + 1))))).rejects.toBeInstanceOf(PayloadTooLarge);
    await expect(run(save.before, middlewareRequest(body({ 'Content-Type': 'text/plain' }, 'Name=Main')))).rejects.toBeInstanceOf(UnsupportedMediaType);
    await expect(run(save.before, middlewareRequest(body({ 'Content-Type': 'application/json' }, '')))).rejects.toMatchObject({
      status: 400,
      detail: 'A request body is required.',
    });
  });

  it('reads an integer parameter in plain decimal only: -0, like +0 and 00, is refused (found by a hostile client)', async () => {
    const payment = parseRequest(compileOperation(operationsById.paymentGetByID));
    const event = (after: string) => apiEvent({ resource: '/Payment/{id}', pathParameters: { id: '1' }, query: { RefundsAfterID: after } });
    for (const after of ['-0', '+0', '00']) {
      await expect(run(payment.before, middlewareRequest(event(after), { principal }))).rejects.toBeInstanceOf(ValidationFailed);
    }
    const request = await run(payment.before, middlewareRequest(event('0'), { principal }));
    expect(request.context.operationRequest).toMatchObject({ query: { RefundsAfterID: 0 } });
  });

  it('refuses a Content-Type whose parameters are malformed (415), as it refuses any type it cannot read', async () => {
    for (const contentType of ['application/json;charset', 'application/json; =x']) {
      const event = apiEvent({ method: 'POST', resource: '/TenantLocation/Save', headers: { 'content-type': contentType }, body: '{"Name":"Main"}' });
      await expect(run(save.before, middlewareRequest(event, { principal }))).rejects.toMatchObject({ status: 415 });
    }
  });

  it('leaves no input on the context when it refuses', async () => {
    const request = middlewareRequest(apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: 'x' } }));
    await expect(run(defaultAddress.before, request)).rejects.toBeInstanceOf(ValidationFailed);
    expect(request.context.operationRequest).toBeUndefined();
  });
});

describe('decodeBody', () => {
  const base64 = (bytes: Buffer | string) => ({ body: Buffer.from(bytes).toString('base64'), isBase64Encoded: true });

  it('reads no body as empty text', () => {
    expect(decodeBody({ body: null, isBase64Encoded: false }, 10)).toEqual({ text: '', utf8: true });
  });

  it('takes a text body as it is, and a base64 body as the UTF-8 its bytes are', () => {
    expect(decodeBody({ body: 'café \uFFFD', isBase64Encoded: false }, 100)).toEqual({ text: 'café \uFFFD', utf8: true });
    expect(decodeBody(base64('café \uFFFD'), 100)).toEqual({ text: 'café \uFFFD', utf8: true });
  });

  it('keeps a leading BOM whichever way the body arrived, as a text event has it', () => {
    expect(decodeBody(base64('\uFEFF{}'), 100)).toEqual({ text: '\uFEFF{}', utf8: true });
    expect(decodeBody({ body: '\uFEFF{}', isBase64Encoded: false }, 100)).toEqual({ text: '\uFEFF{}', utf8: true });
  });

  it.each([
    ['FF FE', [0x62, 0xff, 0xfe]],
    ['Latin-1 é', [0x63, 0x61, 0x66, 0xe9]],
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a sequence cut short', [0x41, 0xe2, 0x82]],
  ])('reports bytes that are not UTF-8 (%s) rather than reading them as U+FFFD silently', (_case, bytes) => {
    expect(decodeBody(base64(Buffer.from(bytes)), 100)).toMatchObject({ utf8: false });
  });

  it('bounds the bytes, not the characters: a base64 body of exactly the limit passes, one byte more is 413', () => {
    expect(decodeBody(base64(Buffer.alloc(9, 0x41)), 9)).toEqual({ text: 'AAAAAAAAA', utf8: true });
    expect(decodeBody(base64(Buffer.alloc(8, 0x41)), 9)).toEqual({ text: 'AAAAAAAA', utf8: true });
    expect(() => decodeBody(base64(Buffer.alloc(10, 0x41)), 9)).toThrow(PayloadTooLarge);
    // 4 bytes of invalid UTF-8 are 4 bytes, though their U+FFFD text would be 12.
    expect(decodeBody(base64(Buffer.from([0xff, 0xff, 0xff, 0xff])), 4)).toMatchObject({ utf8: false });
    expect(() => decodeBody({ body: 'éé', isBase64Encoded: false }, 3)).toThrow(PayloadTooLarge);
  });
});
