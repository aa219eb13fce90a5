// End to end: GET /Platform/DocumentAnalyser/Documents/{documentId}. A document is shown only to a token of its own
// organisation (anything else is a 404, never a 403 that would confirm it exists), in JSON or XML, and its id may
// hold any printable character but "#" once percent-encoded.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { freshDocumentId, freshOrganisationId, idOf, isoOf, nowSeconds, providerEvent, signed } from '#test/support/document-events';
import {
  documentWhen,
  getDocument,
  isoPattern,
  jsonHeaders,
  parseDocumentXml,
  postWebhook,
  problem,
  problemHeaders,
  securityHeaders,
  uuidPattern,
  validationProblem,
  viewOf,
} from '#test/support/document-events-http';
import { tokenFor } from '#test/support/http';

const organisationId = freshOrganisationId();
// Printable, no "#": spaces, reserved URL and XML characters, a percent sign, quotes and non-ASCII letters.
const oddDocumentId = `${freshDocumentId('odd')} ä漢 +&?=;:@!$'()*,"%~<b>.pdf`;
const plainDocumentId = freshDocumentId('plain');
let token: string;
const t = nowSeconds();

beforeAll(async () => {
  token = await tokenFor({ tenant: 1, organisation: organisationId });
  for (const documentId of [oddDocumentId, plainDocumentId]) {
    const event = providerEvent('document.uploaded', { organisationId, documentId, userId: 'uploader' });
    expect((await postWebhook(signed(event, { t }))).status).toBe(202);
  }
  await documentWhen(oddDocumentId, token, () => true, 'the odd document');
  await documentWhen(plainDocumentId, token, () => true, 'the plain document');
});

const notFound = {
  status: 404,
  headers: problemHeaders(),
  body: problem(404, 'Not Found', 'No document of your organisation has this id.'),
};

describe('a document of the caller\'s organisation', () => {
  it('is found by its percent-encoded id, however odd', async () => {
    const uploadedId = idOf(providerEvent('document.uploaded', { organisationId, documentId: oddDocumentId, userId: 'uploader' }));

    expect(viewOf(await getDocument(oddDocumentId, token))).toEqual({
      status: 200,
      headers: jsonHeaders({ vary: 'Accept' }),
      body: {
        OrganisationID: organisationId,
        DocumentID: oddDocumentId,
        State: 'Uploaded',
        StateEventType: 'document.uploaded',
        StateEventID: uploadedId,
        UserID: 'uploader',
        Object: { id: oddDocumentId },
        FirstEventDateTime_utc: isoOf(t),
        LastEventDateTime_utc: isoOf(t),
        EventCount: 1,
        Version: 1,
        Events: [{ EventID: uploadedId, Type: 'document.uploaded', Timestamp: t, DateTime_utc: isoOf(t), ReceivedDateTime_utc: expect.stringMatching(isoPattern) }],
      },
    });
  });

  it('is answered in XML when the client asks for it, with the same content as the JSON answer', async () => {
    const json = await getDocument(oddDocumentId, token);

    const xml = await getDocument(oddDocumentId, token, { Accept: 'application/xml' });

    expect(viewOf(xml)).toEqual({
      status: 200,
      headers: { 'content-type': 'application/xml; charset=utf-8', vary: 'Accept', ...securityHeaders, 'x-request-id': expect.stringMatching(uuidPattern) },
      body: expect.stringMatching(/^<\?xml[^>]*\?><DocumentState[\s>]/),
    });
    expect(parseDocumentXml(xml.text)).toEqual(json.json);
  });

  // The provider's data.object is free-form: its member names need not be XML names (this answered 500).
  it('is answered in XML even when its Object has member names that are not XML names, escaped as .NET does', async () => {
    const documentId = freshDocumentId('names');
    const object = { 'page count': 3, '1st': 'a', 'a:b': true, 'ünï': 'ok' };
    const event = providerEvent('document.uploaded', { organisationId, documentId, userId: 'uploader', object });
    expect((await postWebhook(signed(event))).status).toBe(202);
    await documentWhen(documentId, token, () => true, 'the document with odd member names');

    const xml = await getDocument(documentId, token, { Accept: 'application/xml' });

    expect(xml.status).toBe(200);
    expect(xml.text).toContain(
      `<Object><_x0031_st>a</_x0031_st><a_x003A_b>true</a_x003A_b><id>${documentId}</id><page_x0020_count>3</page_x0020_count><ünï>ok</ünï></Object>`,
    );
  });
});

// data.object is the provider's, with keys of its choosing: an XML answer encodes the keys that cannot be element
// names as .NET's XmlConvert does (`_xHHHH_`; letters such as ß are name characters and stay). It answered 500 before.
it('answers in XML a document whose data.object has keys that are no element names', async () => {
  const documentId = freshDocumentId('keys');
  const object = { 'page count': 3, '1st': 'a', 'a<b>': { '': 'empty', 'x:y': [1, 2] }, straße: 'ß' };
  const event = providerEvent('document.uploaded', { organisationId, documentId, object });
  expect((await postWebhook(signed(event, { t }))).status).toBe(202);
  await documentWhen(documentId, token, () => true, 'the document with odd keys');

  const xml = await getDocument(documentId, token, { Accept: 'application/xml' });

  expect(viewOf(xml)).toEqual({
    status: 200,
    headers: { 'content-type': 'application/xml; charset=utf-8', vary: 'Accept', ...securityHeaders, 'x-request-id': expect.stringMatching(uuidPattern) },
    body: expect.stringMatching(/^<\?xml[^>]*\?><DocumentState[\s>]/),
  });
  expect(xml.text).toContain(
    `<Object><_x0031_st>a</_x0031_st><a_x003C_b_x003E_><_x0000_>empty</_x0000_><x_x003A_y>1</x_x003A_y><x_x003A_y>2</x_x003A_y></a_x003C_b_x003E_>` +
      `<id>${documentId}</id><page_x0020_count>3</page_x0020_count><straße>ß</straße></Object>`,
  );
});

describe('any other document', () => {
  it('is a 404 when nobody has that id', async () => {
    expect(viewOf(await getDocument(freshDocumentId('unknown'), token))).toEqual(notFound);
  });

  it('is a 404 for a token of another organisation, even though the id exists', async () => {
    const otherOrganisation = await tokenFor({ tenant: 1, organisation: freshOrganisationId() });

    expect(viewOf(await getDocument(plainDocumentId, otherOrganisation))).toEqual(notFound);
  });

  it('is a 404 for a token without an organisation', async () => {
    const noOrganisation = await tokenFor({ tenant: 1 });

    expect(viewOf(await getDocument(plainDocumentId, noOrganisation))).toEqual(notFound);
  });

  it('is a 404 in XML when the client prefers XML', async () => {
    const response = await getDocument(freshDocumentId('unknown'), token, { Accept: 'application/xml' });

    expect(viewOf(response)).toEqual({ status: 404, headers: problemHeaders('xml'), body: expect.stringContaining('<status>404</status>') });
  });
});

describe('an invalid document id', () => {
  it.each([
    ['containing "#"', 'bad#id', 'must be printable text without "#"'],
    ['over 256 characters', 'x'.repeat(257), 'must be at most 256 characters'],
    ['with a control character', 'bad\u0001id', 'must be printable text without "#"'],
  ])('%s is a 400 naming the parameter', async (_label, documentId, detail) => {
    expect(viewOf(await getDocument(documentId, token))).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ parameter: 'documentId', detail }]),
    });
  });
});
