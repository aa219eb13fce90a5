// Schemas: the delivery receipt (v2) request envelopes and DeliveryReceiptT with its nested records. Contact and
// user details are flagged `x-personal-data`.
import { z } from 'zod';
import { Address } from './address';
import { personalData } from './annotations';
import {
  bool,
  calendarText,
  count,
  decimal,
  emailAddress,
  guid,
  id,
  int32,
  listOf,
  longText,
  nameOf,
  phoneNumber,
  recordIdentity,
  recordKeys,
  rowNumber,
  shape,
  tenancyFields,
  text,
  url,
  utcOffset,
} from './common';
import { EditResponse } from './envelopes';
import { maxLinesPerReceipt, receiptStatuses } from './receipt-fields';
import { SyncLog } from './sync-log';

/** Quantities and prices of lines: never negative (shared/delivery-receipts/lines.ts counts their decimals). */
const notNegative = () => decimal().min(0, { error: 'must be 0 or more' });

export const Attachment = shape('Attachment', {
  ...recordIdentity(),
  MessageID: id().optional(),
  LineID: id().optional(),
  AttachedByUserID: id().optional(),
  AttachedDateTime_utc: calendarText().optional(),
  Title: text().optional(),
  Caption: longText().optional(),
  AttachmentType: text().optional(),
  URI: url().optional(),
  ThumbnailURI: url().optional(),
  IsImage: bool().optional(),
  IsPDF: bool().optional(),
  IsActive: bool().optional(),
  IsFromParent: bool().optional(),
});
export type Attachment = z.infer<typeof Attachment>;

export const DeliveryLine = shape('DeliveryLine', {
  ...recordIdentity(),
  SequenceNumber: int32().optional(),
  InventoryID: id().optional(),
  InventoryCode: text().optional(),
  InventoryGUIDstring: text().optional(),
  InventoryType: text().optional(),
  Barcode: text().optional(),
  EAN: text().optional(),
  SKU: text().optional(),
  ShortDescription: text().optional(),
  Description: longText().optional(),
  UoM: text().optional(),
  UoMDescription: text().optional(),
  CostPriceEx: notNegative().optional(),
  QuantityOrdered: notNegative().optional(),
  QuantityReceived: notNegative().optional(),
  QuantityFaulty: notNegative().optional(),
  QuantityOutOfDate: notNegative().optional(),
  QuantityIncorrect: notNegative().optional(),
  QuantityToBeReceived: decimal().optional(),
  ReceiveWarehouseLocationID: id().optional(),
  ReceiveInventoryBatchID: id().optional(),
  ReceivedByUserID: id().optional(),
  ReceivedByUserName: text().optional(),
  ReceivedDateTime_utc: calendarText().optional(),
  ReceivedDateTime_offset: utcOffset().optional(),
  ReceiveComment: longText().optional(),
  Comment: longText().optional(),
  AssetID: id().optional(),
  PurchaseOrderLineID: id().optional(),
  StockReplenishmentLineID: id().optional(),
  IsActive: bool().optional(),
  IsAssetItem: bool().optional(),
  IsStockAdjustmentComplete: bool().optional(),
});
export type DeliveryLine = z.infer<typeof DeliveryLine>;

export const PurchaseOrderSummary = shape('PurchaseOrderSummary', {
  ID: id().optional(),
  GUIDstring: text().optional(),
  DatTypeID: id().optional(),
  DatTypeString: text().optional(),
  ShortDatTypeString: text().optional(),
  TransSubType: text().optional(),
  Status: text().optional(),
  RefNumber: text().optional(),
  Description: longText().optional(),
  Issues: longText().optional(),
  RecipientName: text().optional(),
  AppliedDate: calendarText().optional(),
  LineCount: count().optional(),
  QuantityCount: count().optional(),
  TotalInc: decimal().optional(),
  TotalEx: decimal().optional(),
  AppliedAmount: decimal().optional(),
});
export type PurchaseOrderSummary = z.infer<typeof PurchaseOrderSummary>;

export const WarehouseType = shape('WarehouseType', {
  ID: id().optional(),
  WarehouseTypeID: id().optional(),
  Name: text().optional(),
  Description: longText().optional(),
  RefNumberPrefix: text().optional(),
  IsVirtual: bool().optional(),
});
export type WarehouseType = z.infer<typeof WarehouseType>;

