// End to end: who may call. A missing or invalid token is refused by the gateway (401) before any function runs;
// a body that names another tenancy than the token is refused (403) and changes nothing; a tenancy of 0 or
// absent is the token's.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { signDevToken } from '#shared/auth/tokens';
import { encodeBody, requestMediaTypes } from '#test/support/bodies';
import { api, tokenFor } from '#test/support/http';
import { gatewayProblemHeaders, problem, problemHeaders, problemType, viewOf } from '#test/support/responses';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { create, expectedLocation, get } from './support';

const tenant = freshTenantId();
const table = openTenantTable();
const website = 3;
const user = 7;
let token: string;
let locationId: number;

beforeAll(async () => {
  token = await tokenFor({ tenant, website, user });
  locationId = (await create(token, { Name: 'Head Office' })).ID;
});
afterAll(() => table.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);
const principal = () => ({ tenantId: tenant, websiteId: website, userId: user });

describe('401 from the gateway, before any function runs', () => {
  const unauthorized = {
    status: 401,
    headers: gatewayProblemHeaders({ 'www-authenticate': 'Bearer realm="api"' }),
    body: problem({ status: 401, title: 'Unauthorized', detail: 'A valid bearer token is required.' }),
  };

  const cases: [string, () => Promise<Record<string, string>>][] = [
    ['no Authorization header', async () => ({})],
    ['an empty bearer token', async () => ({ Authorization: 'Bearer ' })],
    ['a malformed token', async () => ({ Authorization: 'Bearer not-a-jwt' })],
    ['another scheme', async () => ({ Authorization: `Basic ${Buffer.from('user:password').toString('base64')}` })],
    ['a token with a tampered payload', async () => {
      const [header, , signature] = (await tokenFor({ tenant })).split('.');
      const payload = Buffer.from(JSON.stringify({ ...principal(), tenantId: 1, exp: nowSeconds() + 3600 })).toString('base64url');
      return { Authorization: `Bearer ${header}.${payload}.${signature}` };
    }],
    ['an expired token', async () => ({ Authorization: `Bearer ${await signDevToken(principal(), { expiresIn: nowSeconds() - 3600 })}` })],
    ['a token signed with another secret', async () => ({
      Authorization: `Bearer ${await signDevToken(principal(), { secret: 'another-secret-that-is-long-enough-for-hs256!' })}`,
    })],
    ['a token for another audience', async () => ({ Authorization: `Bearer ${await signDevToken(principal(), { audience: 'someone-else' })}` })],
    ['a token without tenancy claims', async () => ({
      Authorization: `Bearer ${await signDevToken({ ...principal(), tenantId: 0 })}`,
    })],
  ];

  test.each(cases)('%s: 401 problem with WWW-Authenticate, nothing read or written', async (_name, headersOf) => {
    const headers = await headersOf();
    const before = await table.items(tenant);
    const responses = await Promise.all([
      api(`/TenantLocation/Get/${locationId}`, { headers }),
      api('/TenantLocation/GetAll', { headers }),
      api('/TenantLocation/Save', { headers, body: { Name: 'Intruder' } }),
      api(`/TenantLocation/Delete/${locationId}`, { method: 'DELETE', headers }),
      api('/TenantLocation/Search', { method: 'PUT', headers, body: {} }),
    ]);
    for (const response of responses) expect(viewOf(response)).toEqual(unauthorized);
    expect(await table.items(tenant)).toEqual(before);
  });

  test('the same token is accepted once valid (the refusals above are about the token only)', async () => {
    const response = await get(token, locationId);
    expect(response.status).toBe(200);
  });
});

describe('403 when a body names another tenancy than the token', () => {
  const mismatches = [
    ['TenantID', tenant + 1],
    ['WebsiteID', website + 1],
    ['UserID', user + 1],
  ] as const;

  const forbidden = (field: string, format: 'json' | 'xml' = 'json') => ({
    status: 403,
    headers: problemHeaders(format),
    body: problem({
      status: 403,
      title: 'Tenancy mismatch',
      type: problemType('tenancy-mismatch'),
      detail: `${field} does not match the caller's token.`,
      errors: [{ pointer: `/${field}`, detail: "differs from the caller's token" }],
    }),
  });

  test.each(mismatches)('%s in a Save body, in every request media type: 403, table unchanged', async (field, value) => {
    const before = await table.items(tenant);
    for (const type of requestMediaTypes) {
      for (const body of [
        { Name: `Other ${field}`, [field]: value },
        { ID: locationId, Name: 'Renamed by another tenancy', [field]: value },
      ]) {
        const response = await api('/TenantLocation/Save', { token, ...encodeBody(type, body, 'TenantLocationInfo') });
        expect({ type, ...viewOf(response) }).toEqual({ type, ...forbidden(field) });
      }
    }
    expect(await table.items(tenant)).toEqual(before);
  });

  test.each(mismatches)('%s in a GetByName or Search body: 403', async (field, value) => {
    const byName = await api('/TenantLocation/GetByName', { token, body: { SearchString: 'Head', [field]: value } });
    const searched = await api('/TenantLocation/Search', {
      method: 'PUT',
      token,
      body: { [field]: value },
      headers: { Accept: 'application/xml' },
    });
    expect(viewOf(byName)).toEqual(forbidden(field));
    expect(viewOf(searched)).toEqual({
      status: 403,
      headers: problemHeaders('xml'),
      body: expect.stringContaining(`<status>403</status><detail>${field} does not match the caller's token.</detail>`),
    });
  });

  test("the token's own values and 0 are accepted; absent or 0 is filled from the token", async () => {
    const withOwn = await api('/TenantLocation/Save', {
      token,
      body: { Name: 'Own tenancy', TenantID: tenant, WebsiteID: website, UserID: user },
    });
    const withZero = await api('/TenantLocation/Save', {
      token,
      ...encodeBody('application/xml', { Name: 'Zero tenancy', TenantID: 0, WebsiteID: 0, UserID: 0 }, 'TenantLocationInfo'),
    });
    const withNone = await api('/TenantLocation/Save', {
      token,
      ...encodeBody('application/x-www-form-urlencoded', { Name: 'No tenancy' }, 'TenantLocationInfo'),
    });
    for (const [response, name] of [
      [withOwn, 'Own tenancy'],
      [withZero, 'Zero tenancy'],
      [withNone, 'No tenancy'],
    ] as const) {
      const id = (response.json as { ID: number }).ID;
      expect({ status: response.status, body: response.json }).toEqual({
        status: 201,
        body: expectedLocation({ Name: name }, { id, tenant, website, user }),
      });
      expect(await table.location(tenant, id)).toMatchObject({ TenantID: tenant, WebsiteID: website, UserID: user });
    }

    const searched = await api('/TenantLocation/Search', { method: 'PUT', token, body: { TenantID: 0, SearchString: 'tenancy' } });
    expect(searched.status).toBe(200);
  });
});
