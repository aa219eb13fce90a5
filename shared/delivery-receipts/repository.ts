// Data layer: delivery receipts in the single table, on the data kit. A receipt is its own partition (keys.ts): the
// header and one item per line. A read is one strongly consistent Query of the header and its lines; a save writes
// the header (Version condition), only the lines that changed, and the RefNumber claim, in one transaction when it
// fits (100 actions), else in chunks under a save lease on the header (see README.md, "Saves larger than one
// transaction"). Completion's storage is here too (`createCompletionRepository`, the `CompletionStore` port): each
// plan action of stock-effects.ts as a TransactWriteItems entry, a chunk per transaction; completion.ts decides.
// So is Search's (`createSearchRepository`, the `ReceiptSearchStore` port): the four shards of an index read in
// order and merged, the criteria as key conditions and FilterExpressions, counts, BatchGetItem by ID, a receipt's
// lines and the continuation items; search.ts keeps the rules (criteria, order, paging, what a page answers).
import { randomUUID } from 'node:crypto';
import { GetCommand, NumberValue, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, queryAll, type TableContext } from '#shared/data/client';
import { getRawItem, plainItem, queryRawItems } from '#shared/data/exact-items';
import { stockOnHandKey } from '#shared/data/stock-on-hand-keys';
import { claimChanges, defineClaim } from '#shared/data/claims';
import { defineCodec } from '#shared/data/codec';
import type { KeyClaimItem } from '#shared/data/idempotency';
import { assertItemFits } from '#shared/data/item-size';
import { nextValue, ValueInUse, withNextValue } from '#shared/data/sequence';
import { tableDefinition } from '#shared/data/table';
import { assertActionsFit, chunkActions, maxTransactionActions, transact, transactionActions, type TransactionItem } from '#shared/data/transaction';
import { ApiError, ConcurrentModification, problemKinds, ReferenceTaken, VersionConflict } from '#shared/errors';
import { apartFromWriteLedger } from '#shared/invocation';
import { withOptimisticRetry } from '#shared/data/retry';
import { lineFieldOrder, receiptFieldOrder } from '#shared/schemas/receipt-fields';
import type { StoredLine } from './lines';
import { completionKey, continuationKey, headerKey, headerSortKey, lineKey, lineSortKeyPrefix, movementKey, receiptPartition, receiptSequence } from './keys';
import { statusView } from './lifecycle';
import { dateRange, receiptSortIndex, searchIndexAttributes, searchPartition, searchShardCount, searchTextAttribute, type ReceiptSortField } from './search-keys';
import { chunkRequestToken, type CompletionChunk, type TransactionAction } from './stock-effects';
import type {
  ChunkedStart,
  CompletionReceipt,
  CompletionRecord,
  CompletionStore,
  HeaderItem,
  ReceiptHeader,
  ReceiptSearchStore,
  ReceiptStore,
  ReceiptWrite,
  SearchCriteria,
  SearchCursor,
  SearchRowsQuery,
  ShardPosition,
  StoredReceipt,
} from './store';

export type { ReceiptHeader, ReceiptWrite, StoredReceipt } from './store';

type HeaderField = Exclude<(typeof receiptFieldOrder)[number], 'Lines'>;
const headerFields = receiptFieldOrder.filter((field): field is HeaderField => field !== 'Lines');

type LineField = Exclude<(typeof lineFieldOrder)[number], 'QuantityToBeReceived'>;
const lineFields = lineFieldOrder.filter((field): field is LineField => field !== 'QuantityToBeReceived');

/** The members of `record` named in `order`, in that order (own members only; nothing else). */
export const inFieldOrder = <T extends object>(record: T, order: readonly string[]): T => {
  const ordered: Record<string, unknown> = {};
  for (const field of order) {
    if (Object.hasOwn(record, field) && (record as Record<string, unknown>)[field] !== undefined) ordered[field] = (record as Record<string, unknown>)[field];
  }
  return ordered as T;
};

export const headerEntity = 'DeliveryReceipt';
export const lineEntity = 'DeliveryReceiptLine';

/** The highest line number the receipt ever gave (so a removed line's number is never given again). */
const lastLineAttribute = 'LastLineNumber';
/** The lease of a save that spans several transactions: `{ id, expiresAt }` (see README.md). */
const leaseAttribute = 'SaveLease';

/**
 * How long a multi-transaction save holds its lease: three times an API function's 10 s timeout, so a lease
 * outlives any save that is still running, and a crashed one blocks the receipt for at most this long.
 */
export const saveLeaseMilliseconds = 30_000;

/** A RefNumber is unique in its tenant, case-insensitively: one claim item per reference. */
export const refNumberClaim = defineClaim({ prefix: 'DRREF', entity: 'DeliveryReceiptRef', ownerAttribute: 'DeliveryReceiptID' });

