// Schemas: the statuses, the line bound and the field order of a delivery receipt as plain values, free of zod, so
// the receiving domain (shared/delivery-receipts/) and the schemas share one list without the domain loading zod.

/** Draft -> InProgress -> Complete (through Completing when chunked), or Cancelled: see delivery-receipts/README.md. */
export const receiptStatuses = ['Draft', 'InProgress', 'Completing', 'Complete', 'Cancelled'] as const;
export type ReceiptStatus = (typeof receiptStatuses)[number];

/** A receipt holds at most 1,000 lines (issue 9), active and deactivated: each is an item of its partition. */
export const maxLinesPerReceipt = 1_000;

/**
 * The header's fields as stored and shown, in DeliveryReceiptT's order (answers list them in this order; `Lines`
 * marks where the lines go). Not stored: BSID and RowNumber (a search row's), Warehouse (a lookup the receipt does
 * not own). A unit test holds this list to DeliveryReceiptT.
 */
export const receiptFieldOrder = [
  'ID',
  'GUID',
  'GUIDstring',
  'RefNumber',
  'Status',
  'FriendlyStatus',
  'TenantID',
  'PurchaseOrderID',
  'SupplierID',
  'SupplierName',
  'SupplierDeliveryNoteGUID',
  'StockReplenishmentID',
  'PurchaseInvoiceID',
  'PickSlipID',
  'DeliveryNoteID',
  'WarehouseID',
  'DeliveryDate',
  'NoteFromSupplier',
  'InternalNote',
  'LineCount',
  'TotalLines',
  'ExpectedItemsCount',
  'CreatedByUserID',
  'CreatedByUserName',
  'CreatedDateTime_utc',
  'CreatedDateTime_offset',
  'StartedByUserID',
  'StartedByUserName',
  'StartedDateTime_utc',
  'StartedDateTime_offset',
  'CompletedByUserID',
  'CompletedByUserName',
  'CompletedDateTime_utc',
  'CompletedDateTime_offset',
  'ModifiedByUserID',
  'ModifiedByUserName',
  'ModifiedDateTime_utc',
  'ModifiedDateTime_offset',
  'Version',
  'IsReadOnly',
  'IsActive',
  'Attachments',
  'Lines',
  'PurchaseOrders',
] as const;

/** A line's fields in DeliveryLine's order; QuantityToBeReceived is derived on every read, never stored. A unit
 * test holds this list to DeliveryLine. */
export const lineFieldOrder = [
  'ID',
  'GUID',
  'GUIDstring',
  'SequenceNumber',
  'InventoryID',
  'InventoryCode',
  'InventoryGUIDstring',
  'InventoryType',
  'Barcode',
  'EAN',
  'SKU',
  'ShortDescription',
  'Description',
  'UoM',
  'UoMDescription',
  'CostPriceEx',
  'QuantityOrdered',
  'QuantityReceived',
  'QuantityFaulty',
  'QuantityOutOfDate',
  'QuantityIncorrect',
  'QuantityToBeReceived',
  'ReceiveWarehouseLocationID',
  'ReceiveInventoryBatchID',
  'ReceivedByUserID',
  'ReceivedByUserName',
  'ReceivedDateTime_utc',
  'ReceivedDateTime_offset',
  'ReceiveComment',
  'Comment',
  'AssetID',
  'PurchaseOrderLineID',
  'StockReplenishmentLineID',
  'IsActive',
  'IsAssetItem',
  'IsStockAdjustmentComplete',
] as const;

