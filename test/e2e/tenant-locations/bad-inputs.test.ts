// End to end: every kind of bad input gets a 4xx problem response naming what is wrong, and leaves the tenant's
// items in the table exactly as they were (compared item by item before and after each request).
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TenantLocation } from '#shared/schemas/tenant-location';
import { encodeBody, requestMediaTypes } from '#test/support/bodies';
import { api, apiBaseUrl, tokenFor, type ApiResponse } from '#test/support/http';
import {
  gatewayProblemHeaders,
  malformedProblem,
  problem,
  problemHeaders,
  reservedKeyProblem,
  validationProblem,
  viewOf,
  type ResponseView,
} from '#test/support/responses';
import { refusedAddressTypes, refusedPathIds } from '#test/support/refused-bodies';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { create, expectedLocation, get, getByName, getDefaultAddress, remove, save, search } from './support';

const tenant = freshTenantId();
const table = openTenantTable();
let token: string;
let existing: TenantLocation;

beforeAll(async () => {
  token = await tokenFor({ tenant });
  existing = await create(token, {
    Name: 'Existing',
    IsDefault: true,
    Description: 'Stays as it is',
    Address: { City: 'Perth', IsDefaultBilling: true },
  });
});
afterAll(() => table.close());

type Send = () => Promise<ApiResponse>;

/** Sends the request and checks the whole answer, and that the tenant's items did not change. */
const expectRefusedWithoutChange = async (send: Send, expected: Omit<ResponseView, 'headers'> & { headers?: object }) => {
  const before = await table.items(tenant);
  const response = await send();
  expect(viewOf(response)).toEqual({ headers: problemHeaders(), ...expected });
  expect(await table.items(tenant)).toEqual(before);
  return response;
};

const invalid = (errors: readonly object[]) => ({ status: 400, body: validationProblem(errors) });
const field = (pointer: string, detail: unknown = expect.any(String)) => ({ pointer, detail });
const parameter = (name: string, detail: unknown = expect.any(String)) => ({ parameter: name, detail });

const saveRaw = (body: string, contentType: string): Send => () => save(token, body, { 'Content-Type': contentType });

describe('malformed bodies: 400 malformed-body', () => {
  const cases: [string, Send, unknown][] = [
    ['truncated JSON', saveRaw('{"Name": "A",', 'application/json'), malformedProblem('The body is not valid JSON.')],
    ['truncated text/json', saveRaw('{"Name": ', 'text/json'), malformedProblem('The body is not valid JSON.')],
    ['JSON with a trailing comma', saveRaw('{"Name": "A",}', 'application/json'), malformedProblem('The body is not valid JSON.')],
    ['unclosed XML', saveRaw('<TenantLocationInfo><Name>A</Name>', 'application/xml'), malformedProblem(expect.stringMatching(/^The XML body is not well-formed/))],
    ['mismatched XML tags', saveRaw('<TenantLocationInfo><Name>A</Nam></TenantLocationInfo>', 'text/xml'), malformedProblem(expect.stringMatching(/^The XML body is not well-formed/))],
    ['two XML roots', saveRaw('<A><Name>A</Name></A><B/>', 'application/xml'), malformedProblem(expect.any(String))],
    ['XML with an undefined entity', saveRaw('<TenantLocationInfo><Name>&xxe;</Name></TenantLocationInfo>', 'application/xml'), malformedProblem('The XML body uses an undefined entity or an invalid character reference.')],
    // XML whose content the parser cannot read whole: a part of it was stored (issue: hostile-client review).
    ['XML text and CDATA in one element', saveRaw('<TenantLocationInfo><Name>Foo<![CDATA[ & Bar]]></Name></TenantLocationInfo>', 'application/xml'), malformedProblem('An XML element mixes text and CDATA sections; send its text in one form.')],
    ['XML text beside elements', saveRaw('<TenantLocationInfo><Name>A</Name><Address>stray<City>Perth</City></Address></TenantLocationInfo>', 'text/xml'), malformedProblem('An XML element holds both text and elements; send one or the other.')],
    // An attribute is data read from nowhere: `<Name lang="en">` was dropped, `<Address City="Perth">` saved no city.
    ['an XML attribute other than i:nil or i:type', saveRaw('<TenantLocationInfo><Name>A</Name><Address City="Perth"/></TenantLocationInfo>', 'application/xml'), malformedProblem('An XML element carries an attribute other than i:nil or i:type; this API reads values from elements only.')],
    ['XML i:nil="true" with content', saveRaw('<TenantLocationInfo xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Name>A</Name><Description i:nil="true">kept?</Description></TenantLocationInfo>', 'application/xml'), malformedProblem('An XML element marked i:nil="true" has content; a nil element must be empty.')],
    ['a form with bad percent-encoding', saveRaw('Name=%zzA', 'application/x-www-form-urlencoded'), malformedProblem('The form body has an invalid percent-encoding.')],
    ['a form with a truncated escape', saveRaw('Name=Caf%C', 'application/x-www-form-urlencoded'), malformedProblem('The form body has an invalid percent-encoding.')],
    ['a form with a broken field name', saveRaw('Address[City=Perth', 'application/x-www-form-urlencoded'), malformedProblem(expect.stringContaining('is not valid'))],
  ];
  test.each(cases)('%s', async (_name, send, body) => {
    await expectRefusedWithoutChange(send, { status: 400, body });
  });
});

