// Unit tests of the document-events service's consumer and read sides over the in-memory document store
// (test/stores/document-events/memory-document-store.ts, held to the DynamoDB repository by the store's contract
// suite): a queued event applied once as the event the state rules read, lost races retried until the policy gives
// up (StateContention, the consumer retries the message), and a document shown to its own organisation only.
import { describe, expect, it } from '@jest/globals';
import { optimisticRetryPolicy, queuedWriteRetryPolicy } from '#shared/data/retry';
import { createDocumentEventsService } from '#shared/document-events/service';
import { ConcurrentModification } from '#shared/errors';
import type { QueuedDocumentEvent } from '#shared/schemas/messages/document-events';
import { createMemoryDocumentStore } from '#test/stores/document-events/memory-document-store';
import { freshDocument, idOf, providerEvent, type ProviderEvent } from '#test/support/document-events';

const t0 = 1_767_225_600;
const receivedAt = '2026-01-02T03:04:05.000Z';

/** The message the webhook enqueues for a provider event signed at `t`. */
const queued = (event: ProviderEvent, t: number): QueuedDocumentEvent => ({ eventId: idOf(event), t, receivedAt, event: event as QueuedDocumentEvent['event'] });

const serviceOver = () => {
  const memory = createMemoryDocumentStore();
  return { ...memory, service: createDocumentEventsService({ store: memory.store }) };
};

describe('applying a queued event', () => {
  it('applies the event the message carries once (document from data.object.id, its object as canonical JSON); a redelivery is a duplicate', async () => {
    const { service, store, snapshot } = serviceOver();
    const doc = freshDocument();
    const event = providerEvent('document.processed', { ...doc, userId: 'analyser', object: { pages: 3, name: 'a.pdf' } });

    const first = await service.apply(queued(event, t0));
    const before = snapshot();
    const again = await service.apply(queued(event, t0 + 60));

    expect({ first, again, unchanged: snapshot() }).toEqual({ first: 'applied', again: 'duplicate', unchanged: before });
    expect(await store.getState(doc.organisationId, doc.documentId)).toMatchObject({
      state: 'Processed',
      stateEvent: { eventId: idOf(event), t: t0, type: 'document.processed' },
      objectJson: `{"id":"${doc.documentId}","name":"a.pdf","pages":3}`,
      userId: 'analyser',
      eventCount: 1,
    });
  });

  it('retries a lost race from the read, and gives up with StateContention when every attempt lost, writing nothing', async () => {
    const { service, failNextWrites, snapshot } = serviceOver();
    const doc = freshDocument();
    failNextWrites(new ConcurrentModification(), new ConcurrentModification());
    const retried = await service.apply(queued(providerEvent('document.uploaded', doc), t0));
    const before = snapshot();
    failNextWrites(...Array.from({ length: queuedWriteRetryPolicy.maxAttempts }, () => new ConcurrentModification()));

    await expect(service.apply(queued(providerEvent('document.processing', doc), t0 + 5))).rejects.toMatchObject({ name: 'StateContention' });
    expect({ retried, unchanged: snapshot() }).toEqual({ retried: 'applied', unchanged: before });
  });

  it("outlasts an API write's ten lost races: no caller waits on a queued event, so it keeps trying (queuedWriteRetryPolicy)", async () => {
    const { service, failNextWrites } = serviceOver();
    failNextWrites(...Array.from({ length: optimisticRetryPolicy.maxAttempts }, () => new ConcurrentModification()));

    await expect(service.apply(queued(providerEvent('document.uploaded', freshDocument()), t0))).resolves.toBe('applied');
  });
});

describe('reading a document', () => {
  it('shows the state, its event, object and times, and the history newest first', async () => {
    const { service } = serviceOver();
    const doc = freshDocument();
    const uploaded = providerEvent('document.uploaded', { ...doc, userId: 'uploader', object: { name: 'a.pdf' } });
    const archived = providerEvent('document.archived', { ...doc, userId: 'archiver' });
    await service.apply(queued(uploaded, t0));
    await service.apply(queued(archived, t0 + 60));

    expect(await service.get({ tenantId: 1, websiteId: 1, userId: 3, organisationId: doc.organisationId }, doc.documentId)).toEqual({
      OrganisationID: doc.organisationId,
      DocumentID: doc.documentId,
      State: 'Uploaded',
      StateEventType: 'document.uploaded',
      StateEventID: idOf(uploaded),
      UserID: 'uploader',
      Object: { id: doc.documentId, name: 'a.pdf' },
      FirstEventDateTime_utc: new Date(t0 * 1000).toISOString(),
      LastEventDateTime_utc: new Date((t0 + 60) * 1000).toISOString(),
      EventCount: 2,
      Version: 2,
      Events: [
        { EventID: idOf(archived), Type: 'document.archived', Timestamp: t0 + 60, DateTime_utc: new Date((t0 + 60) * 1000).toISOString(), ReceivedDateTime_utc: receivedAt },
        { EventID: idOf(uploaded), Type: 'document.uploaded', Timestamp: t0, DateTime_utc: new Date(t0 * 1000).toISOString(), ReceivedDateTime_utc: receivedAt },
      ],
    });
  });

  it('answers 404 for another organisation’s document, a caller without an organisation, and a document with no event', async () => {
    const { service } = serviceOver();
    const doc = freshDocument();
    await service.apply(queued(providerEvent('document.uploaded', doc), t0));
    const other = freshDocument();

    for (const [principal, documentId] of [
      [{ tenantId: 1, websiteId: 1, userId: 3, organisationId: other.organisationId }, doc.documentId],
      [{ tenantId: 1, websiteId: 1, userId: 3 }, doc.documentId],
      [{ tenantId: 1, websiteId: 1, userId: 3, organisationId: doc.organisationId }, other.documentId],
    ] as const) {
      await expect(service.get(principal, documentId)).rejects.toMatchObject({ name: 'NotFound', status: 404 });
    }
  });
});
