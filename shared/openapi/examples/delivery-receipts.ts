// OpenAPI examples: delivery receipts (v2) and stock on hand. The run starts receipt 1 (item 11: 8 received), adds
// item 12, completes it (8 of item 11 now on hand: inventory.ts), and searches for it.
import { envelope, page } from './envelopes';
import type { AreaExamples } from './types';

const created = '2026-03-02T01:15:00.000Z';
const added = '2026-03-02T01:20:00.000Z';
const completed = '2026-03-02T01:25:00.000Z';

const firstLine = {
  ID: 1,
  GUID: 'e8d7555e-df6b-4d1a-943b-fcf82f08d817',
  GUIDstring: 'e8d7555e-df6b-4d1a-943b-fcf82f08d817',
  SequenceNumber: 1,
  InventoryID: 11,
  QuantityOrdered: 10,
  QuantityReceived: 8,
  QuantityFaulty: 1,
  QuantityToBeReceived: 2,
  IsActive: true,
};
const secondLine = {
  ID: 2,
  GUID: 'e2ff98cc-e20a-439e-bf3b-d6836e1bcb48',
  GUIDstring: 'e2ff98cc-e20a-439e-bf3b-d6836e1bcb48',
  SequenceNumber: 2,
  InventoryID: 12,
  CostPriceEx: 1.5,
  QuantityOrdered: 3,
  QuantityToBeReceived: 3,
  IsActive: true,
};

/** Receipt 1 as started, without its lines. */
const header = {
  ID: 1,
  GUID: '5d82cb68-c7fd-4dfb-b658-cc2380131356',
  GUIDstring: '5d82cb68-c7fd-4dfb-b658-cc2380131356',
  RefNumber: 'DR-000001',
  Status: 'InProgress',
  FriendlyStatus: 'In progress',
  TenantID: 1,
  SupplierName: 'Paper Co',
  WarehouseID: 3,
  LineCount: 1,
  TotalLines: 1,
  CreatedByUserID: 1,
  CreatedDateTime_utc: created,
  StartedByUserID: 1,
  StartedDateTime_utc: created,
  ModifiedByUserID: 1,
  ModifiedDateTime_utc: created,
  Version: 1,
  IsReadOnly: false,
  IsActive: true,
};
const started = { ...header, Lines: [firstLine] };
const withTwoLines = { ...header, LineCount: 2, TotalLines: 2, ModifiedDateTime_utc: added, Version: 2, Lines: [firstLine, secondLine] };
const completion = {
  Status: 'Complete',
  FriendlyStatus: 'Complete',
  LineCount: 2,
  TotalLines: 2,
  CompletedByUserID: 1,
  CompletedDateTime_utc: completed,
  ModifiedDateTime_utc: completed,
  Version: 3,
  IsReadOnly: true,
};
const complete = {
  ...header,
  ...completion,
  Lines: [{ ...firstLine, ReceivedByUserID: 1, ReceivedDateTime_utc: completed, IsStockAdjustmentComplete: true }, secondLine],
};

export const deliveryReceiptExamples: AreaExamples = {
  operations: {
    deliveryReceiptSaveV2: {
      requests: {
        start: {
          summary: 'Start a receipt: 8 of 10 of item 11 received, 1 faulty',
          body: { Value: { SupplierName: 'Paper Co', WarehouseID: 3, Status: 'InProgress', Lines: [{ InventoryID: 11, QuantityOrdered: 10, QuantityReceived: 8, QuantityFaulty: 1 }] } },
        },
        complete: { summary: 'Complete receipt 1 (its current Version)', body: { Value: { ID: 1, Version: 2, Status: 'Complete' } } },
      },
      responses: {
        201: envelope(started),
        200: envelope(complete),
        202: envelope({ ...withTwoLines, Status: 'Completing', FriendlyStatus: 'Completing', ModifiedDateTime_utc: completed, Version: 3, IsReadOnly: true }),
      },
    },
    deliveryReceiptGetV2: { parameters: { id: 1 }, responses: { 200: { AllowedStatuses: ['Complete', 'Cancelled'], ...envelope(started) } } },
    deliveryReceiptAddInventory: {
      parameters: { id: 1 },
      requests: {
        item: { summary: 'Add 3 of item 12 at 1.50', body: { Value: { InventoryList: [{ InventoryID: 12, Quantity: 3, BuyPriceEx: 1.5, LineTotal: 4.5 }] } } },
      },
      responses: { 200: envelope(withTwoLines) },
    },
    deliveryReceiptSearchV2: {
      requests: {
        complete: {
          summary: 'Complete receipts matching "paper", by delivery date',
          body: { Statuses: [3], SearchString: 'paper', SortField: 'DeliveryDate', MaxResults: 20 },
        },
      },
      responses: {
        200: page([{ ...header, ...completion }]),
      },
    },
  },
  run: [
    { operationId: 'deliveryReceiptSaveV2', request: 'start', status: 201 },
    { operationId: 'deliveryReceiptGetV2', status: 200 },
    { operationId: 'deliveryReceiptAddInventory', request: 'item', status: 200 },
    { operationId: 'deliveryReceiptSaveV2', request: 'complete', status: 200 },
    { operationId: 'deliveryReceiptSearchV2', request: 'complete', status: 200 },
  ],
};
