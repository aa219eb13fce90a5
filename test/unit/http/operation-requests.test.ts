// Black-box tests of the operation stack (shared/http/operation.ts): request bodies in every format, media types,
// size limits, validation with errors[] pointers, and path and query parameters.
import zlib from 'node:zlib';
import { problemOutcome } from '#test/support/responses';
import { describe, expect, it } from '@jest/globals';
import {
  apiEvent,
  jsonEvent,
  malformedProblem,
  operationWith,
  principal,
  problemHeaders,
  requestId,
  storedLocation,
  successHeaders,
  validationProblem,
  type EventOptions,
} from './support';

const tenancy = { TenantID: principal.tenantId, WebsiteID: principal.websiteId, UserID: principal.userId };
const saveEvent = (body: string, contentType: string | undefined, options: EventOptions = {}) =>
  apiEvent({
    method: 'POST',
    resource: '/TenantLocation/Save',
    body,
    ...options,
    headers: { ...(contentType === undefined ? {} : { 'Content-Type': contentType }), ...options.headers },
  });
const ok = { statusCode: 200, headers: successHeaders(), body: storedLocation };
const mebibyte = 1024 * 1024;

describe('operation stack: one body in every accepted format', () => {
  const expectedBody = {
    ID: 5,
    Name: 'Main & Co',
    Address: { City: 'Nelson', Latitude: -41.27, IsDefaultBilling: true },
    IsDefault: true,
    UtcOffset: 720,
    ...tenancy,
  };

  it.each([
    ['application/json', JSON.stringify({ ID: 5, Name: 'Main & Co', Address: { City: 'Nelson', Latitude: -41.27, IsDefaultBilling: true }, IsDefault: true, UtcOffset: 720 })],
    ['text/json', JSON.stringify({ ID: 5, Name: 'Main & Co', Address: { City: 'Nelson', Latitude: -41.27, IsDefaultBilling: true }, IsDefault: true, UtcOffset: 720 })],
    ['application/json; charset=utf-8', JSON.stringify({ ID: 5, Name: 'Main & Co', Address: { City: 'Nelson', Latitude: -41.27, IsDefaultBilling: true }, IsDefault: true, UtcOffset: 720 })],
    [
      'application/xml',
      '<TenantLocationInfo xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><ID>5</ID><Name>Main &amp; Co</Name>' +
        '<Address><City>Nelson</City><Latitude>-41.27</Latitude><IsDefaultBilling>true</IsDefaultBilling></Address>' +
        '<IsDefault>true</IsDefault><UtcOffset>720</UtcOffset><Description i:nil="true"/></TenantLocationInfo>',
    ],
    [
      'text/xml; charset=UTF-8',
      '<Anything><ID>5</ID><Name><![CDATA[Main & Co]]></Name><Address><City>Nelson</City><Latitude>-41.27</Latitude>' +
        '<IsDefaultBilling>1</IsDefaultBilling></Address><IsDefault>true</IsDefault><UtcOffset>720</UtcOffset></Anything>',
    ],
    [
      'application/x-www-form-urlencoded',
      'ID=5&Name=Main+%26+Co&Address.City=Nelson&Address[Latitude]=-41.27&Address.IsDefaultBilling=true&IsDefault=true&UtcOffset=720',
    ],
  ])('%s reaches the handler as the same validated body, tenancy filled from the token', async (contentType, body) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent(body, contentType));

    expect({ response, body: seen[0]?.body }).toEqual({ response: ok, body: expectedBody });
  });

  it('decodes a base64-encoded body', async () => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(
      saveEvent(Buffer.from(JSON.stringify({ Name: 'Café' }), 'utf8').toString('base64'), 'application/json', { isBase64Encoded: true }),
    );

    expect({ response, body: seen[0]?.body }).toEqual({ response: ok, body: { Name: 'Café', ...tenancy } });
  });

  it('hands the handler the principal, the path, the request id and the raw body', async () => {
    const { call, seen } = operationWith('tenantLocationGetDefaultAddress', () => ({ City: 'Nelson' }));

    await call(apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: '12' }, query: { addressType: 'billing' } }));

    expect(seen).toEqual([
      {
        body: undefined,
        path: { id: 12 },
        query: { addressType: 'billing' },
        principal,
        requestId,
        headers: expect.any(Object),
        rawBody: '',
        context: expect.objectContaining({ functionName: 'business-platform-TenantLocationSave' }),
      },
    ]);
  });

  it('gives a Search without a body an empty filter that carries the tenancy', async () => {
    const { call, seen } = operationWith('tenantLocationSearch', () => ({ Rows: [] }));

    const response = await call(apiEvent({ method: 'PUT', resource: '/TenantLocation/Search' }));

    expect({ status: response.statusCode, body: seen[0]?.body }).toEqual({ status: 200, body: tenancy });
  });

  it('reads a blank body as no body', async () => {
    const { call, seen } = operationWith('tenantLocationSearch', () => ({ Rows: [] }));

    const response = await call(apiEvent({ method: 'PUT', resource: '/TenantLocation/Search', body: ' \n ', headers: { 'Content-Type': 'text/plain' } }));

    expect({ status: response.statusCode, body: seen[0]?.body }).toEqual({ status: 200, body: tenancy });
  });
});

