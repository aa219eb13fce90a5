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
import { applyEvent, stateOfEvents, type DocumentEvent, type DocumentState } from './state';
import { StateContention, type ApplyOutcome, type DocumentRecord, type DocumentStore, type HistoryEntry } from './store';

/**
 * One item per event: what the history shows, plus the event's user and object (stored, never shown), so that the
 * state can be rebuilt from the set of events when an event's `t` turns out earlier (`stateOfEvents`).
 */
const historyEntries = defineCodec<HistoryEntry & Pick<DocumentEvent, 'userId' | 'organisationId' | 'documentId' | 'objectJson'>, keyof HistoryEntry>({
  entity: 'DocumentEvent',
  fields: ['eventId', 'type', 't', 'receivedAt'],
  key: (entry) => eventKey(entry.organisationId, entry.documentId, entry.eventId),
  internal: (entry) => ({ userId: entry.userId, objectJson: entry.objectJson }),
});

/** The event a history item records, or undefined for an item written before its object was kept. */
const eventOfItem = (item: Record<string, unknown>, document: Pick<DocumentEvent, 'organisationId' | 'documentId'>): DocumentEvent | undefined => {
  const entry = historyEntries.fromItem(item);
  const { userId, objectJson } = item;
  if (typeof userId !== 'string' || typeof objectJson !== 'string') return undefined;
  return { eventId: entry.eventId, type: entry.type, t: entry.t, userId, objectJson, organisationId: document.organisationId, documentId: document.documentId };
};

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

export const createDocumentRepository = (table: TableContext): DocumentStore => {
  const getState = async (organisationId: string, documentId: string): Promise<DocumentState | undefined> => {
    const { Item } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: stateKey(organisationId, documentId), ConsistentRead: true }),
    );
    return Item ? stateFromItem(Item) : undefined;
  };

  /** Every item of the document's partition (its state and its history), read strongly consistent. */
  const readPartition = (organisationId: string, documentId: string) =>
    queryAll(table.client, {
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': documentPartition(organisationId, documentId) },
      ConsistentRead: true,
    });

  /**
   * A repeat of an applied event: when it is signed earlier than the delivery applied (the provider's retry, signed
   * anew, was consumed first), the event takes the earlier `t` and the state is rebuilt from the whole set, in one
   * transaction conditional on the event's `t` and the state's Version as read (ConcurrentModification: read again).
   * Nothing when it is not earlier, or when an event of the document was stored before objects were kept.
   */
  const lowerTime = async (event: DocumentEvent): Promise<void> => {
    // The common repeat is the same delivery again (same `t`): one item's read decides it, the partition is read
    // only when the repeat is signed earlier than the delivery applied.
    const { Item: applied } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: eventKey(event.organisationId, event.documentId, event.eventId), ConsistentRead: true }),
    );
    if (!applied || typeof applied.t !== 'number' || applied.t <= event.t) return;
    // A Query is not a snapshot: a commit while it runs may land behind its position in the history (an event not
    // read, or read at the t another rebuild has since lowered) and before the state. Rebuilt from such a history at
    // the Version the Query read, the state lost an event, or took one at a t it no longer has, for good (its
    // redelivery a duplicate; two findings of bad-day reviews). Every apply and every rebuild writes the state in the
    // same transaction as its history item, so the state is read first, on its own: written at that Version, the
    // rebuild is refused if anything of the history it then reads changed since (ConcurrentModification: read again).
    const current = await getState(event.organisationId, event.documentId);
    if (!current) return;
    const items = await readPartition(event.organisationId, event.documentId);
    const stored = items.find((item) => item.entity === historyEntries.entity && item.eventId === event.eventId);
    if (!stored || typeof stored.t !== 'number' || stored.t <= event.t) return;
    const events = items.filter((item) => item.entity === historyEntries.entity).map((item) => eventOfItem(item, event));
    if (events.some((known) => known === undefined)) return;
    // A history that does not hold exactly the state's count straddled a commit: the write would be refused anyway.
    if (events.length !== current.eventCount) throw new ConcurrentModification();
    const next = stateOfEvents(
      (events as DocumentEvent[]).map((known) => (known.eventId === event.eventId ? { ...known, t: event.t } : known)),
      current.version + 1,
    ) as DocumentState;
    await transact(
      table,
      [
        {
          role: 'event',
          item: {
            Update: {
              TableName: table.tableName,
              Key: eventKey(event.organisationId, event.documentId, event.eventId),
              UpdateExpression: 'SET #t = :earlier',
              ConditionExpression: '#t = :applied',
              ExpressionAttributeNames: { '#t': 't' },
              ExpressionAttributeValues: { ':earlier': event.t, ':applied': stored.t },
            },
          },
        },
        { role: 'state', item: versionedPut(table.tableName, states.toItem({ State: next, Version: next.version }), current.version) },
      ],
      { errors: { event: () => new ConcurrentModification() } },
    );
  };

  return {
    getState,

    async apply(event: DocumentEvent, receivedAt: string): Promise<ApplyOutcome> {
      const history = historyEntries.toItem({ ...event, receivedAt });
      try {
        // Another event of the same document may win the race (or hold the state in a transaction): read again.
        return await withOptimisticRetry(async () => {
          const current = await getState(event.organisationId, event.documentId);
          const next = applyEvent(current, event);
          try {
            await transact(
              table,
              [
                { role: 'history', item: versionedPut(table.tableName, history, undefined) },
                { role: 'state', item: versionedPut(table.tableName, states.toItem({ State: next, Version: next.version }), current?.version) },
              ],
              { errors: { history: () => new DuplicateEvent() } },
            );
            return 'applied' as const;
          } catch (error) {
            if (!(error instanceof DuplicateEvent)) throw error;
            await lowerTime(event);
            return 'duplicate' as const;
          }
        }, { policy: queuedWriteRetryPolicy });
      } catch (error) {
        if (error instanceof ConcurrentModification) throw new StateContention('document state still contended after every attempt', { cause: error });
        throw error;
      }
    },

    async get(organisationId: string, documentId: string): Promise<DocumentRecord | undefined> {
      const items = await readPartition(organisationId, documentId);
      const stateItem = items.find((item) => item.sk === stateSortKey);
      if (!stateItem) return undefined;
      const history = items
        .filter((item) => item.entity === historyEntries.entity)
        .map((item) => historyEntries.fromItem(item))
        .sort((a, b) => (a.t !== b.t ? b.t - a.t : a.eventId < b.eventId ? 1 : -1));
      return { state: stateFromItem(stateItem), history };
    },
  };
};
