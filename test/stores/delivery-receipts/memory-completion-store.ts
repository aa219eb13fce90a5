// Test support: completion's store port (shared/delivery-receipts/store.ts `CompletionStore`) in memory, over the
// items of the table's layout (keys.ts). It passes the same contract suite as the DynamoDB repository
// (./completion-store-contract.ts, in the unit tier against this store, in the integration tier against DynamoDB
// Local) and keeps the repository's transaction: every condition of a chunk is checked before anything is written,
// the first that fails names the error (the header's VersionConflict, any other ConcurrentModification), and stock
// is added exactly (decimal text, never doubles). A chunk's ClientRequestToken makes a replay of a chunk that was
// written succeed without a second effect, and a different chunk under the same token fail, as DynamoDB's does.
import { stockOnHandKey } from '#shared/data/stock-on-hand-keys';
import { formatUnits, numberToUnits, textToUnits } from '#shared/decimal/index';
import { completionKey, headerKey, headerSortKey, lineKey, lineSortKeyPrefix, movementKey, receiptPartition } from '#shared/delivery-receipts/keys';
import { statusView } from '#shared/delivery-receipts/lifecycle';
import type { StoredLine } from '#shared/delivery-receipts/lines';
import { completionEntities, completionItem, completionRecordOf } from '#shared/delivery-receipts/repository';
import type { TransactionAction } from '#shared/delivery-receipts/stock-effects';
import type { CompletionStore } from '#shared/delivery-receipts/store';
import { ConcurrentModification, VersionConflict } from '#shared/errors';
import { quantityScale } from '#shared/schemas/limits';
import { memoryKeyClaims } from '#test/stores/key-claims';

type Key = { readonly pk: string; readonly sk: string };
type Item = Record<string, unknown>;

const keyOf = ({ pk, sk }: Key) => `${pk}\u0000${sk}`;
/** Exact sums at the quantities' scale, as DynamoDB adds exact decimals. */
const exactSum = (stored: unknown, add: string) =>
  Number(formatUnits((typeof stored === 'number' ? (numberToUnits(stored, quantityScale) ?? 0n) : 0n) + textToUnits(add, quantityScale), quantityScale));

