// End to end: every tenant-location operation takes its body in each of the five request media types (the same
// logical body gives the same result) and answers in each of the four response media types (the XML answers read
// back with the service's own codec and the manifest's response schema equal the JSON answers).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { z } from 'zod';
import { operationsById, type OperationId } from '#shared/operations/index';
import type { TenantLocation, TenantLocationInfo } from '#shared/schemas/tenant-location';
import { encodeBody, isXml, requestMediaTypes, responseMediaTypes, toForm, toXml } from '#test/support/bodies';
import { api, tokenFor, type ApiResponse } from '#test/support/http';
import { parseXmlAs, successHeaders, viewOf } from '#test/support/responses';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { expectedLocation, get, isoTimestamp, getAll, getByName, getDefaultAddress, remove, save, search } from './support';

const tenant = freshTenantId();
const table = openTenantTable();
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant });
});
afterAll(() => table.close());

/** Every kind of value a body carries: text needing escapes, numbers, booleans both ways, a nested Address. */
const locationBody = (name: string): TenantLocationInfo => ({
  Name: name,
  Description: 'Flagship & <store> "one", 100% open',
  EmailAddress: 'shop@example.com',
  Phone: '+61 8 9000 0000',
  UtcOffset: 480,
  SelectedForUser: true,
  IsAddCustomerLocation: false,
  CustomerID: 42,
  Address: {
    StreetAddress: '1 Hay St',
    City: 'Perth',
    State: 'WA',
    PostCode: '6000',
    Country: 'Australia',
    AddressType: 1,
    Latitude: -31.95,
    Longitude: 115.86,
    IsDefaultBilling: true,
    IsPostalAddress: false,
    IsOfficeOrShop: true,
  },
});

const schemaOf = (operationId: OperationId): z.ZodType => {
  const success = operationsById[operationId].success;
  if (!success) throw new Error(`${operationId} declares no success schema`);
  return success.schema;
};

/**
 * Sends one request per response media type (`send(accept)`) and checks each answer whole: status, headers, and a
 * body equal to `expected` (XML bodies read back with the service's codec and the operation's response schema).
 */
const expectEveryResponseType = async (
  operationId: OperationId,
  send: (accept: string) => Promise<ApiResponse>,
  expected: unknown,
  status = 200,
) => {
  const responses = await Promise.all(responseMediaTypes.map(async (accept) => [accept, await send(accept)] as const));
  for (const [accept, response] of responses) {
    const view = viewOf(response);
    expect({ accept, ...view, body: isXml(accept) ? parseXmlAs(schemaOf(operationId), response.text) : view.body }).toEqual({
      accept,
      status,
      headers: successHeaders(accept),
      body: expected,
    });
  }
};

describe.each(requestMediaTypes)('Save with an %s body', (type) => {
  test('creates (201 + Location) and then updates (200) the same logical location', async () => {
    const name = `Store in ${type}`;
    const input = locationBody(name);
    const created = await save(token, encodeBody(type, input, 'TenantLocationInfo').body, { 'Content-Type': type });
    const id = created.json.ID;
    expect(viewOf(created)).toEqual({
      status: 201,
      headers: successHeaders('application/json', { location: `/api/TenantLocation/Get/${id}` }),
      body: expectedLocation(input, { id, tenant }),
    });

    // Partial update: absent fields keep their value, "" clears, Address is replaced whole, Version moves on.
    const change = { ID: id, Version: 1, Name: name, Description: '', Phone: '+61 8 9000 0001', Address: { City: 'Fremantle', IsDefaultDeliverTo: true } };
    const updated = await save(token, encodeBody(type, change, 'TenantLocationInfo').body, { 'Content-Type': type });
    const { Description: _cleared, ...kept } = input;
    expect(viewOf(updated)).toEqual({
      status: 200,
      headers: successHeaders('application/json'),
      body: expectedLocation({ ...kept, Phone: change.Phone, Address: change.Address }, { id, tenant, version: 2 }),
    });
    expect((await get(token, id)).json).toEqual(updated.json);
  });
});

describe('request bodies in other spellings of the same logical object', () => {
  test('a form with dotted names, a .NET XML list wrapper and i:nil elements give the same location as JSON', async () => {
    const input = locationBody('Spellings');
    const form = await save(token, toForm({ ...input, Name: 'Spellings form' }, 'dots'), {
      'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8',
    });
    const xml = await save(token, toXml('Anything', { ...input, Name: 'Spellings xml', ParentName: null }), {
      'Content-Type': 'application/xml; charset=utf-8',
    });
    expect([form.status, xml.status]).toEqual([201, 201]);
    expect(form.json).toEqual(expectedLocation({ ...input, Name: 'Spellings form' }, { id: form.json.ID, tenant }));
    expect(xml.json).toEqual(expectedLocation({ ...input, Name: 'Spellings xml' }, { id: xml.json.ID, tenant }));

    const wrapped = await search(
      token,
      `<TenantLocationFilter><IDs><int>${form.json.ID}</int><int>${xml.json.ID}</int></IDs><SortField>ID</SortField></TenantLocationFilter>`,
      { 'Content-Type': 'text/xml' },
    );
    expect(wrapped.status).toBe(200);
    expect(wrapped.json.Value.map((row) => row.ID)).toEqual([form.json.ID, xml.json.ID]);
  });
});