/** The spec: "Contact data is personal data." */
export const Contact = shape('Contact', {
  ...recordIdentity(),
  BusinessContactID: id().optional(),
  BusinessID: id().optional(),
  BusinessName: text().optional(),
  BusinessLocationGuid: guid().optional(),
  Title: text().optional(),
  FirstName: personalData(text().optional(), 'First name of the contact.'),
  LastName: personalData(text().optional(), 'Last name of the contact.'),
  Gender: personalData(text().optional(), 'Gender of the contact.'),
  Birthday: personalData(calendarText().optional(), 'Date of birth of the contact.'),
  EmailAddress: personalData(emailAddress().optional(), 'Email address of the contact.'),
  Phone1: personalData(phoneNumber().optional(), 'Phone number of the contact.'),
  PhoneMobile: personalData(phoneNumber().optional(), 'Mobile phone number of the contact.'),
  ContactRole: text().optional(),
  PositionOrOccupation: text().optional(),
  LinkedUserGlobalIDstring: text().optional(),
  IsSystem: bool().optional(),
  IsPrimaryContact: bool().optional(),
  IsActive: bool().optional(),
  IsIncludeInEmails: bool().optional(),
});
export type Contact = z.infer<typeof Contact>;

export const Location = shape('Location', {
  ...recordIdentity(),
  Name: text().optional(),
  LocationName: text().optional(),
  Phone: phoneNumber().optional(),
  Fax: phoneNumber().optional(),
  EmailAddress: emailAddress().optional(),
  TimeZoneName: text().optional(),
  UtcOffset: utcOffset().optional(),
  IsSystem: bool().optional(),
  IsDefaultLocation: bool().optional(),
  IsActive: bool().optional(),
  IsVisibleToPublic: bool().optional(),
  Contacts: listOf(Contact).optional(),
  Addresses: listOf(Address).optional(),
});
export type Location = z.infer<typeof Location>;

/** A user of a warehouse. Names and contact details are personal data. */
export const User = shape('User', {
  ID: id().optional(),
  GUIDstring: text().optional(),
  BSID: text().optional(),
  CreatedWith: text().optional(),
  FirstName: personalData(text().optional(), 'First name of the user.'),
  LastName: personalData(text().optional(), 'Last name of the user.'),
  EmailAddress: personalData(emailAddress().optional(), 'Email address of the user.'),
  Phone1: personalData(phoneNumber().optional(), 'Phone number of the user.'),
  PhoneMobile: personalData(phoneNumber().optional(), 'Mobile phone number of the user.'),
  PositionOrOccupation: text().optional(),
  IsActive: bool().optional(),
  IsPrimaryContact: bool().optional(),
  IsEmployee: bool().optional(),
});
export type User = z.infer<typeof User>;

export const Warehouse = shape('Warehouse', {
  ID: id().optional(),
  GUIDstring: text().optional(),
  BSID: text().optional(),
  RowNumber: rowNumber().optional(),
  Version: int32().min(0).optional(),
  Code: text().optional(),
  Name: text().optional(),
  Description: longText().optional(),
  Barcode: text().optional(),
  CostCentreCode: text().optional(),
  TenantLocationID: id().optional(),
  TenantLocationName: text().optional(),
  WarehouseTypeID: id().optional(),
  DefaultPOSCustomerID: id().optional(),
  DefaultPOSCustomerName: text().optional(),
  TotalNumberOfDistinctProducts: decimal().optional(),
  TotalSOH: decimal().optional(),
  TotalStockValue: decimal().optional(),
  MinimumStockHoldingValue: decimal().optional(),
  MaximumStockHoldingValue: decimal().optional(),
  IsSystem: bool().optional(),
  IsDefault: bool().optional(),
  IsActive: bool().optional(),
  IsStockOpeningBalanceComplete: bool().optional(),
  SyncLogs: listOf(SyncLog).optional(),
  Location: Location.optional(),
  WarehouseType: WarehouseType.optional(),
  Users: listOf(User).optional(),
});
export type Warehouse = z.infer<typeof Warehouse>;

