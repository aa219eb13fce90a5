// Domain + storage: completing a delivery receipt puts its good stock on hand exactly once (contract C5). The pure
// plan (stock-effects.ts) says what to write; this module maps its actions to TransactWriteItems, runs a plan that
// fits one transaction at once, and otherwise moves the receipt to Completing and hands the chunks to the receipt
// completions queue, whose consumer (functions/delivery-receipts/consume-receipt-completions.ts) runs them one after another.
import { randomUUID } from 'node:crypto';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from '#shared/data/client';
import { getRawItem, plainItem, queryRawItems, type RawItem } from '#shared/data/exact-items';
import { stockOnHandKey } from '#shared/data/stock-on-hand-keys';
import { transact, transactionActions, type TransactionItem } from '#shared/data/transaction';
import { ConcurrentModification, NotFound, ServiceUnavailable, VersionConflict } from '#shared/errors';
import { describeError, logger } from '#shared/observability/logger';
import { countMetric } from '#shared/observability/metrics';
import { completionMessageOf, defaultCompletionPublisher, type CompletionMessage, type CompletionPublisher } from './completion-message';
import { completionKey, headerKey, headerSortKey, lineKey, lineSortKeyPrefix, movementKey, receiptPartition } from './keys';
import { statusView, type Actor } from './lifecycle';
import type { StoredLine } from './lines';
import { chunkAt, planCompletion, type CompletionChunk, type CompletionPlan, type TransactionAction } from './stock-effects';

export type { CompletionMessage, CompletionPublisher } from './completion-message';

export interface CompleteReceiptRequest {
  readonly tenantId: number;
  readonly receiptId: number;
  /** The header's Version after the save committed the body's changes (status InProgress, WarehouseID set). */
  readonly expectedVersion: number;
  readonly actor: { readonly userId: number };
  readonly now: Date;
}

export interface CompletionDependencies {
  /** Puts a completion message on the receipt completions queue. */
  readonly publish: CompletionPublisher;
  readonly newCompletionId?: () => string;
}

/** The `entity` attributes of the items completion writes besides lines and the header. */
export const completionEntities = { completion: 'ReceiptCompletion', movement: 'StockMovement', stockOnHand: 'StockOnHand' } as const;

type Role = TransactionAction['role'];

const number = (text: string) => NumberValue.from(text);