// The API declares every request media type binary, so the function receives the bytes sent and decodes them strictly:
// bytes that are not UTF-8 are refused, never stored as U+FFFD (a Latin-1 "café" was answered 201 as "caf\uFFFD").
describe('a body that is not UTF-8: 400 malformed-body, nothing stored, no ID used up', () => {
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));
  const notUtf8 = malformedProblem('The body is not valid UTF-8: send its text encoded in UTF-8.');
  const cases: [string, Buffer, string][] = [
    ['JSON holding FF FE', bytes('{"Name":"bad', [0xff, 0xfe], '"}'), 'application/json'],
    ['JSON in Latin-1 (café)', bytes('{"Name":"caf', [0xe9], '"}'), 'application/json; charset=utf-8'],
    ['text/json holding an encoded surrogate', bytes('{"Name":"', [0xed, 0xa0, 0x80], '"}'), 'text/json'],
    ['XML holding FF FE', bytes('<TenantLocationInfo><Name>bad', [0xff, 0xfe], '</Name></TenantLocationInfo>'), 'application/xml'],
    ['text/xml in Latin-1 (café)', bytes('<TenantLocationInfo><Name>caf', [0xe9], '</Name></TenantLocationInfo>'), 'text/xml'],
    ['a form holding FF FE', bytes('Name=bad', [0xff, 0xfe]), 'application/x-www-form-urlencoded'],
  ];

  test.each(cases)('%s', async (_name, body, contentType) => {
    // A tenant of its own, so its IDs are this test's: the next location created takes the ID after the last.
    const own = freshTenantId();
    const ownToken = await tokenFor({ tenant: own });
    const before = await create(ownToken, { Name: 'Before' });
    const items = await table.items(own);

    const response = await save(ownToken, body, { 'Content-Type': contentType });

    expect(viewOf(response)).toEqual({ status: 400, headers: problemHeaders(), body: notUtf8 });
    expect(await table.items(own)).toEqual(items);
    const after = await create(ownToken, { Name: 'After' });
    expect(after.ID).toBe(before.ID + 1);
    const stored = await search(ownToken, {});
    expect(stored.json.Value.map((row) => row.Name).sort()).toEqual(['After', 'Before']);
  });
});

