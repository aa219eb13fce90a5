// Domain: what completing a delivery receipt writes, as a plan of abstract transaction actions split into chunks
// that each fit one DynamoDB transaction. Pure and deterministic: the repository maps each action to a
// TransactWriteItems entry; replaying any chunk is a no-op because of its cursor condition and request token.
import { ValidationFailed } from '#shared/errors';
import { formatUnits } from '#shared/decimal/index';
import { quantityScale } from '#shared/schemas/limits';
import type { Actor } from './lifecycle';
import { quantityUnits, type StoredLine } from './lines';

/** DynamoDB's limits of one TransactWriteItems call. */
export const transactionLimits = {
  maxActions: 100,
  /** 4 MB aggregate item size; the budget stays below both 4,000,000 and 4 MiB, and sizes below are upper bounds. */
  maxBytes: 4_000_000,
} as const;

/** Upper bounds of item sizes the plan cannot see: the header may be anything up to DynamoDB's 400 KB item. */
export const itemBytes = {
  header: 400 * 1024,
  stockOnHand: 1024,
  completion: 1024,
  /** Key attributes, type and index attributes the repository adds to a record it stores. */
  keyOverhead: 256,
} as const;

export interface CompletionRequest {
  readonly tenantId: number;
  readonly receiptId: number;
  readonly warehouseId: number;
  /** A UUID chosen when completion is requested and stored on the header, so every replay plans the same chunks. */
  readonly completionId: string;
  /** Who requested the completion and when: stored with the completion id, stamped on lines and the header. */
  readonly actor: Actor;
  /** The receipt's lines (any order; deactivated ones are ignored). Frozen: the receipt is read-only meanwhile. */
  readonly lines: readonly StoredLine[];
}

/** One stock-on-hand increment: the good quantity of every line of one item, summed exactly. */
export interface StockEffect {
  readonly inventoryId: number;
  readonly warehouseId: number;
  /** Exact decimal text (DynamoDB numbers are exact decimals: the repository sends it as a NumberValue). */
  readonly quantity: string;
  readonly lines: readonly { readonly lineId: number; readonly quantity: string }[];
}

export type StockOnHandKey = { readonly tenantId: number; readonly inventoryId: number; readonly warehouseId: number };
export type ReceiptLineKey = { readonly tenantId: number; readonly receiptId: number; readonly lineId: number };
export type ReceiptKey = { readonly tenantId: number; readonly receiptId: number };

export type HeaderExpectation =
  /** One-transaction completion: the receipt is still InProgress (the repository adds its Version condition). */
  | { readonly status: 'InProgress' }
  /** The last chunk of a chunked completion: the receipt is Completing this completion. */
  | { readonly status: 'Completing'; readonly completionId: string };

export type TransactionAction =
  | { readonly role: 'stockOnHand'; readonly key: StockOnHandKey; readonly update: { readonly add: string }; readonly bytes: number }
  | {
      readonly role: 'stockMovement';
      readonly key: ReceiptLineKey;
      /** Put only if absent: a movement is written once per (receipt, line). */
      readonly update: {
        readonly put: {
          readonly InventoryID: number;
          readonly WarehouseID: number;
          readonly Quantity: string;
          readonly CompletionID: string;
          readonly MovedByUserID: number;
          readonly MovedDateTime_utc: string;
        };
      };
      readonly bytes: number;
    }
  | {
      readonly role: 'line';
      readonly key: ReceiptLineKey;
      readonly update: {
        readonly set: { readonly IsStockAdjustmentComplete: true; readonly ReceivedByUserID: number; readonly ReceivedDateTime_utc: string };
      };
      readonly bytes: number;
    }
  | {
      /** The small completion item of the receipt: every chunk is conditional on its id and cursor, and moves it on. */
      readonly role: 'completion';
      readonly key: ReceiptKey;
      readonly expect: { readonly completionId: string; readonly cursor: number };
      readonly update: { readonly set: { readonly CompletionCursor: number } };
      readonly bytes: number;
    }
  | {
      readonly role: 'header';
      readonly key: ReceiptKey;
      readonly expect: HeaderExpectation;
      readonly update: {
        readonly set: { readonly Status: 'Complete'; readonly CompletedByUserID: number; readonly CompletedDateTime_utc: string };
      };
      readonly bytes: number;
    };

