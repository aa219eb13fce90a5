// Black-box tests of the operation stack (shared/http/operation.ts): content negotiation, response serialisation,
// the headers of every response and the problems that errors become. Each test calls a wrapped handler with an API
// Gateway event and compares the whole response.
import { describe, expect, it } from '@jest/globals';
import { NotFound } from '#shared/errors';
import { serializeXml } from '#shared/http/codecs/xml';
import { respond } from '#shared/http/operation';
import { pagedActionResults } from '#shared/schemas/envelopes';
import {
  apiEvent,
  jsonEvent,
  operationWith,
  problemHeaders,
  requestId,
  securityHeaders,
  storedLocation,
  successHeaders,
  validationProblem,
} from './support';

const getEvent = (headers: Record<string, string> = {}) => apiEvent({ pathParameters: { id: '5' }, headers });

const storedLocationXml =
  '<?xml version="1.0" encoding="utf-8"?><TenantLocation><ID>5</ID><TenantLocationID>5</TenantLocationID>' +
  '<Name>Main &amp; Co</Name><Address><City>Nelson</City><IsDefaultBilling>true</IsDefaultBilling></Address>' +
  '<IsActive>true</IsActive><IsDefault>false</IsDefault><TenantID>7</TenantID><WebsiteID>1</WebsiteID><UserID>3</UserID>' +
  '<Version>2</Version><CreatedDateTime_utc>2026-01-02T03:04:05.000Z</CreatedDateTime_utc>' +
  '<ModifiedDateTime_utc>2026-01-03T03:04:05.000Z</ModifiedDateTime_utc><CreatedByUserID>3</CreatedByUserID>' +
  '<ModifiedByUserID>3</ModifiedByUserID></TenantLocation>';

const internalProblem = {
  type: 'about:blank',
  title: 'Internal Server Error',
  status: 500,
  detail: 'The request could not be completed.',
  instance: requestId,
  IsSuccess: false,
  Messages: ['The request could not be completed.'],
  ErrorCode: 500,
};

