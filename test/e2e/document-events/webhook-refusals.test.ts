// End to end: every way the webhook refuses an event (401 signature, 400 fields, 406/415 media types, 413 size), each
// with its whole problem response, and proof that nothing refused reached the queue: the documents the refused events
// name never appear, the consumer never logs their event ids, and no signature sent shows up in a response or in
// the stack's log.
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { documentEventsQueue } from '#shared/events/queues';
import {
  digestsOf,
  freshDocumentId,
  freshOrganisationId,
  idOf,
  nowSeconds,
  providerEvent,
  signed,
  type ProviderEvent,
} from '#test/support/document-events';
import {
  documentWhen,
  getDocument,
  postWebhook,
  problem,
  problemHeaders,
  problemType,
  queueDrained,
  readStackLog,
  validationProblem,
  viewOf,
  type ResponseView,
} from '#test/support/document-events-http';
import { tokenFor } from '#test/support/http';

const organisationId = freshOrganisationId();
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: 1, organisation: organisationId });
});

/** What every refusal left behind, checked once all of them are in (the last test of the file). */
const refused = {
  /** Documents a refused event named: none may ever exist. */
  documentIds: [] as string[],
  /** Ids of the refused events: the consumer must never log one. */
  eventIds: [] as string[],
  /** Every v1 digest sent: never in a response, never in the log. */
  digests: [] as string[],
  requestIds: [] as string[],
};

/** A distinct event of a document of its own, remembered as one that must never appear. */
const event = (): ProviderEvent => {
  const documentId = freshDocumentId('refused');
  refused.documentIds.push(documentId);
  return providerEvent('document.uploaded', { organisationId, documentId, object: { marker: randomUUID() } });
};

/** Posts a body and returns the whole response; remembers what must not leak or be applied. */
const post = async (body: unknown, headers: Record<string, string> = {}): Promise<ResponseView> => {
  const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('latin1') : JSON.stringify(body);
  const signatures = [...text.matchAll(/v1=([0-9a-f]{64})/g)].map((match) => match[1] as string);
  refused.digests.push(...signatures);
  const response = await postWebhook(body, headers);
  for (const digest of signatures) expect(response.text).not.toContain(digest);
  refused.requestIds.push(response.headers.get('x-request-id') ?? '');
  return viewOf(response);
};

const signatureProblem = (reason: string) => ({
  status: 401,
  headers: problemHeaders('json', { 'www-authenticate': 'Signature realm="webhook"' }),
  body: problem(401, 'Unauthorized', `The event signature is not valid: ${reason}.`),
});

const invalid = (...pointers: string[]) => ({
  status: 400,
  headers: problemHeaders(),
  body: validationProblem(pointers.map((pointer) => ({ pointer, detail: expect.any(String) }))),
});

describe('a signature that does not verify is a 401', () => {
  it('for a body changed after signing', async () => {
    const original = event();
    const tampered = { ...signed(original), type: 'document.processed' };
    refused.eventIds.push(idOf(tampered));

    expect(await post(tampered)).toEqual(signatureProblem('no signature matches an active secret'));
  });

  it('for a signature made with another secret', async () => {
    const sent = signed(event(), { secret: 'whsec_not_the_stack_secret_0123456789' });
    refused.eventIds.push(idOf(sent));

    expect(await post(sent)).toEqual(signatureProblem('no signature matches an active secret'));
  });

  it('for a t more than 300 s old', async () => {
    const sent = signed(event(), { t: nowSeconds() - 301 });
    refused.eventIds.push(idOf(sent));

    expect(await post(sent)).toEqual(signatureProblem('timestamp is too old'));
  });

  it('for a t more than 300 s ahead', async () => {
    // now + 301, plus one second in case the server's clock reads the next second by the time the request arrives.
    const sent = signed(event(), { t: nowSeconds() + 302 });
    refused.eventIds.push(idOf(sent));

    expect(await post(sent)).toEqual(signatureProblem('timestamp is in the future'));
  });

  it('for an event no signature can cover: a lone surrogate, which RFC 8785 cannot canonicalise', async () => {
    const original = event();
    const withLoneSurrogate = { ...original, data: { object: { ...original.data.object, note: 'broken \ud800 text' } } };
    const sent = JSON.stringify({ ...withLoneSurrogate, signature: `t=${nowSeconds()},v1=${randomBytes(32).toString('hex')}` });
    expect(sent).toContain('\\ud800');

    expect(await post(sent)).toEqual(signatureProblem('event cannot be canonicalised'));
  });

  it.each([
    ['a digest that is not lowercase hex', (t: number) => `t=${t},v1=${'Z'.repeat(64)}`, 'malformed v1 digest'],
    ['no timestamp', () => `v1=${'a'.repeat(64)}`, 'missing timestamp'],
    ['no v1 entry', (t: number) => `t=${t},v0=${'a'.repeat(64)}`, 'missing v1 digest'],
    ['no key=value shape', () => 'not-a-signature', 'malformed signature entry'],
  ])('for a malformed signature string (%s)', async (_label, signature, reason) => {
    const sent = { ...event(), signature: signature(nowSeconds()) };
    refused.eventIds.push(idOf(sent));

    expect(await post(sent)).toEqual(signatureProblem(reason));
  });
});

