// Data layer: where delivery receipts and stock on hand live in the single table (see README.md, "Storage"). A
// receipt has its own partition: the header, one item per line, one stock movement per received line and the
// completion cursor of a chunked completion. A tenant's writes therefore spread over its receipts; tenant-wide
// access goes through the (sparse, header-only) indexes of ./search-keys.ts.
//
//   pk `T#<tenant>#DR#<id>`        sk `HEADER`          DeliveryReceiptT fields except Lines, Version, line counter
//   pk `T#<tenant>#DR#<id>`        sk `LINE#<seq>`      one DeliveryLine (seq = SequenceNumber, 10 digits)
//   pk `T#<tenant>#DR#<id>`        sk `MOVE#<seq>`      the stock movement of a received line, put once
//   pk `T#<tenant>#DR#<id>`        sk `COMPLETION`      completionId and CompletionCursor of a chunked completion
//   pk `T#<tenant>#SOH#<item>`     sk `WH#<warehouse>`  TotalSOH (shared with inventory: shared/data/stock-on-hand-keys.ts)
//   pk `T#<tenant>`                sk `SEQ#DR`          the receipt ID sequence (data kit), also RefNumber DR-000001
//   pk `T#<tenant>`                sk `DRSEARCH#<query hash>#<row>`  a Search continuation (expires after an hour)
import { composeKey, padNumber, tenantKey, tenantPartition, type ItemKey } from '#shared/data/partition';

/** The per-tenant sequence of receipt IDs; the default RefNumber is `DR-` and the ID in six digits or more. */
export const receiptSequence = 'DR';
export const defaultRefNumber = (id: number): string => `DR-${String(id).padStart(6, '0')}`;

export const receiptPartition = (tenantId: number, receiptId: number): string => composeKey(tenantPartition(tenantId), 'DR', padNumber(receiptId));

export const headerSortKey = 'HEADER';
export const lineSortKeyPrefix = 'LINE#';
export const movementSortKeyPrefix = 'MOVE#';
export const completionSortKey = 'COMPLETION';

export const headerKey = (tenantId: number, receiptId: number): ItemKey => ({ pk: receiptPartition(tenantId, receiptId), sk: headerSortKey });
export const lineKey = (tenantId: number, receiptId: number, sequenceNumber: number): ItemKey => ({
  pk: receiptPartition(tenantId, receiptId),
  sk: `${lineSortKeyPrefix}${padNumber(sequenceNumber)}`,
});
export const movementKey = (tenantId: number, receiptId: number, sequenceNumber: number): ItemKey => ({
  pk: receiptPartition(tenantId, receiptId),
  sk: `${movementSortKeyPrefix}${padNumber(sequenceNumber)}`,
});
export const completionKey = (tenantId: number, receiptId: number): ItemKey => ({ pk: receiptPartition(tenantId, receiptId), sk: completionSortKey });


/** The continuation item of (tenant, query, row number): in the tenant's partition, so no other tenant can read it. */
export const continuationKey = (tenantId: number, queryHash: string, rowNumber: number): ItemKey =>
  tenantKey(tenantId, composeKey('DRSEARCH', queryHash, padNumber(rowNumber)));
