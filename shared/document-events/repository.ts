// Data layer: documents and their event history in the single table (keys.ts: one partition per document), the
// DynamoDB adapter of the DocumentStore port (store.ts). Each event is applied in one transaction that records it (only
// if its id is new) and writes the state (only if nobody wrote it meanwhile).
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, type TableContext } from '#shared/data/client';
import { defineCodec } from '#shared/data/codec';
import { queuedWriteRetryPolicy, withOptimisticRetry } from '#shared/data/retry';
import { transact } from '#shared/data/transaction';
import { versionedPut } from '#shared/data/versioned';
import { ConcurrentModification } from '#shared/errors';
import { documentPartition, eventKey, stateKey, stateSortKey } from './keys';
import { applyEvent, type DocumentEvent, type DocumentState } from './state';
import { StateContention, type ApplyOutcome, type DocumentRecord, type DocumentStore, type HistoryEntry } from './store';

/** One item per event: what the history shows, plus the event's user (stored, never shown). */
const historyEntries = defineCodec<HistoryEntry & Pick<DocumentEvent, 'userId' | 'organisationId' | 'documentId'>, keyof HistoryEntry>({
  entity: 'DocumentEvent',
  fields: ['eventId', 'type', 't', 'receivedAt'],
  key: (entry) => eventKey(entry.organisationId, entry.documentId, entry.eventId),
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

export const createDocumentRepository = (table: TableContext): DocumentStore => ({
  async getState(organisationId: string, documentId: string): Promise<DocumentState | undefined> {
    const { Item } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: stateKey(organisationId, documentId), ConsistentRead: true }),
    );
    return Item ? stateFromItem(Item) : undefined;
  },

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
      }, { policy: queuedWriteRetryPolicy });
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
    const stateItem = items.find((item) => item.sk === stateSortKey);
    if (!stateItem) return undefined;
    const history = items
      .filter((item) => item.entity === historyEntries.entity)
      .map((item) => historyEntries.fromItem(item))
      .sort((a, b) => (a.t !== b.t ? b.t - a.t : a.eventId < b.eventId ? 1 : -1));
    return { state: stateFromItem(stateItem), history };
  },
});