describe('a body without the fields we read is a 400 naming them', () => {
  it('without a signature', async () => {
    const unsigned = event();
    refused.eventIds.push(idOf(unsigned));

    expect(await post(unsigned)).toEqual(invalid('/signature'));
  });

  it.each([
    ['type', '/type', ({ type: _, ...rest }: ProviderEvent) => rest],
    ['userId', '/userId', ({ userId: _, ...rest }: ProviderEvent) => rest],
    ['organisationId', '/organisationId', ({ organisationId: _, ...rest }: ProviderEvent) => rest],
    ['data.object.id', '/data/object/id', ({ data, ...rest }: ProviderEvent) => ({ ...rest, data: { object: { marker: data.object.marker } } })],
  ])('without %s (even when signed)', async (_field, pointer, remove) => {
    const incomplete = remove(event()) as unknown as ProviderEvent;
    const sent = signed(incomplete);
    refused.eventIds.push(idOf(sent));

    expect(await post(sent)).toEqual(invalid(pointer));
  });

  it('with an organisationId holding "#" (a separator of our keys), even when signed', async () => {
    const sent = signed({ ...event(), organisationId: `${organisationId}#DOC#x` });
    refused.eventIds.push(idOf(sent));

    expect(await post(sent)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ pointer: '/organisationId', detail: 'must be printable text without "#"' }]),
    });
  });
});