describe('operation stack: content negotiation of successes', () => {
  it('answers JSON with the security headers and the request id when there is no Accept header', async () => {
    const { call, seen } = operationWith('tenantLocationGet');

    const response = await call(getEvent());

    expect(response).toEqual({ statusCode: 200, headers: successHeaders(), body: storedLocation });
    expect(seen).toHaveLength(1);
  });

  it('answers XML rooted at the success schema name for Accept: application/xml', async () => {
    const { call } = operationWith('tenantLocationGet');

    const response = await call(getEvent({ Accept: 'application/xml' }));

    expect(response).toEqual({ statusCode: 200, headers: successHeaders('application/xml'), body: storedLocationXml });
  });

  it.each([
    ['text/xml', 'text/xml'],
    ['text/json', 'text/json'],
    ['*/*', 'application/json'],
    ['text/*', 'text/json'],
    ['application/xml;q=0.5, application/json;q=0.9', 'application/json'],
    ['application/json;q=0.1, text/xml', 'text/xml'],
    ['image/png, application/xml;q=0.2', 'application/xml'],
    ['application/xml, application/json', 'application/json'],
  ])('for Accept: %s answers %s', async (accept, type) => {
    const { call } = operationWith('tenantLocationGet');

    const response = await call(getEvent({ Accept: accept }));

    expect(response).toEqual({
      statusCode: 200,
      headers: successHeaders(type),
      body: type.endsWith('xml') ? storedLocationXml : storedLocation,
    });
  });

  it('reads request headers whatever their case', async () => {
    const { call } = operationWith('tenantLocationGet');

    const response = await call(getEvent({ ACCEPT: 'text/xml' }));

    expect(response).toEqual({ statusCode: 200, headers: successHeaders('text/xml'), body: storedLocationXml });
  });

  it('answers 406 problem+json for Accept: image/png, before the handler runs', async () => {
    const { call, seen } = operationWith('tenantLocationGet');

    const response = await call(getEvent({ Accept: 'image/png' }));

    expect({ response, handled: seen.length }).toEqual({
      response: {
        statusCode: 406,
        headers: problemHeaders('json'),
        body: {
          type: 'about:blank',
          title: 'Not Acceptable',
          status: 406,
          detail: 'This operation can answer with: application/json, text/json, application/xml, text/xml.',
          instance: requestId,
          IsSuccess: false,
          Messages: ['This operation can answer with: application/json, text/json, application/xml, text/xml.'],
          ErrorCode: 406,
        },
      },
      handled: 0,
    });
  });

  it('writes a list as ArrayOf<Item> in XML', async () => {
    const { call } = operationWith('tenantLocationGetAll', () => [{ ID: 1, Name: 'A' }, { ID: 2, Name: 'B' }]);

    const response = await call(apiEvent({ resource: '/TenantLocation/GetAll', headers: { Accept: 'application/xml' } }));

    expect(response).toEqual({
      statusCode: 200,
      headers: successHeaders('application/xml'),
      body:
        '<?xml version="1.0" encoding="utf-8"?><ArrayOfTenantLocation><TenantLocation><ID>1</ID><Name>A</Name></TenantLocation>' +
        '<TenantLocation><ID>2</ID><Name>B</Name></TenantLocation></ArrayOfTenantLocation>',
    });
  });

  it.each([
    ['JSON', 800, 'application/json', 'application/problem+json'],
    // `&` is written `&amp;` in XML: the same rows take five times the bytes.
    ['XML', 160, 'application/xml', 'application/problem+xml'],
  ])('answers 422 answer-too-large, not a 502, when the answer would pass the 6 MB a function may answer (%s)', async (_format, count, accept, problemType) => {
    const rows = Array.from({ length: count }, (_, index) => ({ ID: index + 1, Name: `L${index}`, Description: '&'.repeat(8_000) }));
    const { call } = operationWith('tenantLocationGetAll', () => rows);

    const response = await call(apiEvent({ resource: '/TenantLocation/GetAll', headers: { Accept: accept } }));

    expect({ status: response.statusCode, type: response.headers?.['Content-Type'] }).toEqual({ status: 422, type: `${problemType}; charset=utf-8` });
    const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    expect(body).toContain('answer-too-large');
    expect(Buffer.byteLength(body)).toBeLessThan(10_000);
  });

  it('answers rows up to the limit as they are', async () => {
    const rows = Array.from({ length: 40 }, (_, index) => ({ ID: index + 1, Name: `L${index}`, Description: '&'.repeat(8_000) }));
    const { call } = operationWith('tenantLocationGetAll', () => rows);

    expect((await call(apiEvent({ resource: '/TenantLocation/GetAll', headers: { Accept: 'application/xml' } }))).statusCode).toBe(200);
  });

  it('answers 406 rather than change a record holding characters XML 1.0 cannot carry; JSON carries them exactly', async () => {
    const { call } = operationWith('tenantLocationGet', () => ({ ...storedLocation, Description: 'a\u0001b' }));

    const asXml = await call(getEvent({ Accept: 'application/xml' }));
    expect({ status: asXml.statusCode, type: asXml.headers?.['Content-Type'] }).toEqual({ status: 406, type: 'application/problem+xml; charset=utf-8' });
    expect(String(asXml.body)).not.toContain('\ufffd');
    const asJson = await call(getEvent());
    expect({ status: asJson.statusCode, description: (asJson.body as { Description?: string }).Description }).toEqual({ status: 200, description: 'a\u0001b' });
  });

  it('answers 412 for If-Match naming an entity tag (the API serves none) before the handler runs; If-Match: * is true', async () => {
    const { call, seen } = operationWith('tenantLocationGet');

    const refused = await call(getEvent({ 'If-Match': '"bogus"' }));
    expect({ status: refused.statusCode, type: refused.headers?.['Content-Type'], seen: seen.length }).toEqual({ status: 412, type: 'application/problem+json; charset=utf-8', seen: 0 });
    expect((await call(getEvent({ 'if-match': ' * ' }))).statusCode).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('writes a search page (PagedActionResults) in XML with repeated Value rows', async () => {
    const page = pagedActionResults([{ ID: 1, RowNumber: 1 }, { ID: 2, RowNumber: 2 }], { MoreToGet: false, LastRowNumber: 2, TotalRecordCount: 2 });
    const { call } = operationWith('tenantLocationSearch', () => page);

    const response = await call(apiEvent({ method: 'PUT', resource: '/TenantLocation/Search', headers: { Accept: 'text/xml' } }));

    expect(response).toEqual({
      statusCode: 200,
      headers: successHeaders('text/xml'),
      body:
        '<?xml version="1.0" encoding="utf-8"?><PagedActionResults_TenantLocationInfo_><MoreToGet>false</MoreToGet>' +
        '<LastRowNumber>2</LastRowNumber><Count>2</Count><TotalRecordCount>2</TotalRecordCount>' +
        '<Value><ID>1</ID><RowNumber>1</RowNumber></Value><Value><ID>2</ID><RowNumber>2</RowNumber></Value>' +
        '<IsSuccess>true</IsSuccess></PagedActionResults_TenantLocationInfo_>',
    });
  });

  it('writes the address of GetDefaultAddress under <Address>', async () => {
    const { call } = operationWith('tenantLocationGetDefaultAddress', () => ({ City: 'Nelson', AddressType: 1 }));

    const response = await call(
      apiEvent({
        resource: '/TenantLocation/GetDefaultAddress/{id}',
        pathParameters: { id: '5' },
        query: { addressType: 'Billing' },
        headers: { Accept: 'application/xml' },
      }),
    );

    expect(response).toEqual({
      statusCode: 200,
      headers: successHeaders('application/xml'),
      body: '<?xml version="1.0" encoding="utf-8"?><Address><City>Nelson</City><AddressType>1</AddressType></Address>',
    });
  });
});

describe('operation stack: what the handler returns', () => {
  it('keeps the status and headers of respond(201, body, { Location })', async () => {
    const { call } = operationWith('tenantLocationSave', () =>
      respond(201, storedLocation, { Location: '/api/TenantLocation/Get/5' }),
    );

    const response = await call(jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'Main & Co' } }));

    expect(response).toEqual({
      statusCode: 201,
      headers: { Location: '/api/TenantLocation/Get/5', ...successHeaders() },
      body: storedLocation,
    });
  });

  it('keeps respond(201, ...) in XML too', async () => {
    const { call } = operationWith('tenantLocationSave', () => respond(201, storedLocation, { Location: '/api/TenantLocation/Get/5' }));

    const response = await call(
      jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'Main & Co' }, headers: { Accept: 'application/xml' } }),
    );

    expect(response).toEqual({
      statusCode: 201,
      headers: { Location: '/api/TenantLocation/Get/5', ...successHeaders('application/xml') },
      body: storedLocationXml,
    });
  });

  it('sends the manifest success status for a plain body', async () => {
    const { call } = operationWith('tenantLocationSave', () => storedLocation);

    const response = await call(jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { ID: 5, Name: 'Main & Co' } }));

    expect(response).toEqual({ statusCode: 200, headers: successHeaders(), body: storedLocation });
  });

  it('answers 204 without a body or Content-Type when the handler returns nothing', async () => {
    const { call } = operationWith('tenantLocationGet', () => undefined);

    const response = await call(getEvent());

    expect(response).toEqual({
      statusCode: 204,
      headers: { Vary: 'Accept', ...securityHeaders, 'X-Request-Id': requestId },
      body: '',
    });
  });
});