const headers = defineCodec<ReceiptHeader, keyof ReceiptHeader>({
  entity: headerEntity,
  fields: headerFields,
  key: (header) => headerKey(header.TenantID, header.ID),
  // Contract C6: every header write carries the keys of the search indexes (lines never do: the indexes stay sparse).
  internal: (header) =>
    searchIndexAttributes(header.TenantID, {
      ID: header.ID,
      RefNumber: header.RefNumber,
      DeliveryDate: header.DeliveryDate,
      CreatedDateTime_utc: header.CreatedDateTime_utc,
      Status: header.Status,
      SupplierName: header.SupplierName,
    }),
});

const lineCodec = (tenantId: number, receiptId: number) =>
  defineCodec<StoredLine, keyof StoredLine>({
    entity: lineEntity,
    fields: lineFields,
    key: (line) => lineKey(tenantId, receiptId, line.SequenceNumber),
  });

/** A header and a line as a read gives them back: their stored fields only (for the in-memory store of the port). */
export const storedHeaderOf = (header: ReceiptHeader): ReceiptHeader => headers.fromItem(headers.toItem(header)) as ReceiptHeader;
export const storedLineOf = (tenantId: number, receiptId: number, line: StoredLine): StoredLine => {
  const codec = lineCodec(tenantId, receiptId);
  return codec.fromItem(codec.toItem(line)) as StoredLine;
};

/** Another save of the receipt spans several transactions and holds its lease: read again shortly. */
export class SaveInProgress extends ConcurrentModification {
  override readonly name: string = 'SaveInProgress';
  constructor() {
    super('The receipt is being saved by another request; retry shortly.');
  }
}

/** Another save's lease outlasted a read's whole wait: 409, as SaveInProgress, but no longer a race to retry. */
export class StillBeingSaved extends ApiError {
  override readonly name = 'StillBeingSaved';
  constructor(detail: string) {
    super(problemKinds.conflict, detail);
  }
}

/**
 * Runs a read that refuses a receipt under another save's live lease (SaveInProgress) again under the optimistic
 * retry policy (about 4.6 s at most), then answers the lease still held as StillBeingSaved (409), which no caller's
 * own retry loop takes for a lost race (a save's or an add's, whose ten rounds of waits outlasted the function: a 504
 * at about 10 s against a dead save's 30 s lease, where a read answered 409 in a few; a bad-day review).
 */
export const waitingOutLeases = <T>(read: () => Promise<T>): Promise<T> =>
  withOptimisticRetry(read).catch((error: unknown) => {
    throw error instanceof SaveInProgress ? new StillBeingSaved(error.detail) : error;
  });

/** True when the header item is under a save's lease still live at `now` (its Version already the save's, its lines half written). */
export const underLiveLease = (item: Readonly<Record<string, unknown>>, now: number): boolean => {
  const lease = leaseOf(item);
  return lease !== undefined && lease.expiresAt >= now;
};

/** The RefNumber is another receipt's (409, at the field). */
export class RefNumberTaken extends ReferenceTaken {
  override readonly name: string = 'RefNumberTaken';
  constructor(refNumber: string) {
    super(`Another delivery receipt of this tenant has the RefNumber ${refNumber}.`, '/Value/RefNumber');
  }
}

/** What completion adds to a header between saves (CompletionID, its cursor, status fields): kept free. */
const headerCompletionReserveBytes = 1024;

type Role = 'header' | 'line' | 'claim' | 'claim-release' | 'lease';

interface Lease {
  readonly id: string;
  readonly expiresAt: number;
}

const leaseOf = (item: Readonly<Record<string, unknown>>): Lease | undefined => {
  const lease = item[leaseAttribute] as Partial<Lease> | undefined;
  return typeof lease?.id === 'string' && typeof lease.expiresAt === 'number' ? { id: lease.id, expiresAt: lease.expiresAt } : undefined;
};

const storedFieldNames = new Set<string>(headerFields);
const keyAttributes = new Set(['pk', 'sk', 'entity', lastLineAttribute, leaseAttribute]);

/** The header item a save stores: what completion keeps on it (its internal attributes but the indexes'), the header, the line counter. */
const headerItemOf = (write: ReceiptWrite) => {
  const preserved = Object.fromEntries(
    Object.entries(write.previous?.internal ?? {}).filter(([name]) => !name.startsWith('gsi') && name !== searchTextAttribute),
  );
  return { ...preserved, ...headers.toItem(write.header), [lastLineAttribute]: write.lastLineNumber };
};

const lineActionsOf = (tableName: string, write: ReceiptWrite, add: (role: Role, item: TransactionItem) => void) => {
  const codec = lineCodec(write.tenantId, write.header.ID);
  // Deletes first: a save stopped between chunks never holds more lines than before or after it.
  for (const line of write.deletes) add('line', { Delete: { TableName: tableName, Key: lineKey(write.tenantId, write.header.ID, line.SequenceNumber) } });
  for (const line of write.puts) add('line', { Put: { TableName: tableName, Item: codec.toItem(line) } });
};

