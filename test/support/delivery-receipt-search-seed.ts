// Test support: stored delivery receipts for the Search tests and the bench, written as items in the layout of
// shared/delivery-receipts/keys.ts with the index attributes of search-keys.ts (contract C6), as the receipt
// repository's save leaves them (its header fields, status fields and Version, entity names): BatchWriteItem, so
// 20,000 receipts take seconds where 20,000 saves would take minutes. The Search integration test also saves
// receipts through the real service and finds them the same way.
import type { TableContext } from '#shared/data/client';
import { headerKey, lineKey } from '#shared/delivery-receipts/keys';
import { statusView } from '#shared/delivery-receipts/lifecycle';
import { headerEntity, lineEntity } from '#shared/delivery-receipts/repository';
import { searchIndexAttributes } from '#shared/delivery-receipts/search-keys';
import type { ReceiptStatus } from '#shared/schemas/receipt-fields';
import type { DeliveryLine, DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import { batchWriteAll } from '#test/bench/seed';

export type StoredReceipt = DeliveryReceiptT & Required<Pick<DeliveryReceiptT, 'ID' | 'RefNumber' | 'CreatedDateTime_utc' | 'Status'>>;

const suppliers = ['Acme Foods', 'Bayside Produce', 'Coastal Dairy', 'Delta Hardware', 'Évora Imports'] as const;
const statuses = ['Draft', 'InProgress', 'Complete', 'Cancelled', 'InProgress', 'Draft', 'Complete'] as const;

/**
 * A receipt of `tenantId` as a save would have stored it. Fields vary with the ID so every sort order and filter
 * has ties, gaps and non-ASCII text to handle: delivery dates repeat every 9 receipts (every 13th has none),
 * statuses cycle through 7 (Cancelled among them), suppliers through 5.
 */
export const storedReceipt = (tenantId: number, id: number, overrides: Partial<DeliveryReceiptT> = {}): StoredReceipt => {
  const supplier = id % suppliers.length;
  const guid = `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`;
  return {
    ID: id,
    GUID: guid,
    GUIDstring: guid,
    RefNumber: id % 11 === 0 ? `po-${String(id).padStart(5, '0')}` : `DR-${String(id).padStart(6, '0')}`,
    ...statusView((overrides.Status ?? statuses[id % statuses.length]) as ReceiptStatus),
    TenantID: tenantId,
    SupplierID: 100 + supplier,
    SupplierName: suppliers[supplier] as string,
    ...(id % 13 === 0 ? {} : { DeliveryDate: `2026-03-${String(1 + (id % 9)).padStart(2, '0')}` }),
    CreatedByUserID: 3,
    CreatedDateTime_utc: new Date(Date.UTC(2026, 1, 1) + id * 60_000).toISOString(),
    LineCount: 0,
    TotalLines: 0,
    Version: 1,
    IsActive: true,
    ...overrides,
  } as StoredReceipt;
};

/** The stored header item: keys, the receipt's fields and the index attributes. */
export const headerItem = (tenantId: number, receipt: StoredReceipt): Record<string, unknown> => ({
  ...receipt,
  entity: headerEntity,
  ...searchIndexAttributes(tenantId, receipt),
  ...headerKey(tenantId, receipt.ID),
});

/** A stored line of a receipt (its own partition; lines never carry index attributes). */
export const lineItem = (tenantId: number, receiptId: number, line: DeliveryLine & { SequenceNumber: number }): Record<string, unknown> => ({
  ...line,
  entity: lineEntity,
  ...lineKey(tenantId, receiptId, line.SequenceNumber),
});

export const seedReceipts = (table: TableContext, tenantId: number, receipts: readonly StoredReceipt[], concurrency = 6): Promise<void> =>
  batchWriteAll(
    table,
    receipts.map((receipt) => headerItem(tenantId, receipt)),
    concurrency,
  );

/** Receipts 1..count of the tenant, as `storedReceipt` makes them. */
export const receiptsOf = (tenantId: number, count: number): StoredReceipt[] => Array.from({ length: count }, (_, index) => storedReceipt(tenantId, index + 1));