describe('operation stack: errors become problems', () => {
  it('turns a plain Error into a 500 that reveals nothing of it', async () => {
    const { call } = operationWith('tenantLocationGet', () => {
      throw new Error('connect to postgres://admin:hunter2@db.internal failed');
    });

    const response = await call(getEvent());

    expect(response).toEqual({ statusCode: 500, headers: problemHeaders('json'), body: internalProblem });
    expect(JSON.stringify(response)).not.toMatch(/hunter2|postgres|db\.internal|at .*\.ts/);
  });

  it('turns a plain Error into a problem+xml 500 for an XML client', async () => {
    const { call } = operationWith('tenantLocationGet', () => {
      throw new TypeError("Cannot read properties of undefined (reading 'secret')");
    });

    const response = await call(getEvent({ Accept: 'application/xml' }));

    expect(response).toEqual({
      statusCode: 500,
      headers: problemHeaders('xml'),
      body:
        '<?xml version="1.0" encoding="utf-8"?><problem xmlns="urn:ietf:rfc:7807"><type>about:blank</type>' +
        '<title>Internal Server Error</title><status>500</status><detail>The request could not be completed.</detail>' +
        `<instance>${requestId}</instance><IsSuccess>false</IsSuccess>` +
        '<Messages><i>The request could not be completed.</i></Messages><ErrorCode>500</ErrorCode></problem>',
    });
  });

  it('passes a domain error through with its own status and detail', async () => {
    const { call } = operationWith('tenantLocationGet', () => {
      throw new NotFound('Tenant location 5 does not exist.');
    });

    const response = await call(getEvent());

    expect(response).toEqual({
      statusCode: 404,
      headers: problemHeaders('json'),
      body: {
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: 'Tenant location 5 does not exist.',
        instance: requestId,
        IsSuccess: false,
        Messages: ['Tenant location 5 does not exist.'],
        ErrorCode: 404,
      },
    });
  });

  it('answers 503 with Retry-After when DynamoDB throttles', async () => {
    const { call } = operationWith('tenantLocationGet', () => {
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $fault: 'client', $metadata: {} });
    });

    const response = await call(getEvent());

    expect(response).toEqual({
      statusCode: 503,
      headers: problemHeaders('json', { 'Retry-After': '2' }),
      body: {
        type: 'about:blank',
        title: 'Service Unavailable',
        status: 503,
        detail: 'A service this operation depends on is unavailable; retry shortly.',
        instance: requestId,
        IsSuccess: false,
        Messages: ['A service this operation depends on is unavailable; retry shortly.'],
        ErrorCode: 503,
      },
    });
  });

  it.each([
    ['application/xml', 'xml'],
    ['text/xml', 'xml'],
    ['application/json;q=0.5, application/xml', 'xml'],
    ['text/json, application/xml;q=0.5', 'json'],
    ['*/*', 'json'],
    ['image/png', 'json'],
  ] as const)('for Accept: %s answers a refusal as problem+%s', async (accept, format) => {
    const { call } = operationWith('tenantLocationGet');

    const response = await call(apiEvent({ pathParameters: { id: 'abc' }, headers: { Accept: accept } }));

    const problem = validationProblem([{ parameter: 'id', detail: 'must be a positive 32-bit integer' }]);
    expect(response).toEqual({
      statusCode: accept === 'image/png' ? 406 : 400,
      headers: problemHeaders(format),
      body:
        accept === 'image/png'
          ? expect.objectContaining({ status: 406 })
          : format === 'xml'
            ? serializeXml({ name: 'problem', attributes: { xmlns: 'urn:ietf:rfc:7807' } }, { ...problem, errors: { i: problem.errors }, Messages: { i: problem.Messages } })
            : problem,
    });
  });

  it('uses the Lambda request id when the gateway gave none', async () => {
    const { call } = operationWith('tenantLocationGet');
    const event = getEvent();
    const { requestId: _dropped, ...requestContext } = event.requestContext;

    const response = await call({ ...event, requestContext: requestContext as typeof event.requestContext });

    expect(response.headers['X-Request-Id']).toBe('11111111-2222-4333-8444-555555555555');
  });
});