describe('operation stack: media types of request bodies', () => {
  const unsupported = {
    statusCode: 415,
    headers: problemHeaders('json', {
      'Accept-Post': 'application/json, text/json, application/xml, text/xml, application/x-www-form-urlencoded',
    }),
    body: {
      type: 'about:blank',
      title: 'Unsupported Media Type',
      status: 415,
      detail: 'Send the body as one of: application/json, text/json, application/xml, text/xml, application/x-www-form-urlencoded.',
      instance: requestId,
      IsSuccess: false,
      Messages: ['Send the body as one of: application/json, text/json, application/xml, text/xml, application/x-www-form-urlencoded.'],
      ErrorCode: 415,
    },
  };

  it.each([
    ['text/plain', 'text/plain'],
    ['JSON in latin1', 'application/json; charset=latin1'],
    ['XML in ISO-8859-1', 'application/xml; charset=ISO-8859-1'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['garbage', 'not a media type'],
    ['no Content-Type at all', undefined],
  ])('answers 415 for %s, before the handler runs', async (_case, contentType) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent('{"Name":"Main"}', contentType));

    expect({ response, handled: seen.length }).toEqual({ response: unsupported, handled: 0 });
  });

  // Content-Type is a singleton field: two lines are refused (400, header-lines.ts) whether they agree or not, never
  // read as whichever came last. (Before issue 14, disagreeing lines were a 415 and agreeing ones one type.)
  it('answers 400 naming Content-Type for two Content-Type lines, whichever comes last and whether or not they agree', async () => {
    const { call, seen } = operationWith('tenantLocationSave');
    const event = saveEvent('{"Name":"Main"}', 'application/json');
    const withLines = (lines: string[]) => ({ ...event, multiValueHeaders: { ...event.multiValueHeaders, 'Content-Type': lines } });
    const detail = 'The Content-Type header appears on more than one line (header names are case-insensitive); send it once.';
    const refused = {
      statusCode: 400,
      headers: problemHeaders(),
      body: { type: 'about:blank', title: 'Bad Request', status: 400, detail, instance: requestId, ...problemOutcome(400, detail) },
    };

    expect(await call(withLines(['application/xml', 'application/json']))).toEqual(refused);
    expect(await call(withLines(['application/json', 'application/json; charset=latin1']))).toEqual(refused);
    expect(await call(withLines(['application/json', 'Application/JSON']))).toEqual(refused);
    expect(seen.length).toBe(0);
  });
});

