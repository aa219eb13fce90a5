// Data layer: documents and their event history in the single table. One partition per document
// (`ORG#<organisation>#DOC#<document>`) holds the state item and one item per event; each event is applied in one
// transaction that records it (only if its id is new) and writes the state (only if nobody wrote it meanwhile).
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, type TableContext } from '../data/client';
import { defineCodec } from '../data/codec';
import { composeKey, type ItemKey } from '../data/partition';
import { withOptimisticRetry } from '../data/retry';
import { transact } from '../data/transaction';
import { versionedPut } from '../data/versioned';
import { ConcurrentModification } from '../errors';
import { applyEvent, type DocumentEvent, type DocumentState } from './state';

export const documentPartition = (organisationId: string, documentId: string) => composeKey('ORG', organisationId, 'DOC', documentId);
const stateKey = (organisationId: string, documentId: string): ItemKey => ({ pk: documentPartition(organisationId, documentId), sk: 'STATE' });

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

export class StateContention extends Error {
  override readonly name = 'StateContention';
}

/** One item per event: what the history shows, plus the event's user (stored, never shown). */
const historyEntries = defineCodec<HistoryEntry & Pick<DocumentEvent, 'userId' | 'organisationId' | 'documentId'>, keyof HistoryEntry>({
  entity: 'DocumentEvent',
  fields: ['eventId', 'type', 't', 'receivedAt'],
  key: (entry) => ({ pk: documentPartition(entry.organisationId, entry.documentId), sk: composeKey('EVENT', entry.eventId) }),
  internal: (entry) => ({ userId: entry.userId }),
});

/** The state item holds the whole state as one map, and its version beside it for the write condition. */
const states = defineCodec<{ readonly State: DocumentState; readonly Version: number }, 'State' | 'Version'>({
  entity: 'DocumentState',
  fields: ['State', 'Version'],
  key: ({ State }) => stateKey(State.organisationId, State.documentId),
});

const stateFromItem = (item: Record<string, unknown>): DocumentState => states.fromItem(item).State;

/** The event's id is recorded already: the event was applied before. */
class DuplicateEvent extends Error {
  override readonly name = 'DuplicateEvent';
}

export const createDocumentRepository = (table: TableContext) => ({
  async getState(organisationId: string, documentId: string): Promise<DocumentState | undefined> {
    const { Item } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: stateKey(organisationId, documentId), ConsistentRead: true }),
    );
    return Item ? stateFromItem(Item) : undefined;
  },

  /** Applies an event exactly once: a repeated event id changes nothing and reports 'duplicate'. */
  async apply(event: DocumentEvent, receivedAt: string): Promise<ApplyOutcome> {
    const history = historyEntries.toItem({ ...event, receivedAt });
    try {
      // Another event of the same document may win the race (or hold the state in a transaction): read again.
      return await withOptimisticRetry(async () => {
        const current = await this.getState(event.organisationId, event.documentId);
        const next = applyEvent(current, event);
        await transact(
          table,
          [
            { role: 'history', item: versionedPut(table.tableName, history, undefined) },
            { role: 'state', item: versionedPut(table.tableName, states.toItem({ State: next, Version: next.version }), current?.version) },
          ],
          { errors: { history: () => new DuplicateEvent() } },
        );
        return 'applied' as const;
      });
    } catch (error) {
      if (error instanceof DuplicateEvent) return 'duplicate';
      if (error instanceof ConcurrentModification) throw new StateContention('document state still contended after every attempt', { cause: error });
      throw error;
    }
  },

  async get(organisationId: string, documentId: string): Promise<DocumentRecord | undefined> {
    const items = await queryAll(table.client, {
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': documentPartition(organisationId, documentId) },
      ConsistentRead: true,
    });
    const stateItem = items.find((item) => item.sk === 'STATE');
    if (!stateItem) return undefined;
    const history = items
      .filter((item) => item.entity === historyEntries.entity)
      .map((item) => historyEntries.fromItem(item))
      .sort((a, b) => (a.t !== b.t ? b.t - a.t : a.eventId < b.eventId ? 1 : -1));
    return { state: stateFromItem(stateItem), history };
  },
});

export type DocumentRepository = ReturnType<typeof createDocumentRepository>;