export const DeliveryReceiptT = shape('DeliveryReceiptT', {
  ...recordKeys(),
  RefNumber: text().optional(),
  Status: nameOf(receiptStatuses, `must be one of ${receiptStatuses.join(', ')}`)
    .optional()
    .meta({
      description: `One of ${receiptStatuses.join(', ')} (case-insensitive, surrounding spaces ignored); answers give the name as listed. In a Save it requests a transition (the operation's description).`,
      'x-answer-enum': receiptStatuses,
    }),
  FriendlyStatus: text().optional(),
  TenantID: id().optional(),
  PurchaseOrderID: id().optional(),
  SupplierID: id().optional(),
  SupplierName: text().optional(),
  SupplierDeliveryNoteGUID: text().optional(),
  StockReplenishmentID: id().optional(),
  PurchaseInvoiceID: id().optional(),
  PickSlipID: id().optional(),
  DeliveryNoteID: id().optional(),
  WarehouseID: id().optional(),
  DeliveryDate: calendarText().optional(),
  NoteFromSupplier: longText().optional(),
  InternalNote: longText().optional(),
  LineCount: count().optional(),
  TotalLines: count().optional(),
  ExpectedItemsCount: count().optional(),
  CreatedByUserID: id().optional(),
  CreatedByUserName: text().optional(),
  CreatedDateTime_utc: calendarText().optional(),
  CreatedDateTime_offset: utcOffset().optional(),
  StartedByUserID: id().optional(),
  StartedByUserName: text().optional(),
  StartedDateTime_utc: calendarText().optional(),
  StartedDateTime_offset: utcOffset().optional(),
  CompletedByUserID: id().optional(),
  CompletedByUserName: text().optional(),
  CompletedDateTime_utc: calendarText().optional(),
  CompletedDateTime_offset: utcOffset().optional(),
  ModifiedByUserID: id().optional(),
  ModifiedByUserName: text().optional(),
  ModifiedDateTime_utc: calendarText().optional(),
  ModifiedDateTime_offset: utcOffset().optional(),
  Version: z.int32().min(1).optional().meta({
    description:
      'Optimistic concurrency token (beyond the spec): 1 on create, one more per write. Send back the Version you read; ' +
      'when it is stale, Save answers 409 and changes nothing.',
  }),
  IsReadOnly: bool().optional(),
  IsActive: bool().optional(),
  Attachments: listOf(Attachment).optional(),
  Warehouse: Warehouse.optional(),
  Lines: z
    .array(DeliveryLine)
    .max(maxLinesPerReceipt)
    .optional()
    .meta({ description: `The receipt's lines, at most ${maxLinesPerReceipt.toLocaleString('en')} (a receipt's bound, above the 500 of other lists).` }),
  PurchaseOrders: listOf(PurchaseOrderSummary).optional(),
});
export type DeliveryReceiptT = z.infer<typeof DeliveryReceiptT>;

/**
 * `DeliveryReceiptEditResponse`: `EditResponse<DeliveryReceiptT>` with `AllowedStatuses` beside `Value`, the
 * transitions a Save may request now (empty when the receipt is read-only).
 */
export const DeliveryReceiptEditResponse = EditResponse(DeliveryReceiptT, {
  id: 'DeliveryReceiptEditResponse',
  extras: {
    AllowedStatuses: z
      .array(z.enum(receiptStatuses))
      .max(receiptStatuses.length)
      .meta({ description: 'Beyond the spec: the statuses a Save may request now (empty when the receipt is read-only).' }),
  },
});
export type DeliveryReceiptEditResponse = z.infer<typeof DeliveryReceiptEditResponse>;

/** A line of the add-inventory request. */
export const InventoryLine = shape(
  'InventoryLine',
  {
    InventoryID: id().min(1, { error: 'is required' }).optional().meta({ description: 'Required (400 without it): the item the line receives.' }),
    Quantity: notNegative().optional(),
    AdjustedQuantityReceived: notNegative().optional(),
    BuyPriceEx: notNegative().optional(),
    BuyPriceTax: notNegative().optional(),
    LineTotal: notNegative()
      .optional()
      .meta({ description: 'Quantity x (BuyPriceEx + BuyPriceTax), rounded to the currency: sent only with Quantity and BuyPriceEx.' }),
    IsActive: bool().optional(),
  },
  'A line to add: the inventory item and its quantities and prices.',
  undefined,
  // The domain requires InventoryID of each entry (lines.ts), reporting every entry at once, and checks a LineTotal
  // against the Quantity and BuyPriceEx beside it (line-total); the type keeps them optional.
  [{ required: ['InventoryID'] }, { dependentRequired: { LineTotal: ['Quantity', 'BuyPriceEx'] } }],
);
export type InventoryLine = z.infer<typeof InventoryLine>;

/** Body of deliveryReceiptSaveV2. The receipt is what the request is about, so `Value` is required. */
export const ActionRequestDeliveryReceiptT = shape(
  'ActionRequestDeliveryReceiptT',
  { Value: DeliveryReceiptT, ...tenancyFields },
  "A delivery receipt to save, with the caller's tenancy.",
);
export type ActionRequestDeliveryReceiptT = z.infer<typeof ActionRequestDeliveryReceiptT>;

export const SupplierTransAddInventoryRequest = shape('SupplierTransAddInventoryRequest', {
  InventoryList: listOf(InventoryLine).min(1),
});
export type SupplierTransAddInventoryRequest = z.infer<typeof SupplierTransAddInventoryRequest>;

/** Body of deliveryReceiptAddInventory: the lines to add are the whole point, so `Value` and its list are required. */
export const ActionRequestSupplierTransAddInventoryRequest = shape(
  'ActionRequestSupplierTransAddInventoryRequest',
  { Value: SupplierTransAddInventoryRequest, ...tenancyFields },
  'Add inventory lines to the delivery receipt named by the path id.',
);
export type ActionRequestSupplierTransAddInventoryRequest = z.infer<typeof ActionRequestSupplierTransAddInventoryRequest>;