describe('a body we cannot read is refused before its signature is looked at', () => {
  const unsupportedMediaType = {
    status: 415,
    headers: problemHeaders('json', { 'accept-post': 'application/json' }),
    body: problem(415, 'Unsupported Media Type', 'Send the body as one of: application/json.'),
  };

  it('malformed JSON is a 400', async () => {
    const text = JSON.stringify(signed(event()));
    const sent = text.slice(0, -1);

    expect(await post(sent)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: problem(400, 'Malformed request body', 'The body is not valid JSON.', { type: problemType('malformed-body') }),
    });
  });

  it.each([
    ['type at the top level', '/type', (json: string) => `{"type":"document.processed",${json.slice(1)}`],
    ['a member of data.object', '/data/object/id', (json: string) => json.replace('"object":{', '"object":{"id":"another-document",')],
    ['the signature', '/signature', (json: string) => `${json.slice(0, -1)},"signature":"t=1,v1=${'0'.repeat(64)}"}`],
  ])('a repeated member (%s) is a 400 naming it, even when the last one makes the signature verify', async (_where, pointer, inject) => {
    // JSON.parse keeps the last member, which is the signed one: without the check this body would be queued.
    const sent = inject(JSON.stringify(signed(event())));

    expect(await post(sent)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem(
        [{ pointer, detail: 'repeats a member name of the same object; each member may appear once' }],
        'The body repeats a member name.',
      ),
    });
  });

  it.each([
    ['at the top level', '/__proto__', (json: string) => `{"__proto__":{"polluted":true},${json.slice(1)}`],
    ['inside data.object', '/data/object/__proto__', (json: string) => json.replace('"object":{', '"object":{"__proto__":{"polluted":true},')],
  ])('a __proto__ key %s is a 400, even when signed', async (_where, pointer, inject) => {
    // Signed over the event as sent (with its __proto__ member), so only the reserved key is wrong.
    const parsed = JSON.parse(inject(JSON.stringify(event()))) as ProviderEvent;
    const sent = JSON.stringify(signed(parsed));
    expect(sent).toContain('"__proto__"');

    expect(await post(sent)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ pointer, detail: 'this key is not allowed' }], 'The body uses a reserved key.'),
    });
  });

  it.each([
    ['a magnitude below 1e-130', '1e-300'],
    ['an integer past 2^53', '12345678901234567890'],
    ['more digits than a double holds', '0.1000000000000000000000000000000000000001'],
  ])('a number in data.object DynamoDB cannot store as sent (%s) is a 400 naming it', async (_case, number) => {
    const sent = JSON.stringify(signed(event())).replace('"object":{', `"object":{"reading":${number},`);
    expect(sent).toContain(`"reading":${number}`);

    expect(await post(sent)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem(
        [{ pointer: '/data/object/reading', detail: expect.any(String) }],
        'The body has numbers that cannot be stored exactly as sent; see errors for each.',
      ),
    });
  });

  it('an empty body is a 400', async () => {
    expect(await post('')).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ pointer: '', detail: 'a request body is required' }], 'A request body is required.'),
    });
  });

  it.each(['application/xml', 'application/x-www-form-urlencoded', 'text/plain', 'application/json; charset=utf-16'])(
    'a body sent as %s is a 415, even when it is a valid signed event',
    async (contentType) => {
      const sent = signed(event());
      refused.eventIds.push(idOf(sent));

      expect(await post(JSON.stringify(sent), { 'Content-Type': contentType })).toEqual(unsupportedMediaType);
    },
  );

  it('a body that is not UTF-8 is a 400 malformed-body, even a signed event (café sent in Latin-1), and never read as U+FFFD', async () => {
    const documentId = freshDocumentId('refused');
    refused.documentIds.push(documentId);
    const sent = signed(providerEvent('document.uploaded', { organisationId, documentId, object: { marker: randomUUID(), note: 'café' } }));
    refused.eventIds.push(idOf(sent));

    expect(await post(Buffer.from(JSON.stringify(sent), 'latin1'), { 'Content-Type': 'application/json' })).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: problem(400, 'Malformed request body', 'The body is not valid UTF-8: send its text encoded in UTF-8.', { type: problemType('malformed-body') }),
    });
  });

  it('an XML body is a 415', async () => {
    const xml = '<?xml version="1.0"?><WebhookEventRequest><type>document.uploaded</type></WebhookEventRequest>';

    expect(await post(xml, { 'Content-Type': 'application/xml' })).toEqual(unsupportedMediaType);
  });

  it('asking for an XML answer is a 406, even for a valid signed event', async () => {
    const sent = signed(event());
    refused.eventIds.push(idOf(sent));

    expect(await post(sent, { Accept: 'application/xml' })).toEqual({
      status: 406,
      headers: problemHeaders(),
      body: problem(406, 'Not Acceptable', 'This operation can answer with: application/json.'),
    });
  });

  it('a body over 256 KiB is a 413, even for a valid signed event', async () => {
    const big = providerEvent('document.processed', {
      organisationId,
      documentId: event().data.object.id,
      object: { text: 'x'.repeat(documentEventsQueue.maximumMessageBytes) },
    });
    const sent = signed(big);
    refused.eventIds.push(idOf(sent));

    expect(await post(sent)).toEqual({
      status: 413,
      headers: problemHeaders(),
      body: problem(413, 'Content Too Large', `The request body exceeds ${documentEventsQueue.maximumMessageBytes} bytes.`),
    });
  });

  it('a body under 256 KiB whose queued message would be over it is a 413 too (not a 503 the provider would retry)', async () => {
    // The queued message drops the signature but adds the event id, t and receivedAt: some 45 bytes more than the body.
    const limit = documentEventsQueue.maximumMessageBytes;
    const documentId = freshDocumentId('refused');
    refused.documentIds.push(documentId);
    const padded = (length: number) => signed(providerEvent('document.processed', { organisationId, documentId, object: { text: 'x'.repeat(length) } }));
    const sent = padded(limit - 8 - JSON.stringify(padded(0)).length);
    refused.eventIds.push(idOf(sent));
    const bytes = Buffer.byteLength(JSON.stringify(sent));
    expect(bytes).toBeLessThanOrEqual(limit);
    expect(bytes).toBeGreaterThan(limit - 64);

    expect(await post(sent)).toEqual({
      status: 413,
      headers: problemHeaders(),
      // The detail speaks of the body although the queued message is what exceeds the limit here.
      body: problem(413, 'Content Too Large', expect.stringContaining(`${limit} bytes`)),
    });
  });
});

// Runs last (jest runs a file's tests in declaration order), once every refusal above is in.
describe('after all the refusals above', () => {
  it('nothing refused was enqueued, and no signature was logged', async () => {
    expect(refused.requestIds).not.toHaveLength(0);
    // After an accepted event has gone through and the queue is empty, none of the refused documents exists and the
    // consumer logged none of the refused event ids.
    const sentinel = providerEvent('document.uploaded', { organisationId, documentId: freshDocumentId('sentinel') });
    const accepted = signed(sentinel);
    refused.digests.push(...digestsOf(accepted.signature));
    const response = await postWebhook(accepted);
    expect(response.status).toBe(202);
    refused.requestIds.push(response.headers.get('x-request-id') ?? '');
    await documentWhen(sentinel.data.object.id, token, () => true, 'the accepted sentinel event');
    await queueDrained();

    const statuses = await Promise.all(refused.documentIds.map(async (documentId) => (await getDocument(documentId, token)).status));
    expect(statuses).toEqual(refused.documentIds.map(() => 404));

    // The stack's log has every request above and the consumer's line for the sentinel; never a signature.
    const log = await readStackLog([...refused.requestIds, idOf(sentinel)]);
    expect(refused.digests.filter((digest) => log.text.includes(digest))).toEqual([]);
    expect(refused.eventIds.filter((eventId) => log.text.includes(eventId))).toEqual([]);
    expect(log.ours).toBe(true);
  }, 40_000);
});