const claimActionsOf = (tableName: string, write: ReceiptWrite, add: (role: Role, item: TransactionItem) => void) => {
  const changes = claimChanges(refNumberClaim, tableName, write.tenantId, write.header.ID, write.previous?.header.RefNumber, write.header.RefNumber);
  if (changes.release) add('claim-release', changes.release);
  if (changes.claim) add('claim', changes.claim);
};

/**
 * Refuses (413) a save with an item DynamoDB would refuse: any line, and the header with room for what completion
 * adds to it (status, cursor, completion id), before anything is written. (Exported for the in-memory store of the
 * port, test/stores/delivery-receipts/memory-receipt-store.ts, which refuses what this store refuses.)
 */
export const assertReceiptWriteFits = (tableName: string, write: ReceiptWrite): void => {
  const { actions, add } = transactionActions<Role>();
  lineActionsOf(tableName, write, add);
  assertItemFits(headerItemOf(write), { reserveBytes: headerCompletionReserveBytes });
  assertActionsFit(actions.map((action) => action.item));
};

/**
 * The actions of a save in one transaction: its RefNumber claim and release, its lines, the header; with its key's
 * claim, one more. Over 100, the save goes in chunks (exported for the in-memory store, as above).
 */
export const receiptWriteActionCount = (tableName: string, write: ReceiptWrite, keyed: boolean): number => {
  const { actions, add } = transactionActions<Role>();
  claimActionsOf(tableName, write, add);
  lineActionsOf(tableName, write, add);
  return actions.length + 1 + (keyed ? 1 : 0);
};

/** Line actions per transaction of a save in chunks: each chunk also holds its guard (the lease, or "no header yet"). */
export const receiptLineChunkSize = maxTransactionActions - 1;

