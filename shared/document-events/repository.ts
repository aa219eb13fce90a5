// Data layer: documents and their event history in the single table. One partition per document
// (`ORG#<organisation>#DOC#<document>`) holds the state item and one item per event; each event is applied in one
// transaction that records it (only if its id is new) and writes the state (only if nobody wrote it meanwhile).
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { queryAll, type TableContext } from '../data/client';
import { applyEvent, type DocumentEvent, type DocumentState } from './state';

export const documentPartition = (organisationId: string, documentId: string) => `ORG#${organisationId}#DOC#${documentId}`;
const stateKey = (organisationId: string, documentId: string) => ({ pk: documentPartition(organisationId, documentId), sk: 'STATE' });
const eventKey = (event: DocumentEvent) => ({ pk: documentPartition(event.organisationId, event.documentId), sk: `EVENT#${event.eventId}` });

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

const maxAttempts = 8;

export class StateContention extends Error {
  override readonly name = 'StateContention';
}

const stateFromItem = (item: Record<string, unknown>): DocumentState => item.State as DocumentState;

export const createDocumentRepository = ({ client, tableName }: TableContext) => ({
  async getState(organisationId: string, documentId: string): Promise<DocumentState | undefined> {
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: stateKey(organisationId, documentId), ConsistentRead: true }),
    );
    return Item ? stateFromItem(Item) : undefined;
  },

  /** Applies an event exactly once: a repeated event id changes nothing and reports 'duplicate'. */
  async apply(event: DocumentEvent, receivedAt: string): Promise<ApplyOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      const current = await this.getState(event.organisationId, event.documentId);
      const next = applyEvent(current, event);
      try {
        await client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: { ...eventKey(event), entity: 'DocumentEvent', eventId: event.eventId, type: event.type, t: event.t, userId: event.userId, receivedAt },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Put: {
                  TableName: tableName,
                  Item: { ...stateKey(event.organisationId, event.documentId), entity: 'DocumentState', State: next, Version: next.version },
                  ...(current
                    ? { ConditionExpression: 'Version = :expected', ExpressionAttributeValues: { ':expected': current.version } }
                    : { ConditionExpression: 'attribute_not_exists(pk)' }),
                },
              },
            ],
          }),
        );
        return 'applied';
      } catch (error) {
        if ((error as Error).name !== 'TransactionCanceledException') throw error;
        const [history] = (error as TransactionCanceledException).CancellationReasons ?? [];
        if (history?.Code === 'ConditionalCheckFailed') return 'duplicate';
        // Another event of the same document won the race (or a transaction was in flight): read again.
        if (attempt >= maxAttempts) throw new StateContention(`document state still contended after ${attempt} attempts`);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
      }
    }
  },

  async get(organisationId: string, documentId: string): Promise<DocumentRecord | undefined> {
    const items = await queryAll(client, {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': documentPartition(organisationId, documentId) },
      ConsistentRead: true,
    });
    const stateItem = items.find((item) => item.sk === 'STATE');
    if (!stateItem) return undefined;
    const history = items
      .filter((item) => item.entity === 'DocumentEvent')
      .map((item) => ({ eventId: String(item.eventId), type: String(item.type), t: Number(item.t), receivedAt: String(item.receivedAt) }))
      .sort((a, b) => (a.t !== b.t ? b.t - a.t : a.eventId < b.eventId ? 1 : -1));
    return { state: stateFromItem(stateItem), history };
  },
});

export type DocumentRepository = ReturnType<typeof createDocumentRepository>;