/** The TransactWriteItems entry of one plan action. Numbers travel as decimal text (NumberValue), never doubles. */
const transactionItem = (tableName: string, action: TransactionAction, lineSequence: (lineId: number) => number): TransactionItem => {
  switch (action.role) {
    case 'stockOnHand': {
      const { tenantId, inventoryId, warehouseId } = action.key;
      return {
        Update: {
          TableName: tableName,
          Key: stockOnHandKey(tenantId, inventoryId, warehouseId),
          UpdateExpression: 'SET entity = :entity, InventoryID = :inventory, WarehouseID = :warehouse ADD TotalSOH :quantity',
          ExpressionAttributeValues: {
            ':entity': completionEntities.stockOnHand,
            ':inventory': inventoryId,
            ':warehouse': warehouseId,
            ':quantity': number(action.update.add),
          },
        },
      };
    }
    case 'stockMovement': {
      const { tenantId, receiptId, lineId } = action.key;
      const { put } = action.update;
      return {
        Put: {
          TableName: tableName,
          Item: { ...movementKey(tenantId, receiptId, lineSequence(lineId)), entity: completionEntities.movement, LineID: lineId, ...put, Quantity: number(put.Quantity) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    }
    case 'line': {
      const { tenantId, receiptId, lineId } = action.key;
      const { set } = action.update;
      return {
        Update: {
          TableName: tableName,
          Key: lineKey(tenantId, receiptId, lineSequence(lineId)),
          UpdateExpression: 'SET IsStockAdjustmentComplete = :done, ReceivedByUserID = :user, ReceivedDateTime_utc = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':done': set.IsStockAdjustmentComplete, ':user': set.ReceivedByUserID, ':at': set.ReceivedDateTime_utc },
        },
      };
    }
    case 'completion':
      return {
        Update: {
          TableName: tableName,
          Key: completionKey(action.key.tenantId, action.key.receiptId),
          UpdateExpression: 'SET CompletionCursor = :next',
          ConditionExpression: 'CompletionID = :id AND CompletionCursor = :cursor',
          ExpressionAttributeValues: { ':next': action.update.set.CompletionCursor, ':id': action.expect.completionId, ':cursor': action.expect.cursor },
        },
      };
    case 'header': {
      const { expect, update } = action;
      const view = statusView('Complete');
      const values = {
        ':status': view.Status,
        ':friendly': view.FriendlyStatus,
        ':readOnly': view.IsReadOnly,
        ':user': update.set.CompletedByUserID,
        ':at': update.set.CompletedDateTime_utc,
        ':one': 1,
      };
      return {
        Update: {
          TableName: tableName,
          Key: headerKey(action.key.tenantId, action.key.receiptId),
          UpdateExpression:
            'SET #status = :status, FriendlyStatus = :friendly, IsReadOnly = :readOnly, CompletedByUserID = :user, CompletedDateTime_utc = :at ADD Version :one',
          ExpressionAttributeNames: { '#status': 'Status' },
          ...(expect.status === 'InProgress'
            ? {
                // The repository's Version condition rides on the plan's InProgress expectation (see completeReceipt).
                ConditionExpression: '#status = :expected',
                ExpressionAttributeValues: { ...values, ':expected': 'InProgress' },
              }
            : {
                ConditionExpression: '#status = :expected AND CompletionID = :completion',
                ExpressionAttributeValues: { ...values, ':expected': 'Completing', ':completion': expect.completionId },
              }),
        },
      };
    }
  }
};

/** Adds `Version = :version` to the single-transaction header action: the save's commit is the version completed. */
const withVersionCondition = (item: TransactionItem, version: number): TransactionItem => {
  const update = item.Update as NonNullable<TransactionItem['Update']>;
  return {
    Update: {
      ...update,
      ConditionExpression: `${update.ConditionExpression} AND Version = :version`,
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':version': version },
    },
  };
};

interface ReceiptState {
  readonly header: Record<string, unknown>;
  readonly lines: StoredLine[];
}

/**
 * The header and every line in one strongly consistent Query: the sort keys from `HEADER` to the last `LINE#` (the
 * completion item sorts before, movements after).
 */
const readReceipt = async (table: TableContext, tenantId: number, receiptId: number): Promise<ReceiptState | undefined> => {
  const items = await queryRawItems(table, receiptPartition(tenantId, receiptId), { from: headerSortKey, to: `${lineSortKeyPrefix}~` });
  const [first, ...rest] = items.map((item) => plainItem(item));
  if (!first || first.sk !== headerSortKey) return undefined;
  const lines = rest.filter((item) => String(item.sk).startsWith(lineSortKeyPrefix));
  return { header: first, lines: lines as unknown as StoredLine[] };
};

/** Maps a lineId (the line's ID) to the sequence number its items are keyed by. */
const lineSequences = (lines: readonly StoredLine[]) => {
  const byId = new Map(lines.map((line) => [line.ID, line.SequenceNumber]));
  return (lineId: number): number => {
    const sequence = byId.get(lineId);
    if (sequence === undefined) throw new Error(`line ${lineId} is not one of the receipt's lines`);
    return sequence;
  };
};

/** A receipt became Complete: counted once, by the transaction that completed it, with the lines that received stock. */
const countCompleted = (mode: 'Single' | 'Chunked', plan: CompletionPlan): void => {
  countMetric('receiptsCompleted', mode);
  countMetric('linesReceived', plan.effects.reduce((lines, effect) => lines + effect.lines.length, 0));
};

/** One chunk as one transaction, idempotent for DynamoDB's 10 minutes through the chunk's ClientRequestToken. */
const runChunk = async (table: TableContext, chunk: CompletionChunk, lines: readonly StoredLine[], headerVersion?: number) => {
  const sequence = lineSequences(lines);
  const { actions, add } = transactionActions<Role>();
  for (const action of chunk.actions) {
    const item = transactionItem(table.tableName, action, sequence);
    add(action.role, action.role === 'header' && headerVersion !== undefined ? withVersionCondition(item, headerVersion) : item);
  }
  await transact(table, actions, { errors: { header: () => new VersionConflict() }, clientRequestToken: chunk.clientRequestToken });
};

const requireCompletable = (state: ReceiptState | undefined, expectedVersion: number): ReceiptState => {
  if (!state) throw new NotFound('The delivery receipt does not exist.');
  if (state.header.Version !== expectedVersion || state.header.Status !== 'InProgress') throw new VersionConflict();
  return state;
};

/** Stored with the completion: who asked and where the stock goes, so every later plan is the same plan. */
interface CompletionRecord {
  readonly completionId: string;
  readonly cursor: number;
  readonly chunkCount: number;
  readonly warehouseId: number;
  readonly actor: Actor;
}

const completionRecordOf = (item: RawItem | undefined): CompletionRecord | undefined => {
  if (!item) return undefined;
  const plain = plainItem(item);
  return {
    completionId: String(plain.CompletionID),
    cursor: Number(plain.CompletionCursor),
    chunkCount: Number(plain.ChunkCount),
    warehouseId: Number(plain.WarehouseID),
    actor: { userId: Number(plain.RequestedByUserID), at: String(plain.RequestedDateTime_utc) },
  };
};

const readCompletion = async (table: TableContext, tenantId: number, receiptId: number) =>
  completionRecordOf(await getRawItem(table, completionKey(tenantId, receiptId)));

/** Header -> Completing (read-only, Version + 1) with the completion item at cursor 0, in one transaction. */
const startChunked = async (table: TableContext, request: CompleteReceiptRequest, plan: CompletionPlan, warehouseId: number, actor: Actor) => {
  const { tenantId, receiptId, expectedVersion } = request;
  const view = statusView('Completing');
  const { actions, add } = transactionActions<'header' | 'completion'>();
  add('header', {
    Update: {
      TableName: table.tableName,
      Key: headerKey(tenantId, receiptId),
      UpdateExpression: 'SET #status = :status, FriendlyStatus = :friendly, IsReadOnly = :readOnly, CompletionID = :completion ADD Version :one',
      ConditionExpression: '#status = :expected AND Version = :version',
      ExpressionAttributeNames: { '#status': 'Status' },
      ExpressionAttributeValues: {
        ':status': view.Status,
        ':friendly': view.FriendlyStatus,
        ':readOnly': view.IsReadOnly,
        ':completion': plan.completionId,
        ':one': 1,
        ':expected': 'InProgress',
        ':version': expectedVersion,
      },
    },
  });
  add('completion', {
    Put: {
      TableName: table.tableName,
      Item: {
        ...completionKey(tenantId, receiptId),
        entity: completionEntities.completion,
        CompletionID: plan.completionId,
        CompletionCursor: 0,
        ChunkCount: plan.chunks.length,
        WarehouseID: warehouseId,
        RequestedByUserID: actor.userId,
        RequestedDateTime_utc: actor.at,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  await transact(table, actions, { errors: { header: () => new VersionConflict() } });
};

/**
 * Completes an InProgress receipt whose save just committed at `expectedVersion` (contract C5). Effects that fit one
 * transaction complete at once (Complete, Version + 1). Otherwise the receipt enters Completing (read-only, Version
 * + 1) with its completion item, and its message goes to the receipt completions queue (Completing): the guarantee,
 * delayed, before the start commits, so a save that dies after the commit never leaves the receipt Completing for
 * ever, and the message at once after it. A moved Version throws VersionConflict; a missing WarehouseID or a
 * receiving line without InventoryID, ValidationFailed; a queue that cannot take the guarantee, ServiceUnavailable
 * (nothing written).
 */
export const completeReceipt = async (
  table: TableContext,
  request: CompleteReceiptRequest,
  dependencies: CompletionDependencies = defaultCompletionDependencies(),
): Promise<{ status: 'Complete' | 'Completing' }> => {
  const { tenantId, receiptId, expectedVersion } = request;
  const { header, lines } = requireCompletable(await readReceipt(table, tenantId, receiptId), expectedVersion);
  const actor: Actor = { userId: request.actor.userId, at: request.now.toISOString() };
  const completionId = (dependencies.newCompletionId ?? randomUUID)();
  const warehouseId = Number(header.WarehouseID ?? 0);
  const plan = planCompletion({ tenantId, receiptId, warehouseId, completionId, actor, lines });
  const [only] = plan.chunks;
  if (plan.mode === 'single' && only) {
    await runChunk(table, only, lines, expectedVersion);
    countCompleted('Single', plan);
    return { status: 'Complete' };
  }
  const message = { tenantId, receiptId, completionId };
  // The guarantee first: a start that never commits leaves it naming no current completion (the consumer's 'stale').
  await dependencies.publish(message, { guarantee: true }).catch((error: unknown) => {
    logger.error('receipt completion not queued: nothing was written', { tenantId, receiptId, ...describeError(error) });
    throw new ServiceUnavailable('The completion could not be queued and nothing was completed; retry shortly.', 5, error);
  });
  await startChunked(table, request, plan, warehouseId, actor);
  // The fast path: if this send fails (or the function dies first), the guarantee runs the completion a minute later.
  await dependencies.publish(message).catch((error: unknown) => {
    logger.warn('receipt completion not sent at once: its guarantee message runs it', { tenantId, receiptId, ...describeError(error) });
  });
  return { status: 'Completing' };
};

/** What one consumer pass did with a completion message. */
export type CompletionProgress =
  /** The last chunk ran (now or before): the receipt is Complete. */
  | { readonly outcome: 'completed'; readonly chunksRun: number }
  /** The message names no current completion (an undone start, a duplicate of a finished one): nothing to do. */
  | { readonly outcome: 'stale' }
  /** Out of time: the rest was handed to a new message on the queue. */
  | { readonly outcome: 'continued'; readonly chunksRun: number; readonly cursor: number };

export interface ContinueOptions {
  /** Asked before each chunk: false stops the pass and re-enqueues the message (the consumer's time budget). */
  readonly mayRunChunk?: () => boolean;
}

/**
 * The consumer's work: runs the chunks of a chunked completion from the stored cursor to the last, one transaction
 * each, conditional on the completion id and the cursor. Plans again from the frozen lines and the stored request,
 * so it runs the same chunks as any earlier pass. A chunk another pass committed first is skipped (its condition
 * fails and the cursor has moved); a duplicate or late message finds nothing to do.
 */
export const continueCompletion = async (
  table: TableContext,
  message: CompletionMessage,
  { mayRunChunk = () => true }: ContinueOptions = {},
  dependencies: CompletionDependencies = defaultCompletionDependencies(),
): Promise<CompletionProgress> => {
  const { tenantId, receiptId, completionId } = completionMessageOf(message);
  let record = await readCompletion(table, tenantId, receiptId);
  if (!record || record.completionId !== completionId) return { outcome: 'stale' };
  const stored = await readReceipt(table, tenantId, receiptId);
  if (!stored) return { outcome: 'stale' };
  if (record.cursor >= record.chunkCount) return { outcome: 'completed', chunksRun: 0 };
  const plan = planCompletion({ tenantId, receiptId, warehouseId: record.warehouseId, completionId, actor: record.actor, lines: stored.lines });
  if (plan.chunks.length !== record.chunkCount) {
    throw new Error(`receipt ${receiptId}: the plan has ${plan.chunks.length} chunks, the completion started with ${record.chunkCount}`);
  }
  let chunksRun = 0;
  for (let chunk = chunkAt(plan, record.cursor); chunk; chunk = chunkAt(plan, record.cursor)) {
    if (!mayRunChunk()) {
      await dependencies.publish({ tenantId, receiptId, completionId });
      return { outcome: 'continued', chunksRun, cursor: record.cursor };
    }
    try {
      await runChunk(table, chunk, stored.lines);
      chunksRun += 1;
      countMetric('completionChunks');
      if (chunk.last) countCompleted('Chunked', plan);
      logger.debug('receipt completion chunk committed', { tenantId, receiptId, chunk: chunk.index, of: plan.chunks.length });
      record = { ...record, cursor: chunk.index + 1 };
    } catch (error) {
      if (!(error instanceof ConcurrentModification)) throw error;
      // Another pass may have run this chunk: go on from wherever the cursor is now; if it has not moved, retry later.
      const now = await readCompletion(table, tenantId, receiptId);
      if (!now || now.completionId !== completionId) return { outcome: 'stale' };
      if (now.cursor === record.cursor) throw error;
      record = now;
    }
  }
  return { outcome: 'completed', chunksRun };
};

let defaults: CompletionDependencies | undefined;

/** The queue publisher the `sendReceiptCompletions` grant configures, created on first use. */
export const defaultCompletionDependencies = (): CompletionDependencies => {
  defaults ??= { publish: defaultCompletionPublisher() };
  return defaults;
};
