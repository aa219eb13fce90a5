// The contract of completion's store port (shared/delivery-receipts/store.ts `CompletionStore`): what completion.ts
// relies on, run in the unit tier against the in-memory store (test/unit/delivery-receipts/
// completion-store-contract.test.ts) and in the integration tier against the DynamoDB repository on DynamoDB Local
// (test/integration/delivery-receipts/completion-store-contract.test.ts). A chunk is all or nothing: stock added
// exactly, a movement put once, lines stamped, the completion's cursor moved on, the header completed at its Version;
// any failed condition writes nothing (VersionConflict for the header's, ConcurrentModification for any other).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { completionKey, headerKey, lineKey, movementKey } from '#shared/delivery-receipts/keys';
import { headerEntity, lineEntity } from '#shared/delivery-receipts/repository';
import { chunkRequestToken, type CompletionChunk, type TransactionAction } from '#shared/delivery-receipts/stock-effects';
import type { CompletionStore } from '#shared/delivery-receipts/store';
import type { StoredLine } from '#shared/delivery-receipts/lines';
import { stockOnHandKey } from '#shared/data/stock-on-hand-keys';
import { freshTenantId } from '#test/support/tenant-items';

export interface CompletionStoreUnderTest {
  readonly store: CompletionStore;
  /** Stores items as a save leaves them. */
  readonly seed: (items: readonly Record<string, unknown>[]) => Promise<void>;
  /** An item as stored (plain values), strongly consistent, or undefined. */
  readonly readItem: (key: { readonly pk: string; readonly sk: string }) => Promise<Record<string, unknown> | undefined>;
}

const outcomeOf = (pending: Promise<unknown>) =>
  pending.then(
    () => 'done',
    (error: Error) => error.name,
  );

const actor = { userId: 3, at: '2026-04-01T10:00:00.000Z' };

