// End to end: signed provider events posted to the webhook over HTTP, carried by the SQS server and the emulated event
// source mapping to the consumer, and read back through the read endpoint. Arrival order, duplicates and a provider's
// retry with a fresh `t` must not matter: the document ends in the in-order state, each event counted once.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { documentEventsQueue } from '#shared/events/queues';
import {
  freshDocumentId,
  freshOrganisationId,
  idOf,
  isoOf,
  nowSeconds,
  providerEvent,
  signed,
  type ProviderEvent,
} from '#test/support/document-events';
import { documentWhen, getDocument, isoPattern, jsonHeaders, postWebhook, queueDrained, viewOf } from '#test/support/document-events-http';
import { tokenFor } from '#test/support/http';

const organisationId = freshOrganisationId();
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: 1, organisation: organisationId });
});

const accepted = (event: ProviderEvent) => ({
  status: 202,
  headers: jsonHeaders(),
  body: { eventId: idOf(event), status: 'queued' },
});

const historyEntry = (event: ProviderEvent, t: number) => ({
  EventID: idOf(event),
  Type: event.type,
  Timestamp: t,
  DateTime_utc: isoOf(t),
  ReceivedDateTime_utc: expect.stringMatching(isoPattern),
});

describe('a document whose events arrive out of order, twice, and retried', () => {
  const documentId = freshDocumentId('flow');
  // Within the 300 s tolerance, in the past so the retry's fresh t is the latest of all.
  const t0 = nowSeconds() - 120;
  const uploaded = providerEvent('document.uploaded', { organisationId, documentId, userId: 'uploader', object: { name: 'contract.pdf' } });
  const halfway = providerEvent('document.processing', { organisationId, documentId, userId: 'analyser', object: { progress: 50 } });
  const almost = providerEvent('document.processing', { organisationId, documentId, userId: 'analyser', object: { progress: 90 } });
  const processed = providerEvent('document.processed', { organisationId, documentId, userId: 'analyser', object: { pages: 12, language: 'en' } });
  const times = new Map<ProviderEvent, number>([
    [uploaded, t0],
    [halfway, t0 + 10],
    [almost, t0 + 20],
    [processed, t0 + 30],
  ]);
  const signedAt = (event: ProviderEvent) => signed(event, { t: times.get(event) as number });

  const expectedView = () => ({
    OrganisationID: organisationId,
    DocumentID: documentId,
    State: 'Processed',
    StateEventType: 'document.processed',
    StateEventID: idOf(processed),
    UserID: 'analyser',
    Object: { id: documentId, pages: 12, language: 'en' },
    FirstEventDateTime_utc: isoOf(t0),
    LastEventDateTime_utc: isoOf(t0 + 30),
    EventCount: 4,
    Version: 4,
    Events: [processed, almost, halfway, uploaded].map((event) => historyEntry(event, times.get(event) as number)),
  });

  it('answers 202 with the event id for each post, and ends in the in-order state', async () => {
    const arrivals = [processed, halfway, processed, uploaded, almost, halfway];

    const responses = [];
    for (const event of arrivals) responses.push(viewOf(await postWebhook(signedAt(event))));

    expect(responses).toEqual(arrivals.map(accepted));
    await documentWhen(documentId, token, (view) => view.EventCount >= 4, 'four events applied');
    expect(viewOf(await getDocument(documentId, token))).toEqual({
      status: 200,
      headers: jsonHeaders({ vary: 'Accept' }),
      body: expectedView(),
    });
  });

  it('applies a provider retry with a fresh t as the same event, once', async () => {
    // The first delivery was applied (previous test); the retry is the same event id with a later t.
    const retry = signed(almost, { t: nowSeconds() });
    expect(retry.signature).not.toBe(signedAt(almost).signature);

    expect(viewOf(await postWebhook(retry))).toEqual(accepted(almost));

    // Once the queue is empty the consumer has taken the retry; it changed nothing (not even the event's t).
    await queueDrained();
    expect(viewOf(await getDocument(documentId, token))).toEqual({
      status: 200,
      headers: jsonHeaders({ vary: 'Accept' }),
      body: expectedView(),
    });
  });
});

describe('events of an unknown type', () => {
  it('are listed in the history and counted without changing the state', async () => {
    const documentId = freshDocumentId('unknown-type');
    const t = nowSeconds() - 60;
    const uploaded = providerEvent('document.uploaded', { organisationId, documentId, userId: 'uploader' });
    const tagged = providerEvent('document.tagged', { organisationId, documentId, userId: 'tagger', object: { tags: ['invoice'] } });

    expect((await postWebhook(signed(uploaded, { t }))).status).toBe(202);
    expect((await postWebhook(signed(tagged, { t: t + 5 }))).status).toBe(202);

    const view = await documentWhen(documentId, token, (candidate) => candidate.EventCount >= 2, 'both events applied');
    expect(view).toEqual({
      OrganisationID: organisationId,
      DocumentID: documentId,
      State: 'Uploaded',
      StateEventType: 'document.uploaded',
      StateEventID: idOf(uploaded),
      UserID: 'uploader',
      Object: { id: documentId },
      FirstEventDateTime_utc: isoOf(t),
      LastEventDateTime_utc: isoOf(t + 5),
      EventCount: 2,
      Version: 2,
      Events: [historyEntry(tagged, t + 5), historyEntry(uploaded, t)],
    });
  });
});

describe('an event with text beyond ASCII', () => {
  it('verifies over the bytes sent (the gateway hands them over base64-encoded) and is applied with its text intact', async () => {
    const documentId = freshDocumentId('non-ascii');
    const title = 'Café – Zürich ✓ 😀';
    const uploaded = signed(providerEvent('document.uploaded', { organisationId, documentId, object: { title } }));

    const response = await postWebhook(Buffer.from(JSON.stringify(uploaded), 'utf8'), { 'Content-Type': 'application/json' });

    expect(viewOf(response)).toEqual(accepted(uploaded));
    const view = await documentWhen(documentId, token, (candidate) => candidate.EventCount >= 1, 'the event applied');
    expect(view.Object).toEqual({ id: documentId, title });
  });
});

describe('a large event', () => {
  it('is queued and applied whole when its queued message fits in an SQS message', async () => {
    const documentId = freshDocumentId('large');
    const limit = documentEventsQueue.maximumMessageBytes;
    const padded = (length: number) => providerEvent('document.processed', { organisationId, documentId, object: { text: 'x'.repeat(length) } });
    // Room for what the queued message adds to the event (event id, t, receivedAt: under 200 bytes).
    const large = padded(limit - 200 - JSON.stringify(padded(0)).length);
    const sent = signed(large);

    expect(viewOf(await postWebhook(sent))).toEqual(accepted(large));

    const view = await documentWhen(documentId, token, () => true, 'the large event applied');
    expect(view.Object).toEqual(large.data.object);
    expect(view).toMatchObject({ State: 'Processed', EventCount: 1, Version: 1 });
  });
});