export const createReceiptRepository = (table: TableContext, clock: () => Date = () => new Date()): ReceiptStore => {
  const { client, tableName } = table;

  /**
   * Header writes succeed only when no other save holds a live lease on it; `ownLease` (the lease of this request's
   * earlier attempt, named by its pending claim) counts as free.
   */
  const noLiveLease = (now: number, ownLease?: string) =>
    ownLease === undefined
      ? { condition: '(attribute_not_exists(#lease) OR #lease.expiresAt < :now)', names: { '#lease': leaseAttribute }, values: { ':now': now } }
      : {
          condition: '(attribute_not_exists(#lease) OR #lease.expiresAt < :now OR #lease.id = :ownLease)',
          names: { '#lease': leaseAttribute },
          values: { ':now': now, ':ownLease': ownLease },
        };

  const headerItem = headerItemOf;
  const lineActions = (write: ReceiptWrite, add: (role: Role, item: TransactionItem) => void) => lineActionsOf(tableName, write, add);
  const claimActions = (write: ReceiptWrite, add: (role: Role, item: TransactionItem) => void) => claimActionsOf(tableName, write, add);

  /** The header put that makes a save visible: conditional on the Version read (or on nothing stored yet). */
  const headerPut = (write: ReceiptWrite, now: number, leaseId?: string): TransactionItem => {
    const expected = write.previous?.header.Version;
    if (expected === undefined) {
      return { Put: { TableName: tableName, Item: headerItem(write), ConditionExpression: 'attribute_not_exists(pk)' } };
    }
    if (leaseId !== undefined) {
      return {
        Put: {
          TableName: tableName,
          Item: headerItem(write),
          ConditionExpression: '#lease.id = :lease',
          ExpressionAttributeNames: { '#lease': leaseAttribute },
          ExpressionAttributeValues: { ':lease': leaseId },
        },
      };
    }
    const free = noLiveLease(now, write.resumeLease);
    return {
      Put: {
        TableName: tableName,
        Item: headerItem(write),
        ConditionExpression: `#version = :expected AND ${free.condition}`,
        ExpressionAttributeNames: { '#version': 'Version', ...free.names },
        ExpressionAttributeValues: { ':expected': expected, ...free.values },
      },
    };
  };

  const errors = (write: ReceiptWrite) => ({
    // A create's own header there: its ID is in use (the sequence behind), stepped past by the service.
    header: () => (write.previous ? new VersionConflict() : new ValueInUse('delivery receipt ID', write.header.ID)),
    claim: () => new RefNumberTaken(write.header.RefNumber),
    'claim-release': () => new ConcurrentModification(),
    lease: () => new VersionConflict(),
  });

  /**
   * A save too large for one transaction. A create writes its lines first (no header yet: Get answers 404 and no
   * one can save the receipt), then the header with its RefNumber claim. An update first takes a lease on the header
   * (its Version condition, and the new Version, so every concurrent save and completion fails from then on), with
   * its new RefNumber's claim, writes the line chunks, each conditional on the lease, then puts the header, which
   * releases it, with the old RefNumber's release. The claim goes first so that a RefNumber another receipt took
   * between the service's check and this write refuses the save before anything changed (before: it was refused at
   * the last transaction, every line written, the Version moved and the receipt leased; found by a bad-day review).
   * A retry of the save finds the claim its own (`claimOrKeep`); a save abandoned half way leaves the receipt holding
   * the new value too, unseen, until it is saved with it.
   */
  const writeInChunks = async (write: ReceiptWrite, now: number) => {
    const leaseId = randomUUID();
    const header = headerKey(write.tenantId, write.header.ID);
    const guard: TransactionItem = write.previous
      ? {
          ConditionCheck: {
            TableName: tableName,
            Key: header,
            ConditionExpression: '#lease.id = :lease',
            ExpressionAttributeNames: { '#lease': leaseAttribute },
            ExpressionAttributeValues: { ':lease': leaseId },
          },
        }
      : { ConditionCheck: { TableName: tableName, Key: header, ConditionExpression: 'attribute_not_exists(pk)' } };
    const refNumber = claimChanges(refNumberClaim, tableName, write.tenantId, write.header.ID, write.previous?.header.RefNumber, write.header.RefNumber);
    if (write.previous) {
      // Free: no live lease, or the lease of this request's earlier attempt, taken over.
      const free = noLiveLease(now, write.resumeLease);
      const claimWithLease =
        refNumber.claim && write.header.RefNumber !== undefined
          ? [{ role: 'claim' as Role, item: refNumberClaim.claimOrKeep(tableName, write.tenantId, write.header.RefNumber, write.header.ID) }]
          : [];
      await transact(
        table,
        [
          {
            role: 'lease' as Role,
            item: {
              Update: {
                TableName: tableName,
                Key: header,
                UpdateExpression: 'SET #lease = :leased, #version = :next',
                ConditionExpression: `#version = :expected AND ${free.condition}`,
                ExpressionAttributeNames: { '#version': 'Version', ...free.names },
                ExpressionAttributeValues: {
                  ':leased': { id: leaseId, expiresAt: now + saveLeaseMilliseconds },
                  ':next': write.header.Version,
                  ':expected': write.previous.header.Version,
                  ...free.values,
                },
              },
            },
          },
          // After the lease: a Version that moved is decided again first (VersionConflict before RefNumberTaken).
          ...claimWithLease,
        ],
        { errors: errors(write), ...(write.pendingClaim ? { claim: write.pendingClaim(leaseId) } : {}) },
      );
    }
    const lines = transactionActions<Role>();
    lineActions(write, lines.add);
    const chunks = chunkActions(lines.actions, receiptLineChunkSize);
    for (const [index, chunk] of chunks.entries()) {
      // A token per send: the SDK's retries of one send stay idempotent, and a chunk cancelled by another
      // transaction (nothing written; its lines are Puts and Deletes under the lease) is sent again, not left to
      // end the save with its lease held and half its lines written.
      await transact(table, [{ role: 'header' as Role, item: guard }, ...chunk], {
        // A create's first chunk finding the header there: its ID is in use, and nothing was written.
        errors: { ...errors(write), header: () => (!write.previous && index === 0 ? new ValueInUse('delivery receipt ID', write.header.ID) : new SaveInProgress()) },
        tokenOfAttempt: (attempt) => chunkRequestToken(attempt === 1 ? leaseId : randomUUID(), index),
      });
    }
    const last = transactionActions<Role>();
    if (write.previous) {
      if (refNumber.release) last.add('claim-release', refNumber.release);
    } else claimActions(write, last.add);
    last.add('header', headerPut(write, now, write.previous ? leaseId : undefined));
    await transact(table, last.actions, { errors: errors(write), ...(write.claim ? { claim: write.claim } : {}) });
  };

  return {
    /** Refuses (413) a save whose items DynamoDB would refuse; a create calls it with the largest ID before taking one. */
    assertFits: (write: ReceiptWrite): void => assertReceiptWriteFits(tableName, write),

    /** True when the write is one transaction (at most 100 actions): a refusal then leaves nothing written. */
    fitsOneTransaction: (write: ReceiptWrite, keyed = false): boolean => receiptWriteActionCount(tableName, write, keyed) <= maxTransactionActions,

    /** The next receipt ID of the tenant; its default RefNumber is `DR-` and the ID in six digits. */
    nextId: (tenantId: number): Promise<number> => nextValue(table, tenantId, receiptSequence, 'delivery receipt ID'),

    /** Runs a create with the next ID, given back when the create is refused with nothing written (a RefNumber taken). */
    withNextId: <T>(tenantId: number, create: (id: number) => Promise<T>): Promise<T> =>
      withNextValue(table, tenantId, receiptSequence, 'delivery receipt ID', create),

    /**
     * The header and every line of a receipt: one strongly consistent Query of its partition, from `HEADER` to the
     * last `LINE#` (movements and the completion item sort outside that range). Undefined when it does not exist.
     * A receipt under another save's live lease throws SaveInProgress (its lines may be half written).
     */
    async read(tenantId: number, receiptId: number, ownLease?: string): Promise<StoredReceipt | undefined> {
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': receiptPartition(tenantId, receiptId), ':from': headerSortKey, ':to': `${lineSortKeyPrefix}~` },
        ConsistentRead: true,
      });
      const headerItemRead = items.find((item) => item.sk === headerSortKey && item.entity === headerEntity);
      if (!headerItemRead) return undefined;
      const lease = leaseOf(headerItemRead);
      if (lease && lease.expiresAt >= clock().getTime() && lease.id !== ownLease) throw new SaveInProgress();
      const codec = lineCodec(tenantId, receiptId);
      const lines = items.filter((item) => item.entity === lineEntity).map((item) => codec.fromItem(item) as StoredLine);
      const internal = Object.fromEntries(
        Object.entries(headerItemRead).filter(([name]) => !storedFieldNames.has(name) && !keyAttributes.has(name)),
      );
      const counter = Number(headerItemRead[lastLineAttribute] ?? 0);
      return {
        header: headers.fromItem(headerItemRead) as ReceiptHeader,
        lines,
        lastLineNumber: Math.max(counter, ...lines.map((line) => line.ID)),
        internal,
      };
    },

    /** Who holds a RefNumber now (strongly consistent). */
    refNumberOwner: async (tenantId: number, refNumber: string): Promise<number | undefined> => {
      const owner = await refNumberClaim.owner(table, tenantId, refNumber);
      return typeof owner === 'number' ? owner : undefined;
    },

    /**
     * Writes a save: the RefNumber claim (and release), the removed and changed lines and the header, atomically
     * when they fit one transaction, else in chunks (writeInChunks). A Version that moved is VersionConflict (a
     * live lease too), a RefNumber another receipt holds RefNumberTaken.
     */
    recordAnswer: (claim): Promise<void> => transact(table, [], { claim }),

    async write(write: ReceiptWrite): Promise<void> {
      const now = clock().getTime();
      const { actions, add } = transactionActions<Role>();
      // A create's header first: its ID found in use (ValueInUse, stepped past) is the cause of any claim refused
      // with it (its default RefNumber, made from the ID, is then the other receipt's).
      if (!write.previous) add('header', headerPut(write, now));
      claimActions(write, add);
      lineActions(write, add);
      if (write.previous) add('header', headerPut(write, now));
      // Every item checked before the first chunk is sent, so a save too large to store writes nothing.
      assertItemFits(headerItem(write), { reserveBytes: headerCompletionReserveBytes });
      assertActionsFit(actions.map((action) => action.item));
      // The key's claim (when sent) is one more item of the one transaction, or of the chunked write's last.
      if (actions.length + (write.claim ? 1 : 0) <= maxTransactionActions) {
        await transact(table, actions, { errors: errors(write), ...(write.claim ? { claim: write.claim } : {}) });
        return;
      }
      await writeInChunks(write, now);
    },
  };
};