export const describeCompletionStoreContract = (implementation: string, open: () => CompletionStoreUnderTest) =>
  describe(`CompletionStore contract: ${implementation}`, () => {
    const { store, seed, readItem } = open();
    const receiptId = 4;
    /** A fresh tenant's InProgress receipt at Version 2 with two lines of item 11 (IDs 1 and 2, sequence 1 and 2). */
    let completionId = randomUUID();
    const seeded = async () => {
      const tenantId = freshTenantId();
      // Each completion has its own id, so its chunks' ClientRequestTokens (the account's for 10 minutes) are its own.
      completionId = randomUUID();
      const lines: StoredLine[] = [
        { ID: 1, SequenceNumber: 1, InventoryID: 11, QuantityReceived: 2.5, IsActive: true } as StoredLine,
        { ID: 2, SequenceNumber: 2, InventoryID: 11, QuantityReceived: 1.25, IsActive: true } as StoredLine,
      ];
      const header = { ...headerKey(tenantId, receiptId), entity: headerEntity, ID: receiptId, TenantID: tenantId, Status: 'InProgress', Version: 2, WarehouseID: 7 };
      await seed([header, ...lines.map((line) => ({ ...line, entity: lineEntity, ...lineKey(tenantId, receiptId, line.SequenceNumber) }))]);
      return { tenantId, lines, header };
    };
    const effects = (tenantId: number): TransactionAction[] => [
      { role: 'stockOnHand', key: { tenantId, inventoryId: 11, warehouseId: 7 }, update: { add: '3.75' }, bytes: 100 },
      ...[1, 2].flatMap((lineId): TransactionAction[] => [
        {
          role: 'stockMovement',
          key: { tenantId, receiptId, lineId },
          update: { put: { InventoryID: 11, WarehouseID: 7, Quantity: lineId === 1 ? '2.5' : '1.25', CompletionID: completionId, MovedByUserID: 3, MovedDateTime_utc: actor.at } },
          bytes: 100,
        },
        { role: 'line', key: { tenantId, receiptId, lineId }, update: { set: { IsStockAdjustmentComplete: true, ReceivedByUserID: 3, ReceivedDateTime_utc: actor.at } }, bytes: 100 },
      ]),
    ];
    const complete = { Status: 'Complete', CompletedByUserID: 3, CompletedDateTime_utc: actor.at } as const;
    const chunk = (index: number, actions: TransactionAction[], last = true): CompletionChunk => ({ index, cursor: index, clientRequestToken: chunkRequestToken(completionId, index), last, actions, bytes: 1_000 });
    const stockOf = async (tenantId: number) => (await readItem(stockOnHandKey(tenantId, 11, 7)))?.TotalSOH;

    it('reads the receipt whole (header and every line), and nothing for an unknown receipt or another tenant', async () => {
      const { tenantId, header, lines } = await seeded();
      const read = await store.readReceipt(tenantId, receiptId);

      expect({
        header: read?.header,
        lines: read?.lines.map((line) => [line.ID, line.SequenceNumber, line.QuantityReceived]),
        unknown: await store.readReceipt(tenantId, receiptId + 1),
        otherTenant: await store.readReceipt(freshTenantId(), receiptId),
        noCompletion: await store.readCompletion(tenantId, receiptId),
      }).toEqual({ header, lines: lines.map((line) => [line.ID, line.SequenceNumber, line.QuantityReceived]), unknown: undefined, otherTenant: undefined, noCompletion: undefined });
    });

    it('runs a one-transaction completion: stock added exactly, movements, lines stamped, the header Complete at Version + 1', async () => {
      const { tenantId, lines } = await seeded();
      await seed([{ ...stockOnHandKey(tenantId, 11, 7), entity: 'StockOnHand', InventoryID: 11, WarehouseID: 7, TotalSOH: 0.1 }]);
      await store.runChunk(chunk(0, [...effects(tenantId), { role: 'header', key: { tenantId, receiptId }, expect: { status: 'InProgress' }, update: { set: complete }, bytes: 100 }]), lines, 2);

      const header = await readItem(headerKey(tenantId, receiptId));
      const movement = await readItem(movementKey(tenantId, receiptId, 2));
      const line = await readItem(lineKey(tenantId, receiptId, 1));
      expect({
        stock: await stockOf(tenantId),
        movement: [movement?.LineID, movement?.Quantity, movement?.CompletionID],
        line: [line?.IsStockAdjustmentComplete, line?.ReceivedByUserID, line?.ReceivedDateTime_utc],
        header: [header?.Status, header?.FriendlyStatus, header?.IsReadOnly, header?.Version, header?.CompletedDateTime_utc, header?.ModifiedDateTime_utc, header?.ModifiedByUserID],
      }).toEqual({
        stock: 3.85,
        movement: [2, 1.25, completionId],
        line: [true, 3, actor.at],
        header: ['Complete', 'Complete', true, 3, actor.at, actor.at, 3],
      });
    });

    it('runs a replayed chunk (the same ClientRequestToken) without a second effect; another chunk under its token is refused', async () => {
      const { tenantId, lines } = await seeded();
      const once = chunk(0, [...effects(tenantId), { role: 'header', key: { tenantId, receiptId }, expect: { status: 'InProgress' }, update: { set: complete }, bytes: 100 }]);
      await store.runChunk(once, lines, 2);
      const replay = await outcomeOf(store.runChunk(once, lines, 2));
      const another = await outcomeOf(store.runChunk({ ...once, actions: once.actions.slice(0, 1) }, lines));

      expect({ replay, another, stock: await stockOf(tenantId), version: (await readItem(headerKey(tenantId, receiptId)))?.Version }).toEqual({
        replay: 'done',
        another: 'IdempotentParameterMismatchException',
        stock: 3.75,
        version: 3,
      });
    });

    it('writes nothing when a condition fails: the header at another Version (VersionConflict), a movement already put (ConcurrentModification)', async () => {
      const { tenantId, lines } = await seeded();
      const closing: TransactionAction = { role: 'header', key: { tenantId, receiptId }, expect: { status: 'InProgress' }, update: { set: complete }, bytes: 100 };
      const stale = await outcomeOf(store.runChunk(chunk(0, [...effects(tenantId), closing]), lines, 1));
      await seed([{ ...movementKey(tenantId, receiptId, 1), entity: 'StockMovement', LineID: 1 }]);
      const moved = await outcomeOf(store.runChunk(chunk(1, [...effects(tenantId), closing]), lines, 2));

      expect({ stale, moved, stock: await stockOf(tenantId), header: (await readItem(headerKey(tenantId, receiptId)))?.Status, line: (await readItem(lineKey(tenantId, receiptId, 2)))?.IsStockAdjustmentComplete }).toEqual({
        stale: 'VersionConflict',
        moved: 'ConcurrentModification',
        stock: undefined,
        header: 'InProgress',
        line: undefined,
      });
    });

    it('starts a chunked completion once (Completing, Version + 1, the completion at cursor 0), then runs its chunks in cursor order to Complete', async () => {
      const { tenantId, lines } = await seeded();
      const start = { tenantId, receiptId, expectedVersion: 2, completionId, chunkCount: 2, warehouseId: 7, actor };
      await store.startChunked(start);
      const again = await outcomeOf(store.startChunked(start));
      const started = await readItem(headerKey(tenantId, receiptId));
      const cursor = (index: number): TransactionAction => ({ role: 'completion', key: { tenantId, receiptId }, expect: { completionId, cursor: index }, update: { set: { CompletionCursor: index + 1 } }, bytes: 50 });
      const [first, second] = [effects(tenantId).slice(0, 3), effects(tenantId).slice(3)];
      const closing: TransactionAction = { role: 'header', key: { tenantId, receiptId }, expect: { status: 'Completing', completionId }, update: { set: complete }, bytes: 100 };

      const outOfOrder = await outcomeOf(store.runChunk(chunk(1, [...second, cursor(1), closing]), lines));
      await store.runChunk(chunk(0, [...first, cursor(0)], false), lines);
      const midway = await store.readCompletion(tenantId, receiptId);
      await store.runChunk(chunk(1, [...second, cursor(1), closing]), lines);
      const done = await readItem(headerKey(tenantId, receiptId));

      expect({
        again,
        started: [started?.Status, started?.IsReadOnly, started?.Version, started?.CompletionID, started?.ModifiedDateTime_utc],
        outOfOrder,
        midway,
        done: [done?.Status, done?.Version, (await readItem(completionKey(tenantId, receiptId)))?.CompletionCursor],
        stock: await stockOf(tenantId),
      }).toEqual({
        again: 'VersionConflict',
        started: ['Completing', true, 3, completionId, actor.at],
        outOfOrder: 'ConcurrentModification',
        midway: { completionId, cursor: 1, chunkCount: 2, warehouseId: 7, actor },
        done: ['Complete', 4, 2],
        stock: 3.75,
      });
    });
  });
