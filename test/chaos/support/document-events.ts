// Chaos tier, webhook -> queue -> consumer: a burst of signed provider events for two documents of a fresh
// organisation (every state, an unknown type, two events of one type), each posted by a provider that retries with
// the same body; then, once the queue is drained, the invariant, read from the table: every event answered 2xx is
// recorded once; an event never answered 2xx is not recorded; each document's state is exactly the state its
// distinct accepted events give (shared/document-events/state.ts, applied in any order), its count and version
// included; and the DLQ holds none of them.
import canonicalize from 'canonicalize';
import { createDocumentClient } from '#shared/data/client';
import { createDocumentRepository } from '#shared/document-events/repository';
import { applyEvent, type DocumentState } from '#shared/document-events/state';
import { freshDocumentId, freshOrganisationId, idOf, nowSeconds, providerEvent, signed, webhookPath, type ProviderEvent } from '#test/support/document-events';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { mergeFindings, type Findings } from './cells';
import { deadLetters, queueSettled } from './queues';
import { breachesOf, burst, exactlyOnce, isSuccess, type Sent } from './requests';
import type { RetryingClient } from './retrying-client';

export interface DocumentsRun {
  readonly organisationId: string;
  readonly documents: readonly string[];
  readonly events: readonly { readonly event: ProviderEvent; readonly t: number; readonly id: string }[];
  readonly posts: readonly Sent<{ eventId?: string }>[];
  readonly drained: boolean;
}

export const runDocuments = async (client: RetryingClient, cell: string): Promise<DocumentsRun> => {
  const organisationId = freshOrganisationId();
  const documents = [freshDocumentId(`${cell}-a`), freshDocumentId(`${cell}-b`)];
  const t = nowSeconds();
  const [first, second] = documents as [string, string];
  const plan: [string, string, number, Record<string, unknown>?][] = [
    ['document.uploaded', first, t],
    ['document.processing', first, t + 1],
    ['document.processed', first, t + 2, { pages: 3 }],
    ['document.uploaded', second, t],
    ['document.processing', second, t + 1, { step: 1 }],
    ['document.processing', second, t + 2, { step: 2 }],
    ['document.failed', second, t + 3, { reason: 'unreadable' }],
    ['document.tagged', second, t + 4],
    ['document.processed', second, t - 5, { late: true }],
  ];
  const events = plan.map(([type, documentId, at, object]) => {
    const event = providerEvent(type, { organisationId, documentId, ...(object ? { object } : {}) });
    return { event, t: at, id: idOf(event) };
  });
  const posts = await burst<{ eventId?: string }>(
    client,
    events.map(({ event, t: at, id }) => ({ label: id, path: webhookPath, request: { method: 'POST', body: signed(event, { t: at }) } })),
  );
  const drained = await queueSettled('documentEvents');
  return { organisationId, documents, events, posts, drained };
};

export const checkDocuments = async (run: DocumentsRun): Promise<Findings> => {
  const { tableName } = requireLocalEndpoints();
  const raw = localDynamoDbClient();
  try {
    const repository = createDocumentRepository({ client: createDocumentClient(raw), tableName });
    const violated = breachesOf(run.posts);
    const doubled: string[] = [];
    const lost: string[] = [];
    const recorded = new Map<string, number>();
    for (const post of run.posts.filter(isSuccess)) {
      if (post.call.final?.json.eventId !== post.label) violated.push(`event ${post.label} was answered event id ${String(post.call.final?.json.eventId)}`);
    }
    for (const documentId of run.documents) {
      const record = await repository.get(run.organisationId, documentId);
      for (const entry of record?.history ?? []) recorded.set(entry.eventId, (recorded.get(entry.eventId) ?? 0) + 1);
      const accepted = run.events.filter(({ event, id }) => event.data.object.id === documentId && run.posts.some((post) => post.label === id && isSuccess(post)));
      const expected = accepted.reduce<DocumentState | undefined>(
        (state, { event, t, id }) =>
          applyEvent(state, {
            eventId: id,
            type: event.type,
            t,
            userId: event.userId,
            organisationId: event.organisationId,
            documentId,
            objectJson: canonicalize(event.data.object) ?? '{}',
          }),
        undefined,
      );
      const stored = record?.state;
      const shape = (state: DocumentState | undefined) =>
        state && { state: state.state, stateEvent: state.stateEvent?.eventId, objectJson: state.objectJson, first: state.first, last: state.last, eventCount: state.eventCount, version: state.version };
      if (JSON.stringify(shape(stored)) !== JSON.stringify(shape(expected))) {
        const counted = stored?.eventCount ?? 0;
        const owed = expected?.eventCount ?? 0;
        (counted > owed ? doubled : counted < owed ? lost : violated).push(`document ${documentId} is ${JSON.stringify(shape(stored))}, its accepted events give ${JSON.stringify(shape(expected))}`);
      }
    }
    if (!run.drained) violated.push('the document-events queue was not drained within a minute');
    const dead = (await deadLetters('documentEvents')) as { eventId?: string }[];
    for (const letter of dead) if (run.events.some(({ id }) => id === letter.eventId)) violated.push(`event ${String(letter.eventId)} is in the DLQ`);
    return mergeFindings({ doubled, lost, violated }, exactlyOnce(run.posts, recorded, 'event'));
  } finally {
    raw.destroy();
  }
};
