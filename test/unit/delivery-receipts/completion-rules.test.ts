// Unit tests of completion's rules (shared/delivery-receipts/completion.ts `completeReceipt`) over the in-memory
// completion store (test/stores/delivery-receipts/memory-completion-store.ts, held to the repository by its contract
// suite): good stock on hand exactly once in one transaction, a moved Version or a missing receipt refused with
// nothing written, and a completion too large for one transaction queued (its guarantee first) and started, or, when
// the queue cannot take the guarantee, nothing written. The chunks on DynamoDB Local: the integration tests.
import { describe, expect, it } from '@jest/globals';
import { stockOnHandKey } from '#shared/data/stock-on-hand-keys';
import { completeReceipt } from '#shared/delivery-receipts/completion';
import { headerKey, lineKey } from '#shared/delivery-receipts/keys';
import { headerEntity, lineEntity } from '#shared/delivery-receipts/repository';
import { logger } from '#shared/observability/logger';
import { createMemoryCompletionStore } from '#test/stores/delivery-receipts/memory-completion-store';

logger.setLogLevel('SILENT');

const tenantId = 7;
const receiptId = 4;
const request = { tenantId, receiptId, expectedVersion: 2, actor: { userId: 3 }, now: new Date('2026-04-01T10:00:00.000Z') };

/** An InProgress receipt at Version 2 into warehouse 7, with these lines (IDs and sequence numbers 1, 2, ...). */
const receiptWith = async (lines: readonly Record<string, unknown>[]) => {
  const memory = createMemoryCompletionStore();
  await memory.seed([
    { ...headerKey(tenantId, receiptId), entity: headerEntity, ID: receiptId, TenantID: tenantId, Status: 'InProgress', Version: 2, WarehouseID: 7 },
    ...lines.map((line, index) => ({ ID: index + 1, SequenceNumber: index + 1, IsActive: true, ...line, entity: lineEntity, ...lineKey(tenantId, receiptId, index + 1) })),
  ]);
  const published: unknown[] = [];
  return { ...memory, published, publish: async (message: unknown, options?: unknown) => void published.push([message, options ?? null]) };
};
const outcomeOf = (pending: Promise<unknown>) =>
  pending.then(
    (value) => value,
    (error: Error) => error.name,
  );

describe('completing a receipt', () => {
  it('puts the good stock of each item on hand once, exactly, in one transaction: Complete, nothing queued', async () => {
    const receipt = await receiptWith([
      { InventoryID: 11, QuantityReceived: 2.5 },
      { InventoryID: 11, QuantityReceived: 1.25, QuantityFaulty: 4 },
      { InventoryID: 12, QuantityFaulty: 2 },
      { InventoryID: 13, QuantityReceived: 9, IsActive: false },
    ]);

    const answer = await completeReceipt(receipt.store, request, { publish: receipt.publish });
    const header = await receipt.readItem(headerKey(tenantId, receiptId));

    expect({
      answer,
      stock: await Promise.all([11, 12, 13].map(async (item) => (await receipt.readItem(stockOnHandKey(tenantId, item, 7)))?.TotalSOH)),
      header: [header?.Status, header?.Version, header?.CompletedDateTime_utc],
      published: receipt.published,
    }).toEqual({ answer: { status: 'Complete' }, stock: [3.75, undefined, undefined], header: ['Complete', 3, '2026-04-01T10:00:00.000Z'], published: [] });
  });

  it('refuses a receipt whose Version moved (VersionConflict) and one that does not exist (NotFound), writing nothing', async () => {
    const receipt = await receiptWith([{ InventoryID: 11, QuantityReceived: 1 }]);

    expect({
      moved: await outcomeOf(completeReceipt(receipt.store, { ...request, expectedVersion: 1 }, { publish: receipt.publish })),
      missing: await outcomeOf(completeReceipt(receipt.store, { ...request, receiptId: 5 }, { publish: receipt.publish })),
      stock: await receipt.readItem(stockOnHandKey(tenantId, 11, 7)),
      header: (await receipt.readItem(headerKey(tenantId, receiptId)))?.Status,
    }).toEqual({ moved: 'VersionConflict', missing: 'NotFound', stock: undefined, header: 'InProgress' });
  });

  it('queues a completion too large for one transaction (its guarantee first) and starts it: Completing, no stock yet', async () => {
    const receipt = await receiptWith(Array.from({ length: 40 }, (_, index) => ({ InventoryID: 100 + index, QuantityReceived: 1 })));

    const answer = await completeReceipt(receipt.store, request, { publish: receipt.publish, newCompletionId: () => '0b7c3c1e-7d7b-4d1e-9d43-1f0c9c1a2b3c' });
    const header = await receipt.readItem(headerKey(tenantId, receiptId));

    expect({
      answer,
      header: [header?.Status, header?.Version],
      completion: await receipt.store.readCompletion(tenantId, receiptId),
      published: receipt.published,
      stock: await receipt.readItem(stockOnHandKey(tenantId, 100, 7)),
    }).toEqual({
      answer: { status: 'Completing' },
      header: ['Completing', 3],
      completion: expect.objectContaining({ completionId: '0b7c3c1e-7d7b-4d1e-9d43-1f0c9c1a2b3c', cursor: 0, warehouseId: 7 }),
      published: [
        [{ tenantId, receiptId, completionId: '0b7c3c1e-7d7b-4d1e-9d43-1f0c9c1a2b3c' }, { guarantee: true }],
        [{ tenantId, receiptId, completionId: '0b7c3c1e-7d7b-4d1e-9d43-1f0c9c1a2b3c' }, null],
      ],
      stock: undefined,
    });
  });

  it('writes nothing when the queue cannot take the guarantee (ServiceUnavailable)', async () => {
    const receipt = await receiptWith(Array.from({ length: 40 }, (_, index) => ({ InventoryID: 100 + index, QuantityReceived: 1 })));
    const down = async () => {
      throw new Error('queue unreachable');
    };

    expect({
      outcome: await outcomeOf(completeReceipt(receipt.store, request, { publish: down })),
      header: (await receipt.readItem(headerKey(tenantId, receiptId)))?.Status,
      completion: await receipt.store.readCompletion(tenantId, receiptId),
    }).toEqual({ outcome: 'ServiceUnavailable', header: 'InProgress', completion: undefined });
  });
});