describe('XML with a DOCTYPE or entity declarations: 400, nothing expanded', () => {
  const billionLaughs =
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
    Array.from({ length: 9 }, (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level === 0 ? '' : level};`.repeat(10)}">`).join('') +
    ']><TenantLocationInfo><Name>&lol9;</Name></TenantLocationInfo>';
  const xxe =
    '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
    '<TenantLocationInfo><Name>Leak</Name><Description>&xxe;</Description></TenantLocationInfo>';
  const parameterEntity =
    '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY % remote SYSTEM "http://127.0.0.1:1/evil.dtd"> %remote;]>' +
    '<TenantLocationInfo><Name>Remote</Name></TenantLocationInfo>';
  const entityOnly = '<!ENTITY xxe SYSTEM "file:///etc/passwd"><TenantLocationInfo><Name>&xxe;</Name></TenantLocationInfo>';

  test.each([
    ['billion laughs', billionLaughs],
    ['XXE with SYSTEM file:///etc/passwd', xxe],
    ['a parameter entity with a remote DTD', parameterEntity],
    ['an ENTITY declaration without DOCTYPE', entityOnly],
  ])('%s', async (_name, xml) => {
    for (const type of ['application/xml', 'text/xml']) {
      const response = await expectRefusedWithoutChange(saveRaw(xml, type), {
        status: 400,
        body: malformedProblem('XML with a DOCTYPE or markup declarations is not accepted.'),
      });
      expect(response.text).not.toMatch(/lollol|root:|\/bin\//);
    }
    for (const send of [() => getByName(token, xml, { 'Content-Type': 'application/xml' }), () => search(token, xml, { 'Content-Type': 'text/xml' })]) {
      await expectRefusedWithoutChange(send, { status: 400, body: malformedProblem('XML with a DOCTYPE or markup declarations is not accepted.') });
    }
  });
});

describe('wrong types: 400 validation-failed with a pointer to each field', () => {
  const cases: [string, Send, readonly object[]][] = [
    ['JSON "ID":"x"', saveRaw('{"ID":"x","Name":"A"}', 'application/json'), [field('/ID')]],
    ['JSON "ID":"5" (JSON is typed)', saveRaw('{"ID":"5","Name":"A"}', 'application/json'), [field('/ID')]],
    ['JSON "IsDefault":"yes"', saveRaw('{"Name":"A","IsDefault":"yes"}', 'text/json'), [field('/IsDefault')]],
    ['JSON nested Address.Latitude as text', saveRaw('{"Name":"A","Address":{"Latitude":"north"}}', 'application/json'), [field('/Address/Latitude')]],
    ['JSON ID -1', saveRaw('{"ID":-1,"Name":"A"}', 'application/json'), [field('/ID')]],
    ['JSON ID 2147483648', saveRaw('{"ID":2147483648,"Name":"A"}', 'application/json'), [field('/ID')]],
    ['JSON ID 1.5', saveRaw('{"ID":1.5,"Name":"A"}', 'application/json'), [field('/ID')]],
    ['JSON UtcOffset out of range', saveRaw('{"Name":"A","UtcOffset":900}', 'application/json'), [field('/UtcOffset')]],
    ['JSON Name over 200 characters', saveRaw(JSON.stringify({ Name: 'N'.repeat(201) }), 'application/json'), [field('/Name')]],
    ['JSON Name with a control character', saveRaw('{"Name":"A\\u0001B"}', 'application/json'), [field('/Name', 'must not contain control characters')]],
    ['XML <ID>abc</ID>', saveRaw('<TenantLocationInfo><ID>abc</ID><Name>A</Name></TenantLocationInfo>', 'application/xml'), [field('/ID')]],
    ['XML <IsDefault>maybe</IsDefault>', saveRaw('<TenantLocationInfo><Name>A</Name><IsDefault>maybe</IsDefault></TenantLocationInfo>', 'text/xml'), [field('/IsDefault')]],
    ['XML two Names', saveRaw('<TenantLocationInfo><Name>A</Name><Name>B</Name></TenantLocationInfo>', 'application/xml'), [field('/Name')]],
    ['form ID=abc', saveRaw('ID=abc&Name=A', 'application/x-www-form-urlencoded'), [field('/ID')]],
    ['form Address[Longitude]=200', saveRaw('Name=A&Address[Longitude]=200', 'application/x-www-form-urlencoded'), [field('/Address/Longitude')]],
    ['a JSON array body', saveRaw('[{"Name":"A"}]', 'application/json'), [field('', 'the body must be an object')]],
    ['a JSON string body', saveRaw('"A"', 'application/json'), [field('', 'the body must be an object')]],
  ];
  test.each(cases)('%s', async (_name, send, errors) => {
    await expectRefusedWithoutChange(send, invalid(errors));
  });

  test('several invalid fields are all named', async () => {
    await expectRefusedWithoutChange(saveRaw('{"ID":"x","Name":5,"Address":{"City":true}}', 'application/json'), invalid([field('/ID'), field('/Name'), field('/Address/City')]));
  });
});

describe('unknown or case-wrong fields: 400, named case-sensitively', () => {
  const unknown = 'is not a known field (names are case-sensitive)';
  test.each(requestMediaTypes)('`name` instead of `Name` in %s', async (type) => {
    await expectRefusedWithoutChange(() => save(token, encodeBody(type, { name: 'lower case' }, 'TenantLocationInfo').body, { 'Content-Type': type }), invalid([field('/name', unknown)]));
  });

  test('unknown fields at the top, in Address, and in a filter', async () => {
    await expectRefusedWithoutChange(() => save(token, { Name: 'A', Colour: 'red' }), invalid([field('/Colour', unknown)]));
    await expectRefusedWithoutChange(() => save(token, { Name: 'A', Address: { city: 'Perth' } }), invalid([field('/Address/city', unknown)]));
    await expectRefusedWithoutChange(() => search(token, { searchString: 'x' }), invalid([field('/searchString', unknown)]));
    await expectRefusedWithoutChange(() => getByName(token, { SearchString: 'x', Limit: 1 }), invalid([field('/Limit', unknown)]));
  });
});

describe('domain rules on the body: 400 and no ID used up', () => {
  test.each([
    ['no Name', { Description: 'nameless' }, [field('/Name', 'is required')]],
    ['a blank Name', { Name: '   ' }, [field('/Name', 'is required')]],
    ['an unknown ParentID', { Name: 'Orphan', ParentID: 999_999 }, [field('/ParentID', 'no location of this tenant has this ID')]],
  ])('Save with %s', async (_name, body, errors) => {
    await expectRefusedWithoutChange(() => save(token, body), invalid(errors));
  });

  test('a location cannot be its own parent', async () => {
    await expectRefusedWithoutChange(
      () => save(token, { ID: existing.ID, Name: existing.Name, ParentID: existing.ID }),
      invalid([field('/ParentID', 'a location cannot be its own parent')]),
    );
  });

  test('Save and GetByName without a body', async () => {
    for (const path of ['/TenantLocation/Save', '/TenantLocation/GetByName']) {
      await expectRefusedWithoutChange(() => api(path, { method: 'POST', token, headers: { 'Content-Type': 'application/json' } }), {
        status: 400,
        body: validationProblem([field('', 'a request body is required')], 'A request body is required.'),
      });
    }
  });

  test('GetByName without a search text', async () => {
    await expectRefusedWithoutChange(() => getByName(token, { IsExactMatch: true }), invalid([field('/SearchString', 'SearchString or Search is required')]));
  });
});

describe('path ids: 400 naming the parameter', () => {
  test.each(refusedPathIds)('%s for Get, Delete and GetDefaultAddress', async (id) => {
    const expected = invalid([parameter('id', 'must be a positive 32-bit integer')]);
    await expectRefusedWithoutChange(() => get(token, id), expected);
    await expectRefusedWithoutChange(() => remove(token, id), expected);
    await expectRefusedWithoutChange(() => getDefaultAddress(token, id, 'Billing'), expected);
  });

  test('the largest int32 is a valid id (404, not 400)', async () => {
    expect((await get(token, 2147483647)).status).toBe(404);
  });
});

describe('GetDefaultAddress addressType', () => {
  test.each(refusedAddressTypes.filter((value) => value.length <= 20))('%p: 400 naming addressType', async (addressType) => {
    await expectRefusedWithoutChange(
      () => getDefaultAddress(token, existing.ID, addressType),
      invalid([parameter('addressType', 'must be Billing, Delivery, Service or Postal (or 1, 2, 3, 4)')]),
    );
  });

  test('missing: 400 naming addressType', async () => {
    await expectRefusedWithoutChange(() => getDefaultAddress(token, existing.ID, undefined), invalid([parameter('addressType')]));
  });

  // Each refusal says its own rule: a pattern's words only where the pattern refuses (a too-long document id was told
  // it was not printable text).
  test('over 20 characters: 400 naming addressType and its length', async () => {
    await expectRefusedWithoutChange(() => getDefaultAddress(token, existing.ID, 'B'.repeat(21)), invalid([parameter('addressType', 'must be at most 20 characters')]));
  });

  // A parameter the operation does not declare was ignored: `AddressType=Delivery` beside `addressType=Billing`
  // answered the Billing address. Refused as the payment read refuses one (its query is strict too).
  test.each([
    ['another case form of addressType', 'AddressType', 'Delivery'],
    ['an unknown parameter', 'includeInactive', 'true'],
    ['a prototype name', '__proto__', 'x'],
  ])('%s beside addressType: 400 naming it', async (_case, name, value) => {
    const response = await api(`/TenantLocation/GetDefaultAddress/${existing.ID}?addressType=Billing&${name}=${value}`, { token });
    expect({ status: response.status, body: response.json }).toEqual({
      status: 400,
      body: expect.objectContaining({ errors: [parameter(name, 'is not a known field (names are case-sensitive)')] }),
    });
  });

  // An operation that reads no query refuses any parameter, as these strict queries do: Get, GetAll and Save ignored
  // one (`/TenantLocation/Get/5?addressType=Billing` answered the location).
  test.each([
    ['Get', 'GET', () => `/TenantLocation/Get/${existing.ID}?addressType=Billing`, 'addressType'],
    ['GetAll', 'GET', () => '/TenantLocation/GetAll?__proto__=x', '__proto__'],
    ['Save', 'POST', () => '/TenantLocation/Save?IsDefault=true', 'IsDefault'],
  ])('%s, which reads no query: 400 naming the parameter, nothing changed', async (_operation, method, path, name) => {
    await expectRefusedWithoutChange(
      () => api(path(), { token, method, ...(method === 'POST' ? { body: { Name: 'Never saved' } } : {}) }),
      invalid([parameter(name, 'is not a known field (names are case-sensitive)')]),
    );
  });
});

describe('Search filters', () => {
  // The search's filter lists only the members it applies (issue 23): any other is not a member of it.
  const refused = 'is not a known field (names are case-sensitive)';
  test.each([
    ['Statuses', { Statuses: [1, 2] }, [field('/Statuses', refused)]],
    ['StartDate and CategoryIDs', { StartDate: '2026-01-01T00:00:00Z', CategoryIDs: [3] }, [field('/StartDate', refused), field('/CategoryIDs', refused)]],
    ['an unknown SortField', { SortField: 'Colour' }, [field('/SortField', 'must be Name, ID, Description, CreatedDateTime_utc or ModifiedDateTime_utc')]],
    ['MaxResults 0', { MaxResults: 0 }, [field('/MaxResults')]],
    ['MaxResults 501', { MaxResults: 501 }, [field('/MaxResults')]],
    ['a negative LastRowNumber', { LastRowNumber: -1 }, [field('/LastRowNumber')]],
  ])('%s: 400', async (_name, filter, errors) => {
    await expectRefusedWithoutChange(() => search(token, filter), invalid(errors));
  });

  test('Statuses in XML and form bodies too', async () => {
    const errors = [field('/Statuses', refused)];
    await expectRefusedWithoutChange(() => search(token, '<TenantLocationFilter><Statuses>1</Statuses></TenantLocationFilter>', { 'Content-Type': 'application/xml' }), invalid(errors));
    await expectRefusedWithoutChange(() => search(token, 'Statuses=1&Statuses=2', { 'Content-Type': 'application/x-www-form-urlencoded' }), invalid(errors));
  });
});

describe('size and media types', () => {
  // Over the most any operation reads (1 MiB), a body is refused before any function runs (the web ACL's BodyTooLarge
  // rule, the local gateway's front door): the functions' problem, with the gateway's headers.
  test('a body over 1 MiB: 413', async () => {
    const body = JSON.stringify({ Name: 'Huge', Description: 'x'.repeat(1024 * 1024) });
    for (const contentType of ['application/json', 'application/xml', 'application/x-www-form-urlencoded']) {
      await expectRefusedWithoutChange(saveRaw(body, contentType), {
        headers: gatewayProblemHeaders(),
        status: 413,
        body: problem({ status: 413, title: 'Content Too Large', detail: 'The request body exceeds 1048576 bytes.' }),
      });
    }
  });

  // Every request media type is binary (the API hands bodies over base64-encoded), so a 5 MB body made an event past
  // Lambda's 6 MB invocation payload: API Gateway's 502 for the client's mistake. Refused before any function now.
  test.each([
    ['5 MB', 5 * 1024 * 1024],
    ['just over the 6 MB a Lambda event may hold', 6 * 1024 * 1024 + 1],
  ])('a body of %s: the same 413, before any function runs', async (_size, bytes) => {
    const body = JSON.stringify({ Name: 'Huge', Description: 'x'.repeat(bytes) });
    await expectRefusedWithoutChange(saveRaw(body, 'application/json'), {
      headers: gatewayProblemHeaders(),
      status: 413,
      body: problem({ status: 413, title: 'Content Too Large', detail: 'The request body exceeds 1048576 bytes.' }),
    });
  });

  const acceptPost = 'application/json, text/json, application/xml, text/xml, application/x-www-form-urlencoded';
  test.each([
    ['text/plain', 'text/plain'],
    ['a charset other than UTF-8', 'application/json; charset=iso-8859-1'],
    ['multipart/form-data', 'multipart/form-data; boundary=x'],
    ['a malformed Content-Type', 'json'],
    // One reader takes the first charset, another the last: neither is read.
    ['a charset named twice, UTF-8 last', 'application/json; charset=utf-16; charset=utf-8'],
    ['a charset named twice in two case forms, both UTF-8', 'application/json; charset=utf-8; CHARSET=UTF-8'],
  ])('%s: 415 with Accept-Post', async (_name, contentType) => {
    await expectRefusedWithoutChange(saveRaw('{"Name":"Plain"}', contentType), {
      status: 415,
      headers: problemHeaders('json', { 'accept-post': acceptPost }),
      body: problem({ status: 415, title: 'Unsupported Media Type', detail: `Send the body as one of: ${acceptPost}.` }),
    });
  });

  // The body is read as UTF-8; an XML declaration naming another encoding (which a reader follows when the media type
  // names no charset, RFC 7303) would have the body read as text the client did not send.
  test.each([
    ['ISO-8859-1, no charset parameter', 'application/xml', '<?xml version="1.0" encoding="ISO-8859-1"?>'],
    ['UTF-16 in single quotes', 'text/xml', "<?xml version='1.0' encoding='UTF-16'?>"],
    ['windows-1252 against charset=utf-8', 'application/xml; charset=utf-8', '<?xml version="1.0" encoding="windows-1252" standalone="yes"?>'],
  ])('an XML declaration naming %s: 415 with Accept-Post', async (_name, contentType, declaration) => {
    await expectRefusedWithoutChange(saveRaw(`${declaration}<TenantLocationInfo><Name>Caf\u00c3\u00a9</Name></TenantLocationInfo>`, contentType), {
      status: 415,
      headers: problemHeaders('json', { 'accept-post': acceptPost }),
      body: problem({ status: 415, title: 'Unsupported Media Type', detail: `Send the body as one of: ${acceptPost}.` }),
    });
  });

  test.each(['UTF-8', 'utf-8', 'US-ASCII'])('an XML declaration naming %s is read', async (encoding) => {
    // A tenant of its own: this suite's tenant must hold only what its other tests expect.
    const accepting = await tokenFor({ tenant: freshTenantId() });
    const body = `<?xml version="1.0" encoding="${encoding}"?><TenantLocationInfo><Name>Declared ${encoding}</Name></TenantLocationInfo>`;
    const response = await save(accepting, body, { 'Content-Type': 'application/xml' });
    expect({ status: response.status, name: response.json.Name }).toEqual({ status: 201, name: `Declared ${encoding}` });
  });

  // Issue 14: Content-Type is a once-only header; two lines are refused before routing (400 naming it), not a 415.
  test('two Content-Type lines that disagree: 400 naming the header, whichever comes last, nothing stored', async () => {
    // fetch would join the lines into one value; node:http sends them as two header lines.
    const sendTwoLines = (types: [string, string]) => () =>
      new Promise<ApiResponse>((resolve, reject) => {
        const body = '{"Name":"Two types"}';
        const host = new URL(apiBaseUrl()).host; // a raw header list gets no Host from node:http
        const headers = ['Host', host, 'Authorization', `Bearer ${token}`, 'Content-Type', types[0], 'Content-Type', types[1], 'Content-Length', String(body.length)];
        const request = httpRequest(`${apiBaseUrl()}/TenantLocation/Save`, { method: 'POST', headers }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            const responseHeaders = new Headers(Object.entries(response.headers).map(([name, value]) => [name, String(value)]));
            resolve({ status: response.statusCode ?? 0, headers: responseHeaders, text, json: JSON.parse(text) as unknown });
          });
        });
        request.on('error', reject);
        request.end(body);
      });
    for (const types of [['application/xml', 'application/json'], ['application/json', 'application/xml']] as [string, string][]) {
      await expectRefusedWithoutChange(sendTwoLines(types), {
        status: 400,
        headers: gatewayProblemHeaders(),
        body: problem({
          status: 400,
          title: 'Bad Request',
          detail: 'The Content-Type header appears on more than one line (header names are case-insensitive); send it once.',
        }),
      });
    }
  });

  const contentCodingRefused = {
    status: 415,
    headers: problemHeaders('json', { 'accept-encoding': 'identity' }),
    body: problem({
      status: 415,
      title: 'Unsupported Media Type',
      detail: 'The body is encoded with "gzip", which this API does not decode; send it without a content coding.',
    }),
  };
  test.each([
    ['a gzip-labelled body that is not gzip', '{"Name":"Labelled"}'],
    ['a real gzip body', gzipSync('{"Name":"Compressed"}')],
  ])('%s: 415 with Accept-Encoding: identity, nothing stored', async (_name, body) => {
    await expectRefusedWithoutChange(
      () => save(token, body, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }),
      contentCodingRefused,
    );
  });

  test("a 60 KB Authorization header: the gateway's 413 problem, nothing stored", async () => {
    await expectRefusedWithoutChange(() => save(`${token}${'a'.repeat(60 * 1024)}`, { Name: 'Oversized token' }), {
      status: 413,
      headers: gatewayProblemHeaders(),
      body: problem({ status: 413, title: 'Content Too Large' }),
    });
  });

  test('Accept: image/png: 406 before any work (a valid Save writes nothing)', async () => {
    const notAcceptable = {
      status: 406,
      body: problem({
        status: 406,
        title: 'Not Acceptable',
        detail: 'This operation can answer with: application/json, text/json, application/xml, text/xml.',
      }),
    };
    await expectRefusedWithoutChange(() => save(token, { Name: 'Png' }, { Accept: 'image/png' }), notAcceptable);
    await expectRefusedWithoutChange(() => get(token, existing.ID, { Accept: 'image/png' }), notAcceptable);
    await expectRefusedWithoutChange(() => remove(token, existing.ID, { Accept: 'image/png' }), notAcceptable);
    await expectRefusedWithoutChange(() => get(token, existing.ID, { Accept: 'application/json;q=0, text/*;q=0' }), notAcceptable);
  });
});