export const createMemoryCompletionStore = () => {
  const items = new Map<string, Item>();
  /** Idempotency-Key claims written with a completion's deciding transaction. */
  const keyClaims = memoryKeyClaims();
  /** The chunks written, by ClientRequestToken: what each token was used for. */
  const tokens = new Map<string, string>();
  const get = (key: Key) => items.get(keyOf(key));

  /** One action: its condition (checked first) and its write (applied once every condition holds). */
  const step = (action: TransactionAction, sequence: (lineId: number) => number, headerVersion?: number): { readonly holds: boolean; readonly write: () => void } => {
    switch (action.role) {
      case 'stockOnHand': {
        const { tenantId, inventoryId, warehouseId } = action.key;
        const key = stockOnHandKey(tenantId, inventoryId, warehouseId);
        return {
          holds: true,
          write: () => items.set(keyOf(key), { ...get(key), ...key, entity: completionEntities.stockOnHand, InventoryID: inventoryId, WarehouseID: warehouseId, TotalSOH: exactSum(get(key)?.TotalSOH, action.update.add) }),
        };
      }
      case 'stockMovement': {
        const key = movementKey(action.key.tenantId, action.key.receiptId, sequence(action.key.lineId));
        const { put } = action.update;
        return { holds: !get(key), write: () => items.set(keyOf(key), { ...key, entity: completionEntities.movement, LineID: action.key.lineId, ...put, Quantity: Number(put.Quantity) }) };
      }
      case 'line': {
        const key = lineKey(action.key.tenantId, action.key.receiptId, sequence(action.key.lineId));
        return { holds: get(key) !== undefined, write: () => items.set(keyOf(key), { ...get(key), ...action.update.set }) };
      }
      case 'completion': {
        const key = completionKey(action.key.tenantId, action.key.receiptId);
        const stored = get(key);
        return {
          holds: stored?.CompletionID === action.expect.completionId && stored.CompletionCursor === action.expect.cursor,
          write: () => items.set(keyOf(key), { ...get(key), CompletionCursor: action.update.set.CompletionCursor }),
        };
      }
      case 'header': {
        const key = headerKey(action.key.tenantId, action.key.receiptId);
        const stored = get(key);
        const { expect } = action;
        const holds =
          stored !== undefined &&
          stored.Status === expect.status &&
          (expect.status === 'InProgress' || stored.CompletionID === expect.completionId) &&
          (headerVersion === undefined || stored.Version === headerVersion);
        const { CompletedByUserID, CompletedDateTime_utc } = action.update.set;
        return {
          holds,
          write: () =>
            items.set(keyOf(key), {
              ...get(key),
              ...statusView('Complete'),
              CompletedByUserID,
              CompletedDateTime_utc,
              ModifiedByUserID: CompletedByUserID,
              ModifiedDateTime_utc: CompletedDateTime_utc,
              Version: Number(get(key)?.Version ?? 0) + 1,
            }),
        };
      }
    }
  };

  const store: CompletionStore = {
    async readReceipt(tenantId, receiptId) {
      const pk = receiptPartition(tenantId, receiptId);
      const header = get({ pk, sk: headerSortKey });
      if (!header) return undefined;
      const lines = [...items.values()].filter((item) => item.pk === pk && String(item.sk).startsWith(lineSortKeyPrefix)).sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1));
      return structuredClone({ header, lines: lines as unknown as StoredLine[] });
    },

    async readCompletion(tenantId, receiptId) {
      const item = get(completionKey(tenantId, receiptId));
      return item ? completionRecordOf(item) : undefined;
    },

    async runChunk(chunk, lines, headerVersion, claim) {
      const used = tokens.get(chunk.clientRequestToken);
      const fingerprint = JSON.stringify([chunk.actions, headerVersion ?? null, claim ?? null]);
      if (used === fingerprint) return;
      if (used !== undefined) throw Object.assign(new Error('the token was used for another transaction'), { name: 'IdempotentParameterMismatchException' });
      const byId = new Map(lines.map((line) => [line.ID, line.SequenceNumber]));
      const sequence = (lineId: number) => {
        const found = byId.get(lineId);
        if (found === undefined) throw new Error(`line ${lineId} is not one of the receipt's lines`);
        return found;
      };
      const steps = chunk.actions.map((action) => ({ action, ...step(action, sequence, action.role === 'header' ? headerVersion : undefined) }));
      keyClaims.transact(
        steps.map((planned) => () => (planned.holds ? undefined : planned.action.role === 'header' ? new VersionConflict() : new ConcurrentModification())),
        () => {
          for (const planned of steps) planned.write();
          tokens.set(chunk.clientRequestToken, fingerprint);
        },
        claim,
      );
    },

    async startChunked(start) {
      const { tenantId, receiptId, expectedVersion, completionId, actor } = start;
      const header = get(headerKey(tenantId, receiptId));
      const completion = completionKey(tenantId, receiptId);
      keyClaims.transact(
        [
          () => (!header || header.Status !== 'InProgress' || header.Version !== expectedVersion ? new VersionConflict() : undefined),
          () => (get(completion) ? new ConcurrentModification() : undefined),
        ],
        () => {
          items.set(keyOf(headerKey(tenantId, receiptId)), {
            ...header,
            ...statusView('Completing'),
            CompletionID: completionId,
            ModifiedByUserID: actor.userId,
            ModifiedDateTime_utc: actor.at,
            Version: expectedVersion + 1,
          });
          items.set(keyOf(completion), completionItem(start));
        },
        start.claim,
      );
    },
  };

  return {
    store,
    seed: async (seeded: readonly Item[]) => {
      for (const item of seeded) items.set(keyOf(item as Key), structuredClone(item));
    },
    readItem: async (key: Key) => structuredClone(get(key)),
  };
};
