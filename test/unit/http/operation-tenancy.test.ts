// Black-box tests of the operation stack (shared/http/operation.ts): authentication from the authorizer context
// and the tenancy of request bodies, which is never trusted from the client.
import { describe, expect, it } from '@jest/globals';
import { tokenClockToleranceSeconds } from '#shared/auth/principal';
import { renderGatewayResponse, sharedGatewayResponseSet } from '#infra/local/gateway-responses';
import {
  apiEvent,
  authorizerContext,
  jsonEvent,
  operationWith,
  principal,
  problemHeaders,
  problemType,
  requestId,
  securityHeaders,
  storedLocation,
  successHeaders,
} from './support';

const tenancy = { TenantID: 7, WebsiteID: 1, UserID: 3 };
const saveJson = (json: unknown, headers: Record<string, string> = {}) =>
  jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json, headers });
const saveEvent = (body: string, contentType: string) =>
  apiEvent({ method: 'POST', resource: '/TenantLocation/Save', body, headers: { 'Content-Type': contentType } });

const unauthorized = {
  statusCode: 401,
  headers: problemHeaders('json', { 'WWW-Authenticate': 'Bearer realm="api"' }),
  body: {
    type: 'about:blank',
    title: 'Unauthorized',
    status: 401,
    detail: 'A valid bearer token is required.',
    instance: requestId,
    IsSuccess: false,
    Messages: ['A valid bearer token is required.'],
    ErrorCode: 401,
  },
};

const mismatch = (field: string) => ({
  statusCode: 403,
  headers: problemHeaders('json'),
  body: {
    type: problemType('tenancy-mismatch'),
    title: 'Tenancy mismatch',
    status: 403,
    detail: `${field} does not match the caller's token.`,
    instance: requestId,
    errors: [{ pointer: `/${field}`, detail: "differs from the caller's token" }],
    IsSuccess: false,
    Messages: [`${field} does not match the caller's token.`, `/${field}: differs from the caller's token`],
    ErrorCode: 403,
  },
});

describe('operation stack: authentication', () => {
  it.each([
    ['no authorizer context', null],
    ['an empty authorizer context', {}],
    ['a context without userId', { tenantId: '7', websiteId: '1' }],
    ['a tenantId of 0', { tenantId: '0', websiteId: '1', userId: '3' }],
    ['a tenantId that is not a number', { tenantId: 'abc', websiteId: '1', userId: '3' }],
    ['a fractional tenantId', { tenantId: '7.5', websiteId: '1', userId: '3' }],
    ['a tenantId beyond int32', { tenantId: '2147483648', websiteId: '1', userId: '3', exp: '4102444800' }],
    ['a context without exp (an Allow cached before the authorizer passed it on)', { tenantId: '7', websiteId: '1', userId: '3' }],
    ['an exp that is not whole seconds', { tenantId: '7', websiteId: '1', userId: '3', exp: '4102444800.5' }],
    ['an exp that is not a number', { tenantId: '7', websiteId: '1', userId: '3', exp: 'never' }],
  ])('answers 401 for %s, before the handler runs', async (_case, authorizer) => {
    const { call, seen } = operationWith('tenantLocationGet');

    const response = await call(apiEvent({ pathParameters: { id: '5' }, authorizer }));

    expect({ response, handled: seen.length }).toEqual({ response: unauthorized, handled: 0 });
  });

  it('answers 401 before looking at an invalid path or body', async () => {
    const { call } = operationWith('tenantLocationSave');

    const response = await call(apiEvent({ method: 'POST', resource: '/TenantLocation/Save', body: '{not json', headers: { 'Content-Type': 'application/json' }, authorizer: null }));

    expect(response).toEqual(unauthorized);
  });

  it('answers the 401 in XML for an XML client', async () => {
    const { call } = operationWith('tenantLocationGet');

    const response = await call(apiEvent({ pathParameters: { id: '5' }, authorizer: null, headers: { Accept: 'application/xml' } }));

    expect(response).toEqual({
      statusCode: 401,
      headers: problemHeaders('xml', { 'WWW-Authenticate': 'Bearer realm="api"' }),
      body:
        '<?xml version="1.0" encoding="utf-8"?><problem xmlns="urn:ietf:rfc:7807"><type>about:blank</type><title>Unauthorized</title>' +
        `<status>401</status><detail>A valid bearer token is required.</detail><instance>${requestId}</instance>` +
        '<IsSuccess>false</IsSuccess><Messages><i>A valid bearer token is required.</i></Messages><ErrorCode>401</ErrorCode></problem>',
    });
  });

  it('reads the principal from string or number context values, and keeps an organisation id', async () => {
    const { call, seen } = operationWith('tenantLocationGet');

    await call(apiEvent({ pathParameters: { id: '5' }, authorizer: { tenantId: 7, websiteId: '1', userId: 3, organisationId: 'org-1', exp: 4102444800 } }));

    expect(seen[0]?.principal).toEqual({ ...principal, organisationId: 'org-1' });
  });
});

