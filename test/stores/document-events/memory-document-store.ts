// Test support: the document store port (shared/document-events/store.ts `DocumentStore`) in memory, for fast unit
// tests of the document-events service. It passes the same contract suite as the DynamoDB repository
// (./document-store-contract.ts, in the unit tier against this store, in the integration tier against DynamoDB Local)
// and keeps the repository's write: each event in one all-or-nothing step that records its history entry only if its
// id is new (else 'duplicate': nothing changed, unless signed earlier than the delivery applied, when the event takes
// that t and the state is rebuilt from the set) and writes the state `applyEvent` gives from the state read. A lost
// race (ConcurrentModification, injected with `failNextWrites`: one writer in memory never loses one) is retried from
// the read under the one optimistic-retry policy (shared/data/retry.ts), without its delays; when every attempt lost,
// the store throws StateContention, as the repository does.
import { queuedWriteRetryPolicy, withOptimisticRetry } from '#shared/data/retry';
import { applyEvent, stateOfEvents, type DocumentEvent, type DocumentState } from '#shared/document-events/state';
import { StateContention, type DocumentStore, type HistoryEntry } from '#shared/document-events/store';
import { ConcurrentModification } from '#shared/errors';

/** One document: its state and its history by event id (the event's user and object are stored, never shown, as the repository's). */
interface StoredDocument {
  readonly state: DocumentState;
  readonly history: ReadonlyMap<string, HistoryEntry & Pick<DocumentEvent, 'userId' | 'objectJson'>>;
}

const keyOf = (organisationId: string, documentId: string) => JSON.stringify([organisationId, documentId]);

/** Newest first: by `t`, then by event id (the repository's order). */
const newestFirst = (a: HistoryEntry, b: HistoryEntry) => (a.t !== b.t ? b.t - a.t : a.eventId < b.eventId ? 1 : -1);

export const createMemoryDocumentStore = () => {
  const documents = new Map<string, StoredDocument>();
  /** Failures to answer the next write attempts with, before their conditions (a race DynamoDB Local is not made to lose). */
  const injected: Error[] = [];

  const attempt = (event: DocumentEvent, receivedAt: string): 'applied' | 'duplicate' => {
    const failure = injected.shift();
    if (failure) throw failure;
    const key = keyOf(event.organisationId, event.documentId);
    const current = documents.get(key);
    const applied = current?.history.get(event.eventId);
    if (current && applied) {
      // Signed earlier than the delivery applied: the event takes the earlier t, the state is rebuilt from the set.
      if (event.t < applied.t) {
        const history = new Map(current.history).set(event.eventId, { ...applied, t: event.t });
        const events = [...history.values()].map(({ eventId, type, t, userId, objectJson }) => ({ eventId, type, t, userId, objectJson, organisationId: event.organisationId, documentId: event.documentId }));
        documents.set(key, { state: stateOfEvents(events, current.state.version + 1) as DocumentState, history });
      }
      return 'duplicate';
    }
    const history = new Map(current?.history);
    history.set(event.eventId, { eventId: event.eventId, type: event.type, t: event.t, receivedAt, userId: event.userId, objectJson: event.objectJson });
    documents.set(key, { state: applyEvent(current?.state, event), history });
    return 'applied';
  };

  const store: DocumentStore = {
    getState: async (organisationId, documentId) => structuredClone(documents.get(keyOf(organisationId, documentId))?.state),

    async apply(event, receivedAt) {
      try {
        return await withOptimisticRetry(async () => attempt(event, receivedAt), { policy: queuedWriteRetryPolicy, sleep: () => Promise.resolve() });
      } catch (error) {
        if (error instanceof ConcurrentModification) throw new StateContention('document state still contended after every attempt', { cause: error });
        throw error;
      }
    },

    get: async (organisationId, documentId) => {
      const stored = documents.get(keyOf(organisationId, documentId));
      if (!stored) return undefined;
      const history = [...stored.history.values()].map(({ eventId, type, t, receivedAt }) => ({ eventId, type, t, receivedAt })).sort(newestFirst);
      return structuredClone({ state: stored.state, history });
    },
  };

  return {
    store,
    /** The next write attempts fail with these errors, in order, before their conditions are checked. */
    failNextWrites: (...failures: Error[]) => void injected.push(...failures),
    /** Everything stored, as one value (what a test compares before and after a refused or repeated write). */
    snapshot: () => structuredClone([...documents].map(([key, stored]) => [key, stored.state, [...stored.history]])),
  };
};