describe('operation stack: content codings of request bodies', () => {
  const gzipped = (text: string) => zlib.gzipSync(Buffer.from(text, 'utf8')).toString('base64');
  const refused = (coding: string) => {
    const detail = `The body is encoded with ${coding}, which this API does not decode; send it without a content coding.`;
    return {
      statusCode: 415,
      headers: problemHeaders('json', { 'Accept-Encoding': 'identity' }),
      body: {
        type: 'about:blank',
        title: 'Unsupported Media Type',
        status: 415,
        detail,
        instance: requestId,
        ...problemOutcome(415, detail),
      },
    };
  };

  it.each([
    ['gzip-labelled JSON that is not gzip', 'gzip', '{"Name":"Main"}', false, '"gzip"'],
    ['a real gzip body', 'gzip', gzipped('{"Name":"Main"}'), true, '"gzip"'],
    ['a coding named in upper case', 'GZIP', '{"Name":"Main"}', false, '"gzip"'],
    ['br', 'br', '{"Name":"Main"}', false, '"br"'],
    ['deflate after identity', 'identity, deflate', '{"Name":"Main"}', false, '"deflate"'],
    ['an unknown coding', 'x-made-up', '{"Name":"Main"}', false, '"x-made-up"'],
    ['a coding that is not a token', 'gz<ip>', '{"Name":"Main"}', false, 'a content coding'],
  ])('answers 415 for %s, before the handler runs', async (_case, coding, body, isBase64Encoded, named) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent(body, 'application/json', { isBase64Encoded, headers: { 'Content-Encoding': coding } }));

    expect({ response, handled: seen.length }).toEqual({ response: refused(named), handled: 0 });
  });

  it('reads every Content-Encoding line, not only the last: two lines are refused (400 naming the header)', async () => {
    const { call, seen } = operationWith('tenantLocationSave');
    const event = saveEvent('{"Name":"Main"}', 'application/json', { headers: { 'Content-Encoding': 'identity' } });

    const response = await call({ ...event, multiValueHeaders: { ...event.multiValueHeaders, 'Content-Encoding': ['gzip', 'identity'] } });

    const detail = 'The Content-Encoding header appears on more than one line (header names are case-insensitive); send it once.';
    expect({ response, handled: seen.length }).toEqual({
      response: {
        statusCode: 400,
        headers: problemHeaders(),
        body: { type: 'about:blank', title: 'Bad Request', status: 400, detail, instance: requestId, ...problemOutcome(400, detail) },
      },
      handled: 0,
    });
  });

  it('answers the webhook the same way', async () => {
    const { call, seen } = operationWith('providerWebhook');

    const response = await call(
      apiEvent({
        method: 'POST',
        resource: '/Platform/DocumentAnalyser/Provider/Webhook',
        body: '{"type":"document.uploaded"}',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        authorizer: null,
      }),
    );

    expect({ status: response.statusCode, encoding: response.headers['Accept-Encoding'], handled: seen.length }).toEqual({
      status: 415,
      encoding: 'identity',
      handled: 0,
    });
  });

  it.each([
    ['identity', 'identity'],
    ['an empty value', ''],
  ])('accepts a body whose coding is %s', async (_case, coding) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent('{"Name":"Main"}', 'application/json', { headers: { 'Content-Encoding': coding } }));

    expect({ response, body: seen[0]?.body }).toEqual({ response: ok, body: { Name: 'Main', ...tenancy } });
  });

  it('ignores a coding label on a request without a body', async () => {
    const { call } = operationWith('tenantLocationGetDefaultAddress', () => ({ City: 'Nelson' }));

    const response = await call(
      apiEvent({
        resource: '/TenantLocation/GetDefaultAddress/{id}',
        pathParameters: { id: '12' },
        query: { addressType: 'billing' },
        headers: { 'Content-Encoding': 'gzip' },
      }),
    );

    expect(response.statusCode).toBe(200);
  });
});

