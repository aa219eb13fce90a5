// Test support for completion tests: receipts created through the delivery-receipt service (InProgress, not yet
// completed), the exact stock a receipt should put on hand, and what the table holds.
import { queryAll, type TableContext } from '#shared/data/client';
import { completeReceipt, type CompletionMessage } from '#shared/delivery-receipts/completion';
import { formatUnits, numberToUnits as toUnits } from '#shared/decimal/index';
import { receiptPartition } from '#shared/delivery-receipts/keys';
import { createCompletionRepository, createReceiptRepository } from '#shared/delivery-receipts/repository';
import { createReceiptService } from '#shared/delivery-receipts/service';
import { readItemStock } from '#shared/inventory/repository';
import { quantityScale } from '#shared/schemas/limits';

export interface SeedLine {
  readonly InventoryID?: number;
  readonly QuantityOrdered?: number;
  readonly QuantityReceived?: number;
  readonly QuantityFaulty?: number;
  readonly QuantityOutOfDate?: number;
  readonly QuantityIncorrect?: number;
  readonly IsActive?: boolean;
}

export interface SeedReceipt {
  readonly tenantId: number;
  /** The ID the tenant's sequence must give it (1, 2, 3, ... in a fresh tenant): checked, so tests can name it. */
  readonly receiptId?: number;
  readonly lines: readonly SeedLine[];
  readonly warehouseId?: number;
  /** InProgress (to complete), or Cancelled (InProgress, then cancelled by a second save). */
  readonly status?: 'InProgress' | 'Cancelled';
}

/** The Version of a receipt Save has just created: what completion expects of a seeded InProgress receipt. */
export const seededVersion = 1;

/**
 * Creates a receipt through the real delivery-receipt service (dr-api's repository: the stored layout is its own),
 * InProgress at `warehouseId` (none when 0), with its lines numbered 1, 2, 3, ... Never completes it.
 */
export const seedReceipt = async (table: TableContext, { tenantId, receiptId, lines, warehouseId = 7, status = 'InProgress' }: SeedReceipt) => {
  const service = createReceiptService({
    repository: createReceiptRepository(table),
    complete: async () => {
      throw new Error('seeding never completes a receipt');
    },
  });
  const principal = { tenantId, websiteId: 1, userId: completionActor.userId };
  const { receipt } = await service.save(principal, {
    Value: { Status: 'InProgress', SupplierName: 'Acme Supplies', ...(warehouseId ? { WarehouseID: warehouseId } : {}), Lines: lines as SeedLine[] },
  });
  if (receiptId !== undefined && receipt.ID !== receiptId) throw new Error(`seeded receipt ${receipt.ID}, expected ${receiptId}`);
  if (receipt.Version !== seededVersion) throw new Error(`seeded receipt at Version ${receipt.Version}, expected ${seededVersion}`);
  if (status === 'Cancelled') await service.save(principal, { Value: { ID: receipt.ID, Version: receipt.Version, Status: 'Cancelled' } });
  return { receiptId: receipt.ID as number, version: seededVersion };
};

/** Every item of a receipt's partition, by sort key (document client: for assertions on non-exact fields). */
export const receiptItems = async ({ client, tableName }: TableContext, tenantId: number, receiptId: number) => {
  const items = await queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': receiptPartition(tenantId, receiptId) },
    ConsistentRead: true,
  });
  const bySort = (prefix: string) => items.filter((item) => String(item.sk).startsWith(prefix));
  return { header: bySort('HEADER')[0], lines: bySort('LINE#'), movements: bySort('MOVE#'), completion: bySort('COMPLETION')[0] };
};

/** The stock each item should have after the receipts: the exact sum of active lines' QuantityReceived. */
export const expectedStock = (...receipts: readonly (readonly SeedLine[])[]): Map<number, string> => {
  const sums = new Map<number, bigint>();
  for (const line of receipts.flat()) {
    if (line.IsActive === false || !line.InventoryID) continue;
    const units = toUnits(line.QuantityReceived ?? 0, quantityScale) ?? 0n;
    if (units > 0n) sums.set(line.InventoryID, (sums.get(line.InventoryID) ?? 0n) + units);
  }
  return new Map([...sums].map(([item, units]) => [item, formatUnits(units, quantityScale)]));
};

/** The stock on hand of each item in one warehouse, as exact decimal text ('0' when none). */
export const stockOf = async (table: TableContext, tenantId: number, inventoryIds: Iterable<number>, warehouseId = 7): Promise<Map<number, string>> => {
  const entries = await Promise.all(
    [...inventoryIds].map(async (inventoryId) => {
      const stock = await readItemStock(table, tenantId, inventoryId);
      return [inventoryId, stock?.warehouses.find((warehouse) => warehouse.warehouseId === warehouseId)?.totalSOH ?? '0'] as const;
    }),
  );
  return new Map(entries.filter(([, total]) => total !== '0'));
};

/**
 * `count` lines over `items` inventory items (line i is item 1 + i mod items), with quantities of up to 5 decimals
 * that doubles cannot sum exactly, and faulty, out-of-date and incorrect quantities that must never count.
 */
export const manyLines = (count: number, items: number, firstItem = 1000): SeedLine[] =>
  Array.from({ length: count }, (_, index) => ({
    InventoryID: firstItem + (index % items),
    QuantityOrdered: 100,
    QuantityReceived: [0.1, 0.2, 12.34567, 1, 0.00001][index % 5] as number,
    QuantityFaulty: index % 3 === 0 ? 1.5 : 0,
    QuantityOutOfDate: index % 4 === 0 ? 0.25 : 0,
    QuantityIncorrect: index % 7 === 0 ? 2 : 0,
  }));

export const inventoryIdsOf = (lines: readonly SeedLine[]): Set<number> => new Set(lines.map((line) => line.InventoryID as number));

/** The request time and user every completion test uses. */
export const completionNow = new Date('2026-03-04T05:06:07.000Z');
export const completionActor = { userId: 42 };

/**
 * Seeds an InProgress receipt (Version 3) of `lines` and completes it; returns the answer and the message it queued
 * when the completion is chunked (a publisher that keeps what it is given, as the queue would).
 */
export const seedAndComplete = async (table: TableContext, tenantId: number, lines: readonly SeedLine[], receiptId = 1) => {
  await seedReceipt(table, { tenantId, receiptId, lines });
  const sent: CompletionMessage[] = [];
  const { status } = await completeReceipt(createCompletionRepository(table),
    { tenantId, receiptId, expectedVersion: seededVersion, actor: completionActor, now: completionNow },
    { publish: async (message) => void sent.push(message) },
  );
  return { status, sent, message: sent[0] as CompletionMessage };
};