describe('every operation in every request and response media type', () => {
  let first: TenantLocation;
  let second: TenantLocation;
  let deleted: TenantLocation;

  beforeAll(async () => {
    const [a, b, c] = await Promise.all(
      ['Zeta Depot', 'Zeta Annex', 'Zeta Closed'].map(async (name) => (await save(token, locationBody(name))).json),
    );
    [first, second] = [a as TenantLocation, b as TenantLocation];
    deleted = (await remove(token, (c as TenantLocation).ID)).json;
    expect(deleted.IsActive).toBe(false);
  });

  test('Save answers in every response type (each answer is the record a later Get returns)', async () => {
    for (const [index, accept] of responseMediaTypes.entries()) {
      const phone = `+61 8 9000 000${index}`;
      const response = await save(token, { ID: first.ID, Name: first.Name, Phone: phone }, { Accept: accept });
      const view = viewOf(response);
      const stored = (await get(token, first.ID)).json;
      expect(stored).toEqual({ ...first, Phone: phone, Version: first.Version + index + 1, ModifiedDateTime_utc: isoTimestamp });
      expect({ ...view, body: isXml(accept) ? parseXmlAs(schemaOf('tenantLocationSave'), response.text) : view.body }).toEqual({
        status: 200,
        headers: successHeaders(accept),
        body: stored,
      });
    }
  });

  test('Get', async () => {
    await expectEveryResponseType('tenantLocationGet', (accept) => get(token, second.ID, { Accept: accept }), second);
  });

  test('Get of a deleted location', async () => {
    await expectEveryResponseType('tenantLocationGet', (accept) => get(token, deleted.ID, { Accept: accept }), deleted);
  });

  test('GetAll', async () => {
    const expected = (await getAll(token)).json;
    expect(expected.map((location) => location.ID)).toEqual(expect.arrayContaining([first.ID, second.ID]));
    await expectEveryResponseType('tenantLocationGetAll', (accept) => getAll(token, { Accept: accept }), expected);
  });

  test('GetDefaultAddress', async () => {
    await expectEveryResponseType(
      'tenantLocationGetDefaultAddress',
      (accept) => getDefaultAddress(token, second.ID, 'Billing', { Accept: accept }),
      { ...locationBody('').Address, LocationID: second.ID },
    );
  });

  test('Delete (repeated, so every answer is the same record)', async () => {
    await expectEveryResponseType('tenantLocationDelete', (accept) => remove(token, deleted.ID, { Accept: accept }), deleted);
  });

  describe.each(requestMediaTypes)('with an %s body', (type) => {
    test('GetByName, exact', async () => {
      const body = encodeBody(type, { SearchString: ' zeta ANNEX ', IsExactMatch: true }, 'SearchFilter').body;
      await expectEveryResponseType('tenantLocationGetByName', (accept) => getByName(token, body, { 'Content-Type': type, Accept: accept }), second);
    });

    test('GetByName, by prefix', async () => {
      const body = encodeBody(type, { Search: 'zeta', IsExactMatch: false }, 'SearchFilter').body;
      // "Zeta Annex" sorts before "Zeta Depot"; "Zeta Closed" is deleted.
      await expectEveryResponseType('tenantLocationGetByName', (accept) => getByName(token, body, { 'Content-Type': type, Accept: accept }), second);
    });

    test('Search, with an IDs list, booleans and paging', async () => {
      const filter = { IDs: [first.ID, second.ID, deleted.ID], IncludeDeleted: true, SortField: 'ID', SortAsc: false, MaxResults: 2 };
      const body = encodeBody(type, filter, 'TenantLocationFilter').body;
      const current = await Promise.all([first.ID, second.ID, deleted.ID].map(async (id) => (await get(token, id)).json));
      const [byIdDescending0, byIdDescending1] = current.sort((a, b) => b.ID - a.ID);
      await expectEveryResponseType(
        'tenantLocationSearch',
        (accept) => search(token, body, { 'Content-Type': type, Accept: accept }),
        {
          MoreToGet: true,
          LastRowNumber: 2,
          Count: 2,
          TotalRecordCount: 3,
          Value: [
            { RowNumber: 1, ...byIdDescending0 },
            { RowNumber: 2, ...byIdDescending1 },
          ],
          IsSuccess: true,
          Messages: [],
        },
      );
    });
  });
});

test('each request media type with an explicit UTF-8 charset and non-ASCII text', async () => {
  const name = 'Café Zürich – 東京';
  for (const [index, type] of requestMediaTypes.entries()) {
    const input = { Name: `${name} ${index}`, Address: { City: 'Zürich' } };
    const response = await api<TenantLocation>('/TenantLocation/Save', {
      token,
      body: encodeBody(type, input, 'TenantLocationInfo').body,
      headers: { 'Content-Type': `${type}; charset=utf-8` },
    });
    expect({ type, status: response.status, body: response.json }).toEqual({
      type,
      status: 201,
      body: expectedLocation(input, { id: response.json.ID, tenant }),
    });
  }
  expect((await table.items(tenant)).filter((item) => String(item.Name).startsWith(name))).toHaveLength(requestMediaTypes.length);
});

test('a body declaring US-ASCII is read only when it holds ASCII alone: other characters are a 400 that writes nothing', async () => {
  const before = await table.items(tenant);
  for (const type of requestMediaTypes) {
    const refused = await api('/TenantLocation/Save', {
      token,
      body: encodeBody(type, { Name: 'Café ascii' }, 'TenantLocationInfo').body,
      headers: { 'Content-Type': `${type}; charset=us-ascii` },
    });
    expect({ type, status: refused.status, detail: (refused.json as { detail?: string }).detail }).toEqual({ type, status: 400, detail: expect.stringContaining('US-ASCII') });
  }
  expect(await table.items(tenant)).toEqual(before);
  const plain = await api<TenantLocation>('/TenantLocation/Save', {
    token,
    body: encodeBody('application/json', { Name: 'Plain ascii' }, 'TenantLocationInfo').body,
    headers: { 'Content-Type': 'application/json; charset=US-ASCII' },
  });
  expect(plain.status).toBe(201);
});