describe('operation stack: malformed bodies', () => {
  it('refuses a form list member of any name but an index, rather than reading it as a one-item list', async () => {
    const { call, seen } = operationWith('paymentPost', () => ({}));
    const form = (body: string) =>
      apiEvent({ method: 'POST', resource: '/Payment', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });

    const byName = await call(form('Object[Amount]=1&Object[RefBusTrans][abc][ID]=1'));
    const byNumberLike = await call(form('Object[Amount]=1&Object[RefBusTrans][1e3][ID]=1'));

    expect({ byName, byNumberLike, handled: seen.length }).toEqual({
      byName: {
        statusCode: 400,
        headers: problemHeaders('json'),
        body: validationProblem([{ pointer: '/Object/RefBusTrans/0/abc', detail: expect.any(String) }]),
      },
      byNumberLike: {
        statusCode: 400,
        headers: problemHeaders('json'),
        body: malformedProblem('The form field "Object[RefBusTrans][1e3][ID]" has a list index that is not a whole number from 0 to 499 in plain digits.'),
      },
      handled: 0,
    });
  });

  it.each([
    ['JSON', 'application/json', '{"Name": "Main",}', 'The body is not valid JSON.'],
    ['truncated JSON', 'application/json', '{"Name": "Ma', 'The body is not valid JSON.'],
    ['XML', 'application/xml', '<TenantLocationInfo><Name>Main</TenantLocationInfo>', 'The XML body is not well-formed (line 1, column 31).'],
    ['XML with a DOCTYPE', 'text/xml', '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r><Name>&x;</Name></r>', 'XML with a DOCTYPE or markup declarations is not accepted.'],
    ['a form', 'application/x-www-form-urlencoded', 'Name=100%', 'The form body has an invalid percent-encoding.'],
    ['a form field name', 'application/x-www-form-urlencoded', 'Address..City=x', 'The form field name "Address..City" is not valid.'],
  ])('answers 400 for malformed %s', async (_case, contentType, body, detail) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent(body, contentType));

    expect({ response, handled: seen.length }).toEqual({
      response: { statusCode: 400, headers: problemHeaders('json'), body: malformedProblem(detail) },
      handled: 0,
    });
  });

  const notUtf8 = 'The body is not valid UTF-8: send its text encoded in UTF-8.';
  const base64Of = (...parts: (string | Buffer)[]) =>
    Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part))).toString('base64');

  it.each([
    ['JSON holding FF FE', 'application/json', base64Of('{"Name":"bad', Buffer.from([0xff, 0xfe]), '"}')],
    ['JSON in Latin-1 (café)', 'application/json; charset=utf-8', base64Of('{"Name":"caf', Buffer.from([0xe9]), '"}')],
    ['XML holding FF FE', 'application/xml', base64Of('<TenantLocationInfo><Name>bad', Buffer.from([0xff, 0xfe]), '</Name></TenantLocationInfo>')],
    ['a form holding FF FE', 'application/x-www-form-urlencoded', base64Of('Name=bad', Buffer.from([0xff, 0xfe]))],
    ['an encoded surrogate (ED A0 80)', 'text/json', base64Of('{"Name":"', Buffer.from([0xed, 0xa0, 0x80]), '"}')],
    ['an overlong slash (C0 AF)', 'application/json', base64Of('{"Name":"', Buffer.from([0xc0, 0xaf]), '"}')],
    ['a sequence cut at the end', 'application/x-www-form-urlencoded', base64Of('Name=caf', Buffer.from([0xc3]))],
  ])('answers 400 for a base64 body that is not UTF-8: %s', async (_case, contentType, body) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent(body, contentType, { isBase64Encoded: true }));

    expect({ response, handled: seen.length }).toEqual({
      response: { statusCode: 400, headers: problemHeaders('json'), body: malformedProblem(notUtf8) },
      handled: 0,
    });
  });

  it('answers 415, not 400, for a body that is not UTF-8 and says it is in another charset', async () => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent(base64Of('{"Name":"caf', Buffer.from([0xe9]), '"}'), 'application/json; charset=iso-8859-1', { isBase64Encoded: true }));

    expect({ status: response.statusCode, handled: seen.length }).toEqual({ status: 415, handled: 0 });
  });

  it('reads a text body (isBase64Encoded false) as it is, U+FFFD a character like any other', async () => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent('{"Name":"odd \uFFFD"}', 'application/json'));

    expect({ response, body: seen[0]?.body }).toEqual({ response: ok, body: { Name: 'odd \uFFFD', ...tenancy } });
  });

  it.each([
    ['an array', '[{"Name":"Main"}]'],
    ['null', 'null'],
    ['a string', '"Main"'],
    ['a number', '42'],
  ])('answers 400 when the JSON body is %s rather than an object', async (_case, body) => {
    const { call } = operationWith('tenantLocationSave');

    const response = await call(saveEvent(body, 'application/json'));

    expect(response).toEqual({
      statusCode: 400,
      headers: problemHeaders('json'),
      body: validationProblem([{ pointer: '', detail: 'the body must be an object' }]),
    });
  });

  it('answers 400 when a required body is missing', async () => {
    const { call } = operationWith('tenantLocationSave');

    const response = await call(apiEvent({ method: 'POST', resource: '/TenantLocation/Save', headers: { 'Content-Type': 'application/json' } }));

    expect(response).toEqual({
      statusCode: 400,
      headers: problemHeaders('json'),
      body: validationProblem([{ pointer: '', detail: 'a request body is required' }], 'A request body is required.'),
    });
  });
});

