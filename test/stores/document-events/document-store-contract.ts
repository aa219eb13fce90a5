// The contract of the document store port (shared/document-events/store.ts `DocumentStore`): what the document-events
// service and its queue's consumer rely on, run in the unit tier against the in-memory store (test/unit/
// document-events/document-store-contract.test.ts) and in the integration tier against the DynamoDB repository on
// DynamoDB Local (test/integration/document-events/document-store-contract.test.ts). Its core: each event applied
// exactly once (a repeated event id, whatever its `t` or arrival time, reports 'duplicate' and adds nothing; one
// signed earlier than the delivery applied gives the event that `t`, so the order of deliveries never matters), the
// state the state rules give (`applyEvent`) read consistently, the history newest first, documents apart per
// organisation, and deliveries racing on one document (the conditional writes the repository retries) losing no event
// and applying none twice.
import { describe, expect, it } from '@jest/globals';
import { applyEvent } from '#shared/document-events/state';
import type { DocumentStore } from '#shared/document-events/store';
import { documentEvent, freshDocument, inOrderState } from '#test/support/document-events';

const receivedAt = '2026-01-02T03:04:05.000Z';
const later = '2026-01-02T04:00:00.000Z';
const t0 = 1_767_225_600;

/** The suite, over the store `open` gives (once per suite). */
export const describeDocumentStoreContract = (implementation: string, open: () => { readonly store: DocumentStore }) =>
  describe(`DocumentStore contract: ${implementation}`, () => {
    const { store } = open();

    it('has nothing for a document no event was applied to; a document is its organisation’s alone', async () => {
      const doc = freshDocument();
      const before = [await store.getState(doc.organisationId, doc.documentId), await store.get(doc.organisationId, doc.documentId)];
      const uploaded = documentEvent(doc, 'document.uploaded', t0);
      await store.apply(uploaded, receivedAt);
      const other = freshDocument();

      expect({
        before,
        otherOrganisation: [await store.getState(other.organisationId, doc.documentId), await store.get(other.organisationId, doc.documentId)],
        otherDocument: [await store.getState(doc.organisationId, other.documentId), await store.get(doc.organisationId, other.documentId)],
      }).toEqual({ before: [undefined, undefined], otherOrganisation: [undefined, undefined], otherDocument: [undefined, undefined] });
    });

    it('applies an event: the state the rules give, read consistently, and its history entry (its user never shown)', async () => {
      const doc = freshDocument();
      const uploaded = documentEvent(doc, 'document.uploaded', t0, { name: 'a.pdf' }, 'uploader');

      const outcome = await store.apply(uploaded, receivedAt);

      const state = applyEvent(undefined, uploaded);
      expect({ outcome, state: await store.getState(doc.organisationId, doc.documentId), record: await store.get(doc.organisationId, doc.documentId) }).toEqual({
        outcome: 'applied',
        state,
        record: { state, history: [{ eventId: uploaded.eventId, type: 'document.uploaded', t: t0, receivedAt }] },
      });
    });

    it('applies an event once: a repeated event id, even with a later t or arrival, is a duplicate and changes nothing', async () => {
      const doc = freshDocument();
      const uploaded = documentEvent(doc, 'document.uploaded', t0);
      const processing = documentEvent(doc, 'document.processing', t0 + 5);
      const first = [await store.apply(uploaded, receivedAt), await store.apply(processing, receivedAt)];
      const before = await store.get(doc.organisationId, doc.documentId);

      // The provider's retry: same event id (the id ignores t), fresh t, received later.
      const repeated = [await store.apply(uploaded, later), await store.apply({ ...processing, t: t0 + 120 }, later)];

      expect({ first, repeated, after: await store.get(doc.organisationId, doc.documentId) }).toEqual({ first: ['applied', 'applied'], repeated: ['duplicate', 'duplicate'], after: before });
      expect(before?.state).toMatchObject({ state: 'Processing', first: { t: t0 }, last: { t: t0 + 5 }, eventCount: 2, version: 2 });
    });

    it('gives an event the earliest t of its deliveries: the original consumed after the provider’s re-signed retry ends as in order', async () => {
      const finalOf = async (order: 'original first' | 'retry first') => {
        const doc = freshDocument();
        const processed = documentEvent(doc, 'document.processed', t0 + 10, { pages: 1 });
        const retry = { ...processed, t: t0 + 30 };
        const failed = documentEvent(doc, 'document.failed', t0 + 20, { reason: 'x' });
        const deliveries = order === 'original first' ? [processed, failed, retry] : [retry, failed, processed];
        const outcomes = [];
        for (const delivery of deliveries) outcomes.push(await store.apply(delivery, receivedAt));
        const record = await store.get(doc.organisationId, doc.documentId);
        const state = record?.state;
        // The state with the document's own ids (two documents are compared) put as the events' types.
        const typeOf = (eventId: string | undefined) => [processed, failed].find((event) => event.eventId === eventId)?.type;
        return {
          outcomes,
          state: state?.state,
          stateEvent: { type: state?.stateEvent?.type, t: state?.stateEvent?.t },
          object: JSON.parse(state?.objectJson ?? '{}') as Record<string, unknown>,
          first: [typeOf(state?.first.eventId), state?.first.t],
          last: [typeOf(state?.last.eventId), state?.last.t],
          eventCount: state?.eventCount,
          version: state?.version,
          history: record?.history.map((entry) => [entry.type, entry.t]),
        };
      };
      const inOrder = await finalOf('original first');
      const retryFirst = await finalOf('retry first');

      expect(inOrder).toEqual({
        outcomes: ['applied', 'applied', 'duplicate'],
        state: 'Failed',
        stateEvent: { type: 'document.failed', t: t0 + 20 },
        object: expect.objectContaining({ reason: 'x' }),
        first: ['document.processed', t0 + 10],
        last: ['document.failed', t0 + 20],
        eventCount: 2,
        version: 2,
        history: [['document.failed', t0 + 20], ['document.processed', t0 + 10]],
      });
      // Every field as in order; one more version (the rebuild is a write of its own).
      expect(retryFirst).toEqual({ ...inOrder, object: expect.objectContaining({ reason: 'x' }), version: 3 });
    });

    it('keeps every event in the history, newest first (by t, then event id), and the state of the rules over them', async () => {
      const doc = freshDocument();
      const events = [
        documentEvent(doc, 'document.processing', t0 + 10, { progress: 1 }, 'worker'),
        documentEvent(doc, 'document.archived', t0 + 60, { reason: 'retention' }, 'archiver'),
        documentEvent(doc, 'document.uploaded', t0, {}, 'uploader'),
        documentEvent(doc, 'document.processing', t0 + 10, { progress: 2 }, 'worker'),
      ];
      const outcomes = [];
      for (const event of events) outcomes.push(await store.apply(event, receivedAt));

      const record = await store.get(doc.organisationId, doc.documentId);
      const state = events.reduce<ReturnType<typeof applyEvent> | undefined>(applyEvent, undefined);
      const newestFirst = [...events].sort((a, b) => (a.t !== b.t ? b.t - a.t : a.eventId < b.eventId ? 1 : -1));
      expect({ outcomes, state: record?.state, history: record?.history.map((entry) => [entry.eventId, entry.type, entry.t]) }).toEqual({
        outcomes: ['applied', 'applied', 'applied', 'applied'],
        state,
        history: newestFirst.map((event) => [event.eventId, event.type, event.t]),
      });
      expect(state).toEqual(inOrderState(events));
      expect(state).toMatchObject({ eventCount: 4, version: 4, last: { t: t0 + 60 } });
    });

    it('keeps an event of an unknown type in the history and counts it, without changing the state', async () => {
      const doc = freshDocument();
      const uploaded = documentEvent(doc, 'document.uploaded', t0, {}, 'uploader');
      const archived = documentEvent(doc, 'document.archived', t0 + 60, { reason: 'retention' }, 'archiver');
      await store.apply(uploaded, receivedAt);

      expect(await store.apply(archived, receivedAt)).toBe('applied');

      expect(await store.get(doc.organisationId, doc.documentId)).toEqual({
        state: {
          organisationId: doc.organisationId,
          documentId: doc.documentId,
          state: 'Uploaded',
          stateEvent: { rank: 1, t: t0, eventId: uploaded.eventId, type: 'document.uploaded' },
          objectJson: uploaded.objectJson,
          userId: 'uploader',
          first: { t: t0, eventId: uploaded.eventId },
          last: { t: t0 + 60, eventId: archived.eventId },
          eventCount: 2,
          version: 2,
        },
        history: [
          { eventId: archived.eventId, type: 'document.archived', t: t0 + 60, receivedAt },
          { eventId: uploaded.eventId, type: 'document.uploaded', t: t0, receivedAt },
        ],
      });
    });

    it('gives a document with no state until an event of a known type arrives', async () => {
      const doc = freshDocument();
      const archived = documentEvent(doc, 'document.archived', t0 + 60, {}, 'archiver');

      expect(await store.apply(archived, receivedAt)).toBe('applied');

      expect(await store.getState(doc.organisationId, doc.documentId)).toEqual({
        organisationId: doc.organisationId,
        documentId: doc.documentId,
        userId: 'archiver',
        first: { t: t0 + 60, eventId: archived.eventId },
        last: { t: t0 + 60, eventId: archived.eventId },
        eventCount: 1,
        version: 1,
      });
    });

    it('applies each event exactly once when deliveries of one document race, every event delivered twice at the same time', async () => {
      const doc = freshDocument();
      const events = [
        documentEvent(doc, 'document.uploaded', t0, {}, 'uploader'),
        ...Array.from({ length: 4 }, (_, index) => documentEvent(doc, 'document.processing', t0 + 10 + index, { progress: index }, 'worker')),
        documentEvent(doc, 'document.thumbnail.created', t0 + 30, { pages: 3 }, 'worker'),
        documentEvent(doc, 'document.processed', t0 + 40, { pages: 3 }, 'analyser'),
        documentEvent(doc, 'document.processing', t0 + 50, { progress: 'late' }, 'worker'),
      ];
      const deliveries = [...events, ...[...events].reverse()];

      const outcomes = await Promise.all(deliveries.map((event) => store.apply(event, receivedAt)));

      const record = await store.get(doc.organisationId, doc.documentId);
      expect({
        outcomes: events.map((event) => deliveries.flatMap((delivery, index) => (delivery === event ? [outcomes[index]] : [])).sort()),
        state: record?.state,
        history: record?.history.map((entry) => entry.eventId),
      }).toEqual({
        outcomes: events.map(() => ['applied', 'duplicate']),
        state: inOrderState(events),
        history: [...events].sort((a, b) => b.t - a.t).map((event) => event.eventId),
      });
      expect(record?.state).toMatchObject({ state: 'Processed', userId: 'analyser', eventCount: 8, version: 8 });
    });
  });