export interface CompletionChunk {
  readonly index: number;
  /** The CompletionCursor this chunk expects on the completion item; it leaves it at index + 1. */
  readonly cursor: number;
  /** TransactWriteItems ClientRequestToken: the same for every replay of this chunk, at most 36 characters. */
  readonly clientRequestToken: string;
  readonly last: boolean;
  readonly actions: readonly TransactionAction[];
  readonly bytes: number;
}

export interface CompletionPlan {
  readonly completionId: string;
  /** single: one transaction, the receipt goes InProgress -> Complete; chunked: it enters Completing first. */
  readonly mode: 'single' | 'chunked';
  readonly effects: readonly StockEffect[];
  readonly chunks: readonly CompletionChunk[];
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const tokenIndexDigits = 4;

/**
 * The ClientRequestToken of a chunk: the completion id's 32 hex digits and the chunk index in 4 base-36 digits,
 * 36 characters in all. Distinct per (completion, chunk) for up to 1,679,616 chunks (a 1,000-line receipt needs
 * about 21).
 */
export const chunkRequestToken = (completionId: string, index: number): string => {
  if (!uuidPattern.test(completionId)) throw new Error('A completion id is a UUID.');
  if (!Number.isInteger(index) || index < 0 || index >= 36 ** tokenIndexDigits) throw new Error(`Chunk index ${index} is out of range.`);
  return completionId.replaceAll('-', '').toLowerCase() + index.toString(36).padStart(tokenIndexDigits, '0');
};

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8') + itemBytes.keyOverhead;

/** Lines that put stock on hand: active, with QuantityReceived > 0. Faulty, out-of-date and incorrect never do. */
export const receivingLines = (lines: readonly StoredLine[]): StoredLine[] =>
  lines
    .filter((line) => line.IsActive && quantityUnits(line, 'QuantityReceived') > 0n)
    .sort((a, b) => a.SequenceNumber - b.SequenceNumber || a.ID - b.ID);

/** The stock effects, one per InventoryID (a transaction may not touch an item twice), in InventoryID order. */
export const stockEffects = (lines: readonly StoredLine[], warehouseId: number): StockEffect[] => {
  const missing = receivingLines(lines).filter((line) => !line.InventoryID);
  if (missing.length > 0) {
    throw new ValidationFailed(
      missing.map((line) => ({
        pointer: '/Value/Lines',
        detail: `line ${line.ID} (SequenceNumber ${line.SequenceNumber}) received stock but has no InventoryID`,
      })),
    );
  }
  const groups = new Map<number, StoredLine[]>();
  for (const line of receivingLines(lines)) {
    const inventoryId = line.InventoryID as number;
    groups.set(inventoryId, [...(groups.get(inventoryId) ?? []), line]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([inventoryId, group]) => ({
      inventoryId,
      warehouseId,
      quantity: formatUnits(
        group.reduce((sum, line) => sum + quantityUnits(line, 'QuantityReceived'), 0n),
        quantityScale,
      ),
      lines: group.map((line) => ({ lineId: line.ID, quantity: formatUnits(quantityUnits(line, 'QuantityReceived'), quantityScale) })),
    }));
};

/** Actions that must share a transaction: an item's stock increment; a line's movement with its received mark. */
type Unit = readonly TransactionAction[];

const unitsOf = (request: CompletionRequest, effects: readonly StockEffect[]): Unit[] => {
  const { tenantId, receiptId, warehouseId, completionId, actor } = request;
  const linesById = new Map(request.lines.map((line) => [line.ID, line]));
  const stamps = { IsStockAdjustmentComplete: true, ReceivedByUserID: actor.userId, ReceivedDateTime_utc: actor.at } as const;
  return effects.flatMap((effect): Unit[] => [
    [{ role: 'stockOnHand', key: { tenantId, inventoryId: effect.inventoryId, warehouseId }, update: { add: effect.quantity }, bytes: itemBytes.stockOnHand }],
    ...effect.lines.map((entry): Unit => {
      const key = { tenantId, receiptId, lineId: entry.lineId };
      const put = {
        InventoryID: effect.inventoryId,
        WarehouseID: warehouseId,
        Quantity: entry.quantity,
        CompletionID: completionId,
        MovedByUserID: actor.userId,
        MovedDateTime_utc: actor.at,
      };
      // The line item is rewritten with its stamps: count its size after the update, which replays cannot change.
      const lineAfter = { ...linesById.get(entry.lineId), ...stamps };
      return [
        { role: 'stockMovement', key, update: { put }, bytes: jsonBytes({ ...key, ...put }) },
        { role: 'line', key, update: { set: stamps }, bytes: jsonBytes(lineAfter) },
      ];
    }),
  ]);
};

const sumBytes = (actions: readonly TransactionAction[]) => actions.reduce((sum, action) => sum + action.bytes, 0);

/**
 * Packs units in order into as few chunks as the limits allow. Every chunk keeps room for the completion item and
 * the header (only the last uses the header's room, but a uniform reserve keeps the packing independent of which
 * chunk is last).
 */
const pack = (units: readonly Unit[]): TransactionAction[][] => {
  const maxActions = transactionLimits.maxActions - 2;
  const maxBytes = transactionLimits.maxBytes - itemBytes.header - itemBytes.completion;
  const chunks: TransactionAction[][] = [];
  let current: TransactionAction[] = [];
  let bytes = 0;
  for (const unit of units) {
    const unitBytes = sumBytes(unit);
    if (current.length > 0 && (current.length + unit.length > maxActions || bytes + unitBytes > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(...unit);
    bytes += unitBytes;
  }
  chunks.push(current);
  return chunks;
};

/**
 * The plan of a completion. A single-transaction plan ends with the header action: the receipt must be InProgress
 * and becomes Complete. In a chunked plan every chunk ends with the completion item's action (this completion, at
 * cursor = chunk index; moves the cursor on), and the last chunk also makes the header Complete. The same request
 * always gives the same plan, whatever the order of its lines and whether earlier chunks already stamped some.
 */
export const planCompletion = (request: CompletionRequest): CompletionPlan => {
  if (!request.warehouseId) {
    throw new ValidationFailed([{ pointer: '/Value/WarehouseID', detail: 'is required to complete the receipt' }]);
  }
  const { completionId } = request;
  const effects = stockEffects(request.lines, request.warehouseId);
  const packed = pack(unitsOf(request, effects));
  const mode = packed.length === 1 ? 'single' : 'chunked';
  const key = { tenantId: request.tenantId, receiptId: request.receiptId };
  const set = { Status: 'Complete', CompletedByUserID: request.actor.userId, CompletedDateTime_utc: request.actor.at } as const;
  const chunks = packed.map((actions, index): CompletionChunk => {
    const last = index === packed.length - 1;
    const closing: TransactionAction[] =
      mode === 'single'
        ? [{ role: 'header', key, expect: { status: 'InProgress' }, update: { set }, bytes: itemBytes.header }]
        : [
            { role: 'completion', key, expect: { completionId, cursor: index }, update: { set: { CompletionCursor: index + 1 } }, bytes: itemBytes.completion },
            ...(last
              ? [{ role: 'header', key, expect: { status: 'Completing', completionId }, update: { set }, bytes: itemBytes.header } as const]
              : []),
          ];
    const all = [...actions, ...closing];
    return { index, cursor: index, clientRequestToken: chunkRequestToken(completionId, index), last, actions: all, bytes: sumBytes(all) };
  });
  return { completionId, mode, effects, chunks };
};

/** The chunk a consumer runs next for a header at `cursor`; undefined once the completion is done. */
export const chunkAt = (plan: CompletionPlan, cursor: number): CompletionChunk | undefined => plan.chunks[cursor];
