// Black-box tests of the operation stack (shared/http/operation.ts): authentication from the authorizer context
// and the tenancy of request bodies, which is never trusted from the client.
import { describe, expect, it } from '@jest/globals';
import { apiEvent, jsonEvent, operationWith, principal, problemHeaders, problemType, requestId, storedLocation, successHeaders } from './support';

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
    ['a tenantId beyond int32', { tenantId: '2147483648', websiteId: '1', userId: '3' }],
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

    await call(apiEvent({ pathParameters: { id: '5' }, authorizer: { tenantId: 7, websiteId: '1', userId: 3, organisationId: 'org-1' } }));

    expect(seen[0]?.principal).toEqual({ ...principal, organisationId: 'org-1' });
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