describe('operation stack: validation of bodies', () => {
  it('lists every invalid field with a JSON pointer, including unknown keys (names are case-sensitive)', async () => {
    const { call, seen } = operationWith('tenantLocationSave');
    const body = { name: 'lower-case', Name: 5, IsDefault: 'yes', ID: '5', Address: { Latitude: 200, City: ['x'], city: 'y' }, UtcOffset: 1.5 };

    const response = await call(saveEvent(JSON.stringify(body), 'application/json'));

    expect({ response, handled: seen.length }).toEqual({
      response: {
        statusCode: 400,
        headers: problemHeaders('json'),
        body: validationProblem([
          { pointer: '/ID', detail: 'must be a whole number' },
          { pointer: '/Name', detail: 'must be text' },
          { pointer: '/Address/Latitude', detail: 'must be <= 90' },
          { pointer: '/Address/City', detail: 'must be text' },
          { pointer: '/Address/city', detail: 'is not a known field (names are case-sensitive)' },
          { pointer: '/UtcOffset', detail: 'must be a whole number' },
          { pointer: '/IsDefault', detail: 'must be true or false' },
          { pointer: '/name', detail: 'is not a known field (names are case-sensitive)' },
        ]),
      },
      handled: 0,
    });
  });

  it('names the same invalid fields whatever the format', async () => {
    const { call } = operationWith('tenantLocationSave');

    const responses = await Promise.all([
      call(saveEvent('<R><ID>five</ID><IsDefault>yes</IsDefault><name>x</name></R>', 'application/xml')),
      call(saveEvent('ID=five&IsDefault=yes&name=x', 'application/x-www-form-urlencoded')),
    ]);

    const expected = {
      statusCode: 400,
      headers: problemHeaders('json'),
      body: validationProblem([
        { pointer: '/ID', detail: 'must be a whole number' },
        { pointer: '/IsDefault', detail: 'must be true or false' },
        { pointer: '/name', detail: 'is not a known field (names are case-sensitive)' },
      ]),
    };
    expect(responses).toEqual([expected, expected]);
  });

  it('refuses a reserved key in a JSON body', async () => {
    const { call } = operationWith('tenantLocationSave');

    const response = await call(saveEvent('{"Name":"Main","__proto__":{"polluted":true}}', 'application/json'));

    expect({ response, polluted: ({} as Record<string, unknown>).polluted }).toEqual({
      response: {
        statusCode: 400,
        headers: problemHeaders('json'),
        body: validationProblem([{ pointer: '/__proto__', detail: 'this key is not allowed' }], 'The body uses a reserved key.'),
      },
      polluted: undefined,
    });
  });
});

describe('operation stack: body size', () => {
  const tooLarge = {
    statusCode: 413,
    headers: problemHeaders('json'),
    body: {
      type: 'about:blank',
      title: 'Content Too Large',
      status: 413,
      detail: 'The request body exceeds 1048576 bytes.',
      instance: requestId,
      IsSuccess: false,
      Messages: ['The request body exceeds 1048576 bytes.'],
      ErrorCode: 413,
    },
  };
  /** A JSON body of exactly `bytes` UTF-8 bytes (padded with whitespace, which JSON allows). */
  const jsonOfSize = (bytes: number) => {
    const json = '{"Name":"Main"}';
    return json + ' '.repeat(bytes - json.length);
  };

  it('accepts a body of exactly 1 MiB, plain or base64-encoded', async () => {
    const { call, seen } = operationWith('tenantLocationSave');
    const body = jsonOfSize(mebibyte);

    const responses = await Promise.all([
      call(saveEvent(body, 'application/json')),
      call(saveEvent(Buffer.from(body).toString('base64'), 'application/json', { isBase64Encoded: true })),
    ]);

    expect({ responses, bodies: seen.map((request) => request.body) }).toEqual({
      responses: [ok, ok],
      bodies: [
        { Name: 'Main', ...tenancy },
        { Name: 'Main', ...tenancy },
      ],
    });
  });

  it.each([
    ['plain', jsonOfSize(mebibyte + 1), false],
    ['base64-encoded', Buffer.from(jsonOfSize(mebibyte + 1)).toString('base64'), true],
    ['much larger, base64-encoded', Buffer.alloc(3 * mebibyte, 0x20).toString('base64'), true],
    ['1 MiB of characters that are 2 bytes each', `{"Name":"${'é'.repeat(mebibyte / 2)}"}`, false],
  ])('answers 413 for a body over 1 MiB: %s', async (_case, body, isBase64Encoded) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveEvent(body, 'application/json', { isBase64Encoded }));

    expect({ response, handled: seen.length }).toEqual({ response: tooLarge, handled: 0 });
  });
});

