// Domain: document events. The webhook side verifies and enqueues (nothing else); the consumer side applies
// each event exactly once; the read side shows a document to its own organisation only.
import type { Principal } from '#shared/auth/principal';
import { NotFound, ServiceUnavailable, signatureChallenge, Unauthorized } from '#shared/errors';
import type { WebhookEventRequest, DocumentStateView } from '#shared/schemas/webhook';
import type { QueuedDocumentEvent } from '#shared/schemas/messages/document-events';
import type { EventPublisher } from './publisher';
import type { ApplyOutcome, DocumentStore } from './store';
import type { SecretsSource } from './secrets';
import { canonicalEvent, eventIdOfCanonical, InvalidSignature, verifySignature } from '#shared/schemas/webhook-signature';
import canonicalize from 'canonicalize';

export interface DocumentEventsDependencies {
  /** The documents' storage (store.ts), the port this service declares; repository.ts is its DynamoDB adapter. */
  readonly store?: DocumentStore;
  readonly publisher?: EventPublisher;
  readonly secrets?: SecretsSource;
  readonly clock?: () => Date;
}

const isoOf = (t: number) => new Date(t * 1000).toISOString();

export const createDocumentEventsService = ({ store, publisher, secrets, clock = () => new Date() }: DocumentEventsDependencies) => ({
  /** Verifies the signature and enqueues the event; resolves only once the queue has accepted it. */
  async accept(event: WebhookEventRequest): Promise<{ eventId: string }> {
    if (!publisher || !secrets) throw new Error('accept() needs a publisher and secrets');
    let activeSecrets: readonly string[];
    try {
      activeSecrets = await secrets();
    } catch (error) {
      throw new ServiceUnavailable('The event cannot be verified right now; retry shortly.', 5, error);
    }
    const now = clock();
    let t: number;
    let canonical: string;
    try {
      // Canonicalised once: the same text is verified, hashed into the event id, and is what the queue carries.
      canonical = canonicalEvent(event);
      t = verifySignature(event.signature, canonical, { secrets: activeSecrets, nowSeconds: Math.floor(now.getTime() / 1000) });
    } catch (error) {
      if (error instanceof InvalidSignature) {
        throw new Unauthorized(`The event signature is not valid: ${error.message}.`, signatureChallenge);
      }
      throw error;
    }
    const eventId = eventIdOfCanonical(canonical);
    await publisher({ eventId, t, receivedAt: now.toISOString(), canonicalEvent: canonical });
    return { eventId };
  },

  /** Applies one queued event to its document's state; a repeated event changes nothing. */
  async apply(message: QueuedDocumentEvent): Promise<ApplyOutcome> {
    if (!store) throw new Error('apply() needs a store');
    const { event } = message;
    return store.apply(
      {
        eventId: message.eventId,
        type: event.type,
        t: message.t,
        userId: event.userId,
        organisationId: event.organisationId,
        documentId: event.data.object.id,
        objectJson: canonicalize(event.data.object) ?? '{}',
      },
      message.receivedAt,
    );
  },

  /** A document of the caller's organisation; any other document does not exist for the caller. */
  async get(principal: Principal, documentId: string): Promise<DocumentStateView> {
    if (!store) throw new Error('get() needs a store');
    const missing = new NotFound('No document of your organisation has this id.');
    if (!principal.organisationId) throw missing;
    const record = await store.get(principal.organisationId, documentId);
    if (!record) throw missing;
    const { state, history } = record;
    return {
      OrganisationID: state.organisationId,
      DocumentID: state.documentId,
      ...(state.state ? { State: state.state } : {}),
      ...(state.stateEvent ? { StateEventType: state.stateEvent.type, StateEventID: state.stateEvent.eventId } : {}),
      UserID: state.userId,
      ...(state.objectJson ? { Object: JSON.parse(state.objectJson) as Record<string, unknown> } : {}),
      FirstEventDateTime_utc: isoOf(state.first.t),
      LastEventDateTime_utc: isoOf(state.last.t),
      EventCount: state.eventCount,
      Version: state.version,
      Events: history.map((entry) => ({
        EventID: entry.eventId,
        Type: entry.type,
        Timestamp: entry.t,
        DateTime_utc: isoOf(entry.t),
        ReceivedDateTime_utc: entry.receivedAt,
      })),
    };
  },
});

export type DocumentEventsService = ReturnType<typeof createDocumentEventsService>;
