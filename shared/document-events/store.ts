// Domain port: what the document-events service needs from storage, declared by the domain (like the
// serverless-typescript-demo's ProductStore). repository.ts implements it on the single table; the unit tests' in-memory
// store (test/stores/document-events/memory-document-store.ts) passes the same contract suite.
import type { DocumentEvent, DocumentState } from './state';

export interface HistoryEntry {
  readonly eventId: string;
  readonly type: string;
  readonly t: number;
  readonly receivedAt: string;
}

export interface DocumentRecord {
  readonly state: DocumentState;
  /** Newest first: by `t`, then by event id. */
  readonly history: readonly HistoryEntry[];
}

export type ApplyOutcome = 'applied' | 'duplicate';

/** The document's state stayed contended after every attempt to apply an event (the consumer retries the message). */
export class StateContention extends Error {
  override readonly name = 'StateContention';
}

export interface DocumentStore {
  /** The document's state, read consistently; undefined when no event of it was applied. */
  getState(organisationId: string, documentId: string): Promise<DocumentState | undefined>;
  /**
   * Applies an event exactly once: a repeated event id reports 'duplicate' and adds nothing. A repeat with an earlier
   * `t` than the one applied (the original delivered after the provider's re-signed retry) gives the event that `t`
   * and the state the set of events gives with it (`stateOfEvents`).
   */
  apply(event: DocumentEvent, receivedAt: string): Promise<ApplyOutcome>;
  /** The document's state and its event history; undefined when no event of it was applied. */
  get(organisationId: string, documentId: string): Promise<DocumentRecord | undefined>;
}