describe('operation stack: path and query parameters', () => {
  const idProblem = {
    statusCode: 400,
    headers: problemHeaders('json'),
    body: validationProblem([{ parameter: 'id', detail: 'must be a positive 32-bit integer' }]),
  };

  it.each(['0', '-1', '2147483648', '99999999999', 'abc', '1.5', '0x10', '1e3', ' 1', '1 ', '+1', '01', '', '١'])(
    'refuses id %j with errors[].parameter "id"',
    async (id) => {
      const { call, seen } = operationWith('tenantLocationGet');

      const response = await call(apiEvent({ pathParameters: { id } }));

      expect({ response, handled: seen.length }).toEqual({ response: idProblem, handled: 0 });
    },
  );

  it.each([
    ['1', 1],
    ['2147483647', 2147483647],
  ])('accepts id %s', async (id, expected) => {
    const { call, seen } = operationWith('tenantLocationGet');

    const response = await call(apiEvent({ pathParameters: { id } }));

    expect({ response, path: seen[0]?.path }).toEqual({ response: ok, path: { id: expected } });
  });

  it('refuses a missing addressType with errors[].parameter "addressType"', async () => {
    const { call } = operationWith('tenantLocationGetDefaultAddress');

    const response = await call(apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: '5' } }));

    expect(response).toEqual({
      statusCode: 400,
      headers: problemHeaders('json'),
      body: validationProblem([{ parameter: 'addressType', detail: 'is required' }]),
    });
  });

  // Both queries are strict. A parameter named `__proto__` was assigned as `values[name]`, which set the prototype,
  // so the strict query never saw it and the request was served.
  it.each([
    ['tenantLocationGetDefaultAddress', '/TenantLocation/GetDefaultAddress/{id}', '{"addressType":"billing","__proto__":"x"}', '__proto__'],
    ['tenantLocationGetDefaultAddress', '/TenantLocation/GetDefaultAddress/{id}', '{"addressType":"billing","AddressType":"postal"}', 'AddressType'],
    ['paymentGetByID', '/Payment/{id}', '{"__proto__":"x"}', '__proto__'],
    ['paymentGetByID', '/Payment/{id}', '{"MaxRefunds":"5","constructor":"x"}', 'constructor'],
  ])('%s refuses an undeclared query parameter (%s) naming it, before the handler', async (operationId, resource, query, name) => {
    const { call, seen } = operationWith(operationId as never);
    const response = await call(apiEvent({ resource, pathParameters: { id: '5' }, query: JSON.parse(query) as Record<string, string> }));
    expect({ response, handled: seen.length }).toEqual({
      response: { statusCode: 400, headers: problemHeaders('json'), body: validationProblem([{ parameter: name, detail: 'is not a known field (names are case-sensitive)' }]) },
      handled: 0,
    });
  });

  // An operation that reads no query refuses every parameter, as a strict one refuses those it does not declare: a
  // parameter sent by mistake was ignored (`/TenantLocation/Get/5?addressType=Billing` answered the location).
  it.each([
    ['tenantLocationGet', 'GET', '/TenantLocation/Get/{id}', '{"addressType":"Billing"}', ['addressType']],
    ['tenantLocationGetAll', 'GET', '/TenantLocation/GetAll', '{"__proto__":"x","x":"1"}', ['__proto__', 'x']],
    ['tenantLocationSave', 'POST', '/TenantLocation/Save', '{"constructor":"x"}', ['constructor']],
    ['scheduledTaskGet', 'GET', '/ScheduledTasks/{id}', '{"x":""}', ['x']],
  ])('%s reads no query: refuses any parameter (%s %s ?%s) naming each, before the handler', async (operationId, method, resource, query, names) => {
    const { call, seen } = operationWith(operationId as never);
    const response = await call(apiEvent({ method, resource, pathParameters: { id: '5' }, query: JSON.parse(query) as Record<string, string>, body: method === 'POST' ? '{"Name":"x"}' : null }));
    expect({ response, handled: seen.length }).toEqual({
      response: { statusCode: 400, headers: problemHeaders('json'), body: validationProblem(names.map((name) => ({ parameter: name, detail: 'is not a known field (names are case-sensitive)' }))) },
      handled: 0,
    });
  });

  it.each([
    ['the same value', ['billing', 'billing']],
    ['two values', ['billing', 'postal']],
  ])('refuses a query parameter sent twice (%s) with errors[].parameter naming it, before the handler', async (_case, values) => {
    const { call, seen } = operationWith('tenantLocationGetDefaultAddress');
    const event = apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: '5' }, query: { addressType: values[1] as string } });

    const response = await call({ ...event, multiValueQueryStringParameters: { addressType: values } });

    expect({ response, handled: seen.length }).toEqual({
      response: { statusCode: 400, headers: problemHeaders('json'), body: validationProblem([{ parameter: 'addressType', detail: 'appears more than once: send it once' }]) },
      handled: 0,
    });
  });
});