describe('reserved keys (__proto__, constructor, prototype): 400, and the server stays unpolluted', () => {
  const json = (body: string): Send => saveRaw(body, 'application/json');
  const xml = (inner: string): Send => saveRaw(`<TenantLocationInfo><Name>Polluter</Name>${inner}</TenantLocationInfo>`, 'application/xml');
  const form = (body: string): Send => saveRaw(`Name=Polluter&${body}`, 'application/x-www-form-urlencoded');
  const cases: [string, Send, string][] = [
    ['JSON __proto__', json('{"Name":"Polluter","__proto__":{"Description":"polluted","IsDefault":true}}'), '/__proto__'],
    ['JSON constructor.prototype', json('{"Name":"Polluter","constructor":{"prototype":{"Phone":"polluted"}}}'), '/constructor'],
    ['JSON prototype', json('{"Name":"Polluter","prototype":{"Phone":"polluted"}}'), '/prototype'],
    ['JSON Address.__proto__', json('{"Name":"Polluter","Address":{"__proto__":{"IsDefaultBilling":true}}}'), '/Address/__proto__'],
    ['text/json __proto__', () => save(token, '{"__proto__":{"Statuses":[1]},"Name":"Polluter"}', { 'Content-Type': 'text/json' }), '/__proto__'],
    ['XML <__proto__>', xml('<__proto__><Description>polluted</Description></__proto__>'), '/__proto__'],
    ['XML <constructor><prototype>', xml('<constructor><prototype><Phone>polluted</Phone></prototype></constructor>'), '/constructor'],
    ['XML <prototype> in Address', xml('<Address><prototype><City>polluted</City></prototype></Address>'), '/Address/prototype'],
    ['XML namespaced <x:__proto__>', xml('<x:__proto__ xmlns:x="urn:x"><Description>polluted</Description></x:__proto__>'), '/__proto__'],
    ['form __proto__[Description]', form('__proto__[Description]=polluted'), '/__proto__'],
    ['form __proto__.Phone', form('__proto__.Phone=polluted'), '/__proto__'],
    ['form constructor[prototype][Phone]', form('constructor[prototype][Phone]=polluted'), '/constructor'],
    // Pointed at where it is, as the JSON body's Address.__proto__ is.
    ['form Address[__proto__][City]', form('Address[__proto__][City]=polluted'), '/Address/__proto__'],
    ['form prototype', form('prototype=polluted'), '/prototype'],
    ['form percent-encoded __proto__', form('%5F%5Fproto%5F%5F%5BDescription%5D=polluted'), '/__proto__'],
  ];

  test.each(cases)('%s', async (_name, send, pointer) => {
    await expectRefusedWithoutChange(send, { status: 400, body: reservedKeyProblem(pointer) });
  });

  test('in GetByName and Search bodies too', async () => {
    await expectRefusedWithoutChange(() => getByName(token, '{"SearchString":"E","__proto__":{"IsExactMatch":true}}', { 'Content-Type': 'application/json' }), {
      status: 400,
      body: reservedKeyProblem('/__proto__'),
    });
    await expectRefusedWithoutChange(() => search(token, 'constructor[prototype][Statuses]=1', { 'Content-Type': 'application/x-www-form-urlencoded' }), {
      status: 400,
      body: reservedKeyProblem('/constructor'),
    });
  });

  test('afterwards, records are built without inherited fields: nothing reveals a polluted Object.prototype', async () => {
    // Each attempt above named Description, Phone, IsDefault, Statuses, City or IsExactMatch. Had any reached
    // Object.prototype, a Save without them would inherit them, and every Search would be refused for Statuses.
    const created = await save(token, { Name: 'Clean' });
    expect(viewOf(created).body).toEqual(expectedLocation({ Name: 'Clean' }, { id: created.json.ID, tenant }));
    expect(Object.keys(created.json).sort()).toEqual(
      ['CreatedByUserID', 'CreatedDateTime_utc', 'ID', 'IsActive', 'IsDefault', 'ModifiedByUserID', 'ModifiedDateTime_utc', 'Name', 'TenantID', 'TenantLocationID', 'UserID', 'Version', 'WebsiteID'],
    );
    expect((await get(token, existing.ID)).json).toEqual(existing);
    const searched = await search(token, {});
    expect(searched.status).toBe(200);
    expect(searched.json.Value.map((row) => row.Name)).toEqual(['Clean', 'Existing']);
    expect((await getByName(token, { SearchString: 'cle' })).json).toEqual(created.json);
    const updated = await save(token, { ID: existing.ID, Name: existing.Name, Version: existing.Version });
    expect(updated.json).toEqual({ ...existing, Version: existing.Version + 1, ModifiedDateTime_utc: expect.any(String) });
  });
});