/** The `entity` attributes of the items completion writes besides lines and the header. */
export const completionEntities = { completion: 'ReceiptCompletion', movement: 'StockMovement', stockOnHand: 'StockOnHand' } as const;

type CompletionRole = TransactionAction['role'];

const exactNumber = (text: string) => NumberValue.from(text);

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
            ':quantity': exactNumber(action.update.add),
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
          Item: { ...movementKey(tenantId, receiptId, lineSequence(lineId)), entity: completionEntities.movement, LineID: lineId, ...put, Quantity: exactNumber(put.Quantity) },
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
            // A write moves the modified stamps with the Version: the completion's, so ModifiedDateTime_utc is never
            // older than CompletedDateTime_utc (and every replay of the last chunk writes the same values).
            'SET #status = :status, FriendlyStatus = :friendly, IsReadOnly = :readOnly, CompletedByUserID = :user, CompletedDateTime_utc = :at, ModifiedByUserID = :user, ModifiedDateTime_utc = :at ADD Version :one',
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

/**
 * The header and every line in one strongly consistent Query: the sort keys from `HEADER` to the last `LINE#` (the
 * completion item sorts before, movements after).
 */
const readReceipt = async (table: TableContext, tenantId: number, receiptId: number): Promise<CompletionReceipt | undefined> => {
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

/**
 * One chunk as one transaction, idempotent for DynamoDB's 10 minutes through the chunk's ClientRequestToken (the SDK's
 * resend of a send whose answer was lost carries the same token). A chunk cancelled by another transaction (nothing
 * written: a hot stock-on-hand item that another completion or save held at that moment) is sent again in this
 * invocation under a token of its own per send (`tokenOfAttempt`), its cursor condition keeping it exactly once: with
 * one token it was never resent, and each conflict cost the completion message a receive whatever the pass had done,
 * so five left the receipt Completing, half applied, its message in the DLQ. A chunk with an Idempotency-Key's claim
 * (the inline one-transaction completion) keeps its one token.
 */
const runChunk = async (table: TableContext, chunk: CompletionChunk, lines: readonly StoredLine[], headerVersion?: number, claim?: KeyClaimItem) => {
  const sequence = lineSequences(lines);
  const { actions, add } = transactionActions<CompletionRole>();
  for (const action of chunk.actions) {
    const item = transactionItem(table.tableName, action, sequence);
    add(action.role, action.role === 'header' && headerVersion !== undefined ? withVersionCondition(item, headerVersion) : item);
  }
  const errors = { header: () => new VersionConflict() };
  if (claim) return transact(table, actions, { errors, clientRequestToken: chunk.clientRequestToken, claim });
  await transact(table, actions, {
    errors,
    tokenOfAttempt: (attempt) => (attempt === 1 ? chunk.clientRequestToken : chunkRequestToken(randomUUID(), chunk.index)),
  });
};

/** The completion record of a stored completion item (plain values). */
export const completionRecordOf = (plain: Readonly<Record<string, unknown>>): CompletionRecord => ({
  completionId: String(plain.CompletionID),
  cursor: Number(plain.CompletionCursor),
  chunkCount: Number(plain.ChunkCount),
  warehouseId: Number(plain.WarehouseID),
  actor: { userId: Number(plain.RequestedByUserID), at: String(plain.RequestedDateTime_utc) },
});

/** The completion item a chunked completion starts with (cursor 0): who asked and where the stock goes. */
export const completionItem = ({ tenantId, receiptId, completionId, chunkCount, warehouseId, actor }: ChunkedStart): Record<string, unknown> => ({
  ...completionKey(tenantId, receiptId),
  entity: completionEntities.completion,
  CompletionID: completionId,
  CompletionCursor: 0,
  ChunkCount: chunkCount,
  WarehouseID: warehouseId,
  RequestedByUserID: actor.userId,
  RequestedDateTime_utc: actor.at,
});

const readCompletion = async (table: TableContext, tenantId: number, receiptId: number) => {
  const item = await getRawItem(table, completionKey(tenantId, receiptId));
  return item ? completionRecordOf(plainItem(item)) : undefined;
};

/**
 * Header -> Completing (read-only, Version + 1, modified by the requester at the request's time) with the completion
 * item at cursor 0, in one transaction.
 */
const startChunked = async (table: TableContext, start: ChunkedStart) => {
  const { tenantId, receiptId, expectedVersion, completionId, actor } = start;
  const view = statusView('Completing');
  const { actions, add } = transactionActions<'header' | 'completion'>();
  add('header', {
    Update: {
      TableName: table.tableName,
      Key: headerKey(tenantId, receiptId),
      UpdateExpression:
        'SET #status = :status, FriendlyStatus = :friendly, IsReadOnly = :readOnly, CompletionID = :completion, ModifiedByUserID = :user, ModifiedDateTime_utc = :at ADD Version :one',
      ConditionExpression: '#status = :expected AND Version = :version',
      ExpressionAttributeNames: { '#status': 'Status' },
      ExpressionAttributeValues: {
        ':status': view.Status,
        ':friendly': view.FriendlyStatus,
        ':readOnly': view.IsReadOnly,
        ':completion': completionId,
        ':user': actor.userId,
        ':at': actor.at,
        ':one': 1,
        ':expected': 'InProgress',
        ':version': expectedVersion,
      },
    },
  });
  add('completion', {
    Put: {
      TableName: table.tableName,
      Item: completionItem(start),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  await transact(table, actions, { errors: { header: () => new VersionConflict() }, ...(start.claim ? { claim: start.claim } : {}) });
};

/** Completion's storage (store.ts `CompletionStore`): the receipt partition read and written in plan-sized transactions. */
export const createCompletionRepository = (table: TableContext): CompletionStore => ({
  readReceipt: (tenantId, receiptId) => readReceipt(table, tenantId, receiptId),
  readCompletion: (tenantId, receiptId) => readCompletion(table, tenantId, receiptId),
  runChunk: (chunk, lines, headerVersion, claim) => runChunk(table, chunk, lines, headerVersion, claim),
  startChunked: (start) => startChunked(table, start),
});

// Search (README.md, "Indexes and search"): the ReceiptSearchStore port over the four sharded header indexes.

interface Expression {
  readonly KeyConditionExpression?: string;
  readonly FilterExpression?: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

const deliveryDateKey = receiptSortIndex('DeliveryDate').index.sortKey;

/** The key condition of one shard and the FilterExpression of the criteria that are not keys of this index. */
export const queryExpression = (tenantId: number, shard: number, sortField: ReceiptSortField, criteria: SearchCriteria): Expression => {
  const { index } = receiptSortIndex(sortField);
  const names: Record<string, string> = { '#pk': index.partitionKey };
  const values: Record<string, unknown> = { ':pk': searchPartition(tenantId, shard) };
  const filters: string[] = [];
  const range = dateRange(criteria);
  let keyCondition = '#pk = :pk';
  if (range) {
    values[':low'] = range.low;
    if (range.high !== undefined) values[':high'] = range.high;
    if (sortField === 'DeliveryDate') {
      names['#sk'] = index.sortKey;
      keyCondition += range.high === undefined ? ' AND #sk >= :low' : ' AND #sk BETWEEN :low AND :high';
    } else {
      names['#date'] = deliveryDateKey;
      filters.push(range.high === undefined ? '#date >= :low' : '(#date >= :low AND #date < :high)');
    }
  }
  if (criteria.statuses) {
    names['#status'] = 'Status';
    const operands = criteria.statuses.map((status, position) => {
      values[`:status${position}`] = status;
      return `:status${position}`;
    });
    // A header without a Status is a Draft (lifecycle.ts).
    filters.push(`(#status IN (${operands.join(', ')})${criteria.statuses.includes('Draft') ? ' OR attribute_not_exists(#status)' : ''})`);
  }
  if (criteria.text) {
    names['#text'] = searchTextAttribute;
    values[':text'] = criteria.text;
    filters.push('contains(#text, :text)');
  }
  if (criteria.supplierId !== undefined) {
    names['#supplier'] = 'SupplierID';
    values[':supplier'] = criteria.supplierId;
    filters.push('#supplier = :supplier');
  }
  if (criteria.guids) {
    names['#guid'] = 'GUID';
    const operands = criteria.guids.flatMap((guid, position) => {
      values[`:guid${position}`] = guid;
      values[`:GUID${position}`] = guid.toUpperCase();
      return [`:guid${position}`, `:GUID${position}`];
    });
    filters.push(`#guid IN (${operands.join(', ')})`);
  }
  return {
    KeyConditionExpression: keyCondition,
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};

/** One shard of the index, read in order for one request: what it buffered, where it continues, where it stands. */
class ShardReader {
  readonly buffer: Record<string, unknown>[] = [];
  private next: Record<string, unknown> | undefined;
  private exhausted: boolean;
  private limit = 0;
  /** Where this shard stands after the rows taken so far. */
  position: ShardPosition;

  constructor(
    private readonly table: TableContext,
    private readonly input: QueryCommandInput,
    private readonly keyAttributes: readonly string[],
    start: ShardPosition,
  ) {
    this.next = start.after;
    this.exhausted = start.done;
    this.position = start;
  }

  get finished(): boolean {
    return this.exhausted && this.buffer.length === 0;
  }

  /** Reads until a row is buffered or the shard ends; `wanted` rows sizes the first read, and each empty read doubles it. */
  async fill(wanted: number): Promise<void> {
    this.limit = Math.max(this.limit, Math.min(1_000, Math.max(4, wanted)));
    while (this.buffer.length === 0 && !this.exhausted) {
      const answer = await this.table.client.send(new QueryCommand({ ...this.input, Limit: this.limit, ExclusiveStartKey: this.next }));
      this.buffer.push(...((answer.Items ?? []) as Record<string, unknown>[]));
      this.next = answer.LastEvaluatedKey;
      this.exhausted = this.next === undefined;
      if (this.buffer.length === 0) this.limit = Math.min(1_000, this.limit * 2);
    }
    if (this.finished) this.position = { ...this.position, done: true };
  }

  take(): Record<string, unknown> {
    const item = this.buffer.shift() as Record<string, unknown>;
    const after = Object.fromEntries(this.keyAttributes.map((name) => [name, item[name] as string]));
    this.position = { after, done: this.exhausted && this.buffer.length === 0 };
    return item;
  }
}

export const createSearchRepository = (table: TableContext): ReceiptSearchStore => {
  const { client, tableName } = table;

  /** Merges the shards in order: skips `skip` rows, then takes up to `take`; says whether a row lies after them. */
  const readRows = async ({ tenantId, sortField, ascending, criteria, compare, after, skip, take }: SearchRowsQuery) => {
    const { index } = receiptSortIndex(sortField);
    const keyAttributes = [tableDefinition.partitionKey, tableDefinition.sortKey, index.partitionKey, index.sortKey];
    const start = after ?? Array.from({ length: searchShardCount }, (): ShardPosition => ({ done: false }));
    const readers = start.map(
      (position, shard) =>
        new ShardReader(
          table,
          { TableName: tableName, IndexName: index.indexName, ScanIndexForward: ascending, ...queryExpression(tenantId, shard, sortField, criteria) },
          keyAttributes,
          position,
        ),
    );
    const rows: { item: HeaderItem; cursor: SearchCursor }[] = [];
    let skipped = 0;
    // Each shard is asked for its share of the rows still needed, plus a fifth for rows a filter drops, so a page
    // is usually one Query per shard; a shard that runs dry is asked again (reads only grow with what is needed).
    const fillAll = () =>
      Promise.all(readers.map((reader) => reader.fill(Math.ceil((1.2 * (skip - skipped + take - rows.length + 1)) / searchShardCount) + 1)));
    for (;;) {
      await fillAll();
      if (rows.length >= take) break;
      let best: ShardReader | undefined;
      for (const reader of readers) {
        const head = reader.buffer[0];
        if (head && (!best || compare(head, best.buffer[0] as Record<string, unknown>) < 0)) best = reader;
      }
      if (!best) break;
      const item = best.take();
      if (skipped < skip) skipped += 1;
      else rows.push({ item, cursor: readers.map((reader) => reader.position) });
    }
    return { skipped, rows, more: readers.some((reader) => reader.buffer.length > 0) };
  };

  const count = async (tenantId: number, criteria: SearchCriteria): Promise<number> => {
    const { index } = receiptSortIndex('DeliveryDate');
    const counts = await Promise.all(
      Array.from({ length: searchShardCount }, async (_, shard) => {
        let found = 0;
        let ExclusiveStartKey: Record<string, unknown> | undefined;
        do {
          const answer = await client.send(
            new QueryCommand({ TableName: tableName, IndexName: index.indexName, Select: 'COUNT', ExclusiveStartKey, ...queryExpression(tenantId, shard, 'DeliveryDate', criteria) }),
          );
          found += answer.Count ?? 0;
          ExclusiveStartKey = answer.LastEvaluatedKey;
        } while (ExclusiveStartKey);
        return found;
      }),
    );
    return counts.reduce((sum, shardCount) => sum + shardCount, 0);
  };

  /**
   * The receipts' headers (BatchGetItem, data kit `batchGetAll`), strongly consistent: what a page answers of each
   * row the lagging index found, and what a search by IDs answers.
   */
  const readHeaders = async (tenantId: number, ids: readonly number[]): Promise<HeaderItem[]> =>
    (await batchGetAll(table, ids.map((id) => ({ ...headerKey(tenantId, id) })), { consistent: true })) as HeaderItem[];

  /** One Query of the receipt's line items, strongly consistent (as its header is read). */
  const readLines = async (tenantId: number, receiptId: number): Promise<StoredLine[]> => {
    const items = await queryAll(client, {
      TableName: tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :line)',
      ExpressionAttributeNames: { '#pk': tableDefinition.partitionKey, '#sk': tableDefinition.sortKey },
      ExpressionAttributeValues: { ':pk': receiptPartition(tenantId, receiptId), ':line': lineSortKeyPrefix },
      ConsistentRead: true,
    });
    return items.map((item) => inFieldOrder(item, lineFieldOrder) as StoredLine);
  };

  const readContinuation = async (tenantId: number, queryHash: string, rowNumber: number, now: Date): Promise<SearchCursor | undefined> => {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: continuationKey(tenantId, queryHash, rowNumber), ConsistentRead: true }));
    const shards = Item?.shards;
    // TTL deletes an expired item within days, not at once: an expired one is as good as none.
    if (!Item || typeof Item.expiresAt !== 'number' || Item.expiresAt * 1000 <= now.getTime() || !Array.isArray(shards) || shards.length !== searchShardCount) return undefined;
    return shards as ShardPosition[];
  };

  const writeContinuation = async (tenantId: number, queryHash: string, rowNumber: number, cursor: SearchCursor, expiresAt: Date): Promise<void> => {
    const item = {
      ...continuationKey(tenantId, queryHash, rowNumber),
      entity: 'DeliveryReceiptSearchContinuation',
      shards: cursor.map((position) => (position.after ? { after: position.after, done: position.done } : { done: position.done })),
      [tableDefinition.timeToLiveAttribute]: Math.floor(expiresAt.getTime() / 1000),
    };
    assertItemFits(item);
    // A Search's own bookkeeping, not a write its client asked for: whatever becomes of it, a retry of the Search is
    // harmless, so it never makes the Search's failure a "write outcome unknown" 504 (shared/data/write-outcome.ts).
    await apartFromWriteLedger(() => client.send(new PutCommand({ TableName: tableName, Item: item })));
  };

  return { readRows, count, readHeaders, readLines, readContinuation, writeContinuation };
};