// Issue 21: API Gateway serves the authorizer's Allow from its cache for the result TTL (300 s), whatever the token's
// exp says. The context carries exp, and the stack refuses a token that has expired since, with the gateway's own 401.
describe('operation stack: a token that expired after its Allow was cached', () => {
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const contextExpiring = (exp: number, extra: Record<string, string> = {}) => ({ ...authorizerContext, exp: String(exp), ...extra });

  /** The gateway's UNAUTHORIZED response, as the local gateway renders the shared definition (the CDK stack installs it). */
  const gatewayUnauthorized = () => {
    const { status, headers, body } = renderGatewayResponse(sharedGatewayResponseSet(), 'UNAUTHORIZED', { requestId });
    const { 'Content-Length': _length, ...rest } = headers;
    return { statusCode: status, headers: { ...rest, 'X-Request-Id': requestId }, body: JSON.parse(body) as unknown };
  };

  it.each([
    ['an hour ago', () => nowSeconds() - 3600],
    [`exactly the ${tokenClockToleranceSeconds} s clock tolerance ago`, () => nowSeconds() - tokenClockToleranceSeconds],
  ])('answers exactly what the gateway answers an expired token (401, WWW-Authenticate) for one that expired %s, before the handler runs', async (_case, exp) => {
    const { call, seen } = operationWith('tenantLocationGet');

    const response = await call(apiEvent({ pathParameters: { id: '5' }, authorizer: contextExpiring(exp()) }));

    expect({ response, handled: seen.length }).toEqual({ response: gatewayUnauthorized(), handled: 0 });
    expect(response).toEqual({
      statusCode: 401,
      headers: {
        ...securityHeaders,
        'Content-Security-Policy': 'sandbox',
        'Content-Type': 'application/problem+json',
        'WWW-Authenticate': 'Bearer realm="api"',
        'X-Request-Id': requestId,
      },
      body: unauthorized.body,
    });
  });

  it('refuses a write before reading its body, and in JSON for an XML client, as the gateway would', async () => {
    const { call, seen } = operationWith('tenantLocationSave');
    const expired = contextExpiring(nowSeconds() - 60);

    const responses = [
      await call(jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'Stored after expiry' }, authorizer: expired })),
      await call(apiEvent({ method: 'POST', resource: '/TenantLocation/Save', body: '{not json', headers: { 'Content-Type': 'application/json' }, authorizer: expired })),
      await call(jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'x' }, headers: { Accept: 'application/xml' }, authorizer: expired })),
      await call(jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'x' }, headers: { Accept: 'image/png' }, authorizer: expired })),
    ];

    expect({ responses, handled: seen.length }).toEqual({ responses: responses.map(() => gatewayUnauthorized()), handled: 0 });
  });

  it('refuses a token whose nbf is beyond the clock tolerance ahead (a function clock behind the authorizer\'s)', async () => {
    const { call, seen } = operationWith('tenantLocationGet');

    const response = await call(apiEvent({ pathParameters: { id: '5' }, authorizer: contextExpiring(nowSeconds() + 3600, { nbf: String(nowSeconds() + 600) }) }));

    expect({ response, handled: seen.length }).toEqual({ response: gatewayUnauthorized(), handled: 0 });
  });

  it('serves a token within the clock tolerance past its exp, or with an nbf within it ahead, as the verifier does', async () => {
    const { call, seen } = operationWith('tenantLocationGet');

    const responses = [
      await call(apiEvent({ pathParameters: { id: '5' }, authorizer: contextExpiring(nowSeconds() - 1) })),
      await call(apiEvent({ pathParameters: { id: '5' }, authorizer: contextExpiring(nowSeconds() + 60, { nbf: String(nowSeconds() + 1) }) })),
    ];

    expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
    expect(seen.map((request) => request.principal)).toEqual([principal, principal]);
  });
});

describe('operation stack: tenancy of bodies', () => {
  it.each([
    ['TenantID', { TenantID: 8 }],
    ['WebsiteID', { WebsiteID: 2 }],
    ['UserID', { UserID: 4 }],
    ['TenantID', { TenantID: 8, WebsiteID: 2 }],
  ])('answers 403 when %s differs from the token, before the handler runs', async (field, fields) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveJson({ Name: 'Main', ...fields }));

    expect({ response, handled: seen.length }).toEqual({ response: mismatch(field), handled: 0 });
  });

  it.each([
    ['XML', '<TenantLocationInfo><Name>Main</Name><TenantID>8</TenantID></TenantLocationInfo>', 'application/xml'],
    ['a form', 'Name=Main&TenantID=8', 'application/x-www-form-urlencoded'],
  ])('answers 403 for another tenant in %s too', async (_case, body, contentType) => {
    const { call } = operationWith('tenantLocationSave');

    const response = await call(saveEvent(body, contentType));

    expect(response).toEqual(mismatch('TenantID'));
  });

  it('answers 403 for another tenant in a search filter', async () => {
    const { call } = operationWith('tenantLocationSearch', () => ({ Rows: [] }));

    const response = await call(jsonEvent({ method: 'PUT', resource: '/TenantLocation/Search', json: { TenantID: 8 } }));

    expect(response).toEqual(mismatch('TenantID'));
  });

  it.each([
    ['absent', {}],
    ['0', { TenantID: 0, WebsiteID: 0, UserID: 0 }],
    ['the token values', tenancy],
    ['null', { TenantID: null, WebsiteID: null, UserID: null }],
  ])('fills tenancy fields that are %s from the token', async (_case, fields) => {
    const { call, seen } = operationWith('tenantLocationSave');

    const response = await call(saveJson({ Name: 'Main', ...fields }));

    expect({ response, body: seen[0]?.body }).toEqual({
      response: { statusCode: 200, headers: successHeaders(), body: storedLocation },
      body: { Name: 'Main', ...tenancy },
    });
  });

  it('fills tenancy fields that are 0 or empty in XML and forms', async () => {
    const { call, seen } = operationWith('tenantLocationSave');

    await call(saveEvent('<R><Name>Main</Name><TenantID>0</TenantID><WebsiteID/><UserID>3</UserID></R>', 'text/xml'));
    await call(saveEvent('Name=Main&TenantID=7&WebsiteID=0&UserID=', 'application/x-www-form-urlencoded'));

    expect(seen.map((request) => request.body)).toEqual([
      { Name: 'Main', ...tenancy },
      { Name: 'Main', ...tenancy },
    ]);
  });
});
