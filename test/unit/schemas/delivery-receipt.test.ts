// Unit tests of the delivery receipt (v2) schemas: both request envelopes, DeliveryReceiptT and its nested records.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { isPersonalData } from '#shared/schemas/annotations';
import type { Address } from '#shared/schemas/address';
import { limits } from '#shared/schemas/common';
import {
  ActionRequestDeliveryReceiptT,
  ActionRequestSupplierTransAddInventoryRequest,
  Contact,
  DeliveryLine,
  DeliveryReceiptT,
  User,
  type InventoryLine,
} from '#shared/schemas/delivery-receipt';
import { lineFieldOrder, maxLinesPerReceipt, receiptFieldOrder } from '#shared/schemas/receipt-fields';
import { flaggedFields, issuePaths, issuesOf, repeat, unsetFields, variant } from './support';

const address: Address = {
  GUID: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  ID: 3,
  LocationID: 2,
  AddressType: 2,
  Latitude: -33.8688,
  Longitude: 151.2093,
  FullAddress: '1 Dock Road, Sydney NSW 2000, Australia',
  GUIDstring: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  AddressDescription: 'Loading dock',
  StreetAddress: '1 Dock Road',
  City: 'Sydney',
  PostCode: '2000',
  State: 'NSW',
  Country: 'Australia',
  Notes: 'Deliveries 7am to 3pm',
  IsMailTo: false,
  IsOfficeOrShop: false,
  IsPostalAddress: false,
  IsSelectedBilling: false,
  IsSelectedDelivery: true,
  IsSystem: false,
  IsDefaultDeliverTo: true,
  IsDefaultBilling: false,
  IsDefaultServiceTo: false,
  IsActive: true,
  IsDeliverTo: true,
  IsServiceTo: false,
};

const receipt: DeliveryReceiptT = {
  ID: 900,
  GUID: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f',
  GUIDstring: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f',
  BSID: 'DR-900',
  RowNumber: 1,
  RefNumber: 'DR-000900',
  Status: 'InProgress',
  FriendlyStatus: 'In progress',
  TenantID: 7,
  PurchaseOrderID: 800,
  SupplierID: 61,
  SupplierName: 'Paper Co',
  SupplierDeliveryNoteGUID: '0f8fad5b-d9cb-469f-a165-70867728950e',
  StockReplenishmentID: 0,
  PurchaseInvoiceID: 0,
  PickSlipID: 0,
  DeliveryNoteID: 41,
  WarehouseID: 1,
  DeliveryDate: '2026-03-02',
  NoteFromSupplier: 'Two cartons back-ordered',
  InternalNote: 'Check the toner batch',
  LineCount: 1,
  TotalLines: 1,
  ExpectedItemsCount: 10,
  CreatedByUserID: 42,
  CreatedByUserName: 'sam',
  CreatedDateTime_utc: '2026-03-01T23:00:00Z',
  CreatedDateTime_offset: 600,
  StartedByUserID: 42,
  StartedByUserName: 'sam',
  StartedDateTime_utc: '2026-03-01T23:10:00Z',
  StartedDateTime_offset: 600,
  CompletedByUserID: 0,
  CompletedByUserName: '',
  CompletedDateTime_utc: '',
  CompletedDateTime_offset: 0,
  ModifiedByUserID: 42,
  ModifiedByUserName: 'sam',
  ModifiedDateTime_utc: '2026-03-01T23:20:00Z',
  ModifiedDateTime_offset: 600,
  Version: 3,
  IsReadOnly: false,
  IsActive: true,
  Attachments: [
    {
      ID: 5,
      GUID: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      GUIDstring: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      MessageID: 0,
      LineID: 1,
      AttachedByUserID: 42,
      AttachedDateTime_utc: '2026-03-01T23:15:00Z',
      Title: 'Delivery docket',
      Caption: 'Signed docket',
      AttachmentType: 'Document',
      URI: 'https://files.example.com/dockets/900.pdf',
      ThumbnailURI: 'https://files.example.com/dockets/900-thumb.png',
      IsImage: false,
      IsPDF: true,
      IsActive: true,
      IsFromParent: false,
    },
  ],
  Warehouse: {
    ID: 1,
    GUIDstring: 'c9bf9e57-1685-4c89-bafb-ff5af830be8a',
    BSID: 'WH-1',
    RowNumber: 1,
    Version: 4,
    Code: 'MAIN',
    Name: 'Main warehouse',
    Description: 'Sydney dock',
    Barcode: 'WH0001',
    CostCentreCode: 'CC-100',
    TenantLocationID: 2,
    TenantLocationName: 'Sydney',
    WarehouseTypeID: 1,
    DefaultPOSCustomerID: 500,
    DefaultPOSCustomerName: 'Cash sale',
    TotalNumberOfDistinctProducts: 1200,
    TotalSOH: 35000,
    TotalStockValue: 412345.67,
    MinimumStockHoldingValue: 100000,
    MaximumStockHoldingValue: 500000,
    IsSystem: false,
    IsDefault: true,
    IsActive: true,
    IsStockOpeningBalanceComplete: true,
    SyncLogs: [
      {
        ID: 9,
        AdaptorID: 4,
        BSID: 'SL-9',
        Status: 'Synced',
        Details: 'Stock levels exported',
        SyncCode: 'XERO',
        LastImportDateTime: '2026-03-01 10:00',
        LastExportDateTime: '2026-03-01 10:05',
        LastImportDateTime_utc: '2026-03-01T00:00:00',
        LastExportDateTime_utc: '2026-03-01T00:05:00',
        LastModifiedDateTime_utc: '2026-03-01T00:05:00',
        LastImportDateTime_offset: 600,
        LastExportDateTime_offset: 600,
        LastModifiedDateTime_offset: 600,
      },
    ],
    Location: {
      ID: 2,
      GUID: '0f8fad5b-d9cb-469f-a165-70867728950e',
      GUIDstring: '0f8fad5b-d9cb-469f-a165-70867728950e',
      Name: 'Sydney',
      LocationName: 'Sydney dock',
      Phone: '+61 2 5550 1000',
      Fax: '+61 2 5550 1001',
      EmailAddress: 'dock@acme.example',
      TimeZoneName: 'AUS Eastern Standard Time',
      UtcOffset: 600,
      IsSystem: false,
      IsDefaultLocation: true,
      IsActive: true,
      IsVisibleToPublic: false,
      Contacts: [
        {
          ID: 70,
          GUID: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
          GUIDstring: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
          BusinessContactID: 71,
          BusinessID: 72,
          BusinessName: 'Acme Pty Ltd',
          BusinessLocationGuid: '0f8fad5b-d9cb-469f-a165-70867728950e',
          Title: 'Ms',
          FirstName: 'Jo',
          LastName: 'Citizen',
          Gender: 'F',
          Birthday: '1985-07-14',
          EmailAddress: 'jo.citizen@acme.example',
          Phone1: '+61 2 5550 1002',
          PhoneMobile: '+61 400 000 000',
          ContactRole: 'Receiving',
          PositionOrOccupation: 'Store manager',
          LinkedUserGlobalIDstring: '',
          IsSystem: false,
          IsPrimaryContact: true,
          IsActive: true,
          IsIncludeInEmails: true,
        },
      ],
      Addresses: [address],
    },
    WarehouseType: {
      ID: 1,
      WarehouseTypeID: 1,
      Name: 'Physical',
      Description: 'A building with shelves',
      RefNumberPrefix: 'WH',
      IsVirtual: false,
    },
    Users: [
      {
        ID: 42,
        GUIDstring: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
        BSID: 'U-42',
        CreatedWith: 'Web',
        FirstName: 'Sam',
        LastName: 'Storeman',
        EmailAddress: 'sam@acme.example',
        Phone1: '+61 2 5550 1003',
        PhoneMobile: '+61 400 000 001',
        PositionOrOccupation: 'Storeman',
        IsActive: true,
        IsPrimaryContact: false,
        IsEmployee: true,
      },
    ],
  },
  Lines: [
    {
      ID: 1,
      GUID: 'c9bf9e57-1685-4c89-bafb-ff5af830be8a',
      GUIDstring: 'c9bf9e57-1685-4c89-bafb-ff5af830be8a',
      SequenceNumber: 1,
      InventoryID: 300,
      InventoryCode: 'PAPER-A4',
      InventoryGUIDstring: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      InventoryType: 'Stock',
      Barcode: '9300000000001',
      EAN: '9300000000001',
      SKU: 'A4-80GSM',
      ShortDescription: 'A4 paper',
      Description: 'A4 copier paper, 80 gsm, 5 reams',
      UoM: 'CTN',
      UoMDescription: 'Carton',
      CostPriceEx: 24.5,
      QuantityOrdered: 10,
      QuantityReceived: 8,
      QuantityFaulty: 0,
      QuantityOutOfDate: 0,
      QuantityIncorrect: 0,
      QuantityToBeReceived: 2,
      ReceiveWarehouseLocationID: 3,
      ReceiveInventoryBatchID: 0,
      ReceivedByUserID: 42,
      ReceivedByUserName: 'sam',
      ReceivedDateTime_utc: '2026-03-01T23:18:00Z',
      ReceivedDateTime_offset: 600,
      ReceiveComment: 'Two cartons short',
      Comment: '',
      AssetID: 0,
      PurchaseOrderLineID: 801,
      StockReplenishmentLineID: 0,
      IsActive: true,
      IsAssetItem: false,
      IsStockAdjustmentComplete: false,
    },
  ],
  PurchaseOrders: [
    {
      ID: 800,
      GUIDstring: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      DatTypeID: 20,
      DatTypeString: 'Purchase order',
      ShortDatTypeString: 'PO',
      TransSubType: 'Standard',
      Status: 'Ordered',
      RefNumber: 'PO-000800',
      Description: 'Monthly stationery',
      Issues: '',
      RecipientName: 'Paper Co',
      AppliedDate: '2026-02-25',
      LineCount: 1,
      QuantityCount: 10,
      TotalInc: 269.5,
      TotalEx: 245,
      AppliedAmount: 0,
    },
  ],
};

const saveRequest: ActionRequestDeliveryReceiptT = { Value: receipt, TenantID: 7, WebsiteID: 3, UserID: 42 };

const inventoryLine: InventoryLine = {
  InventoryID: 300,
  Quantity: 2,
  AdjustedQuantityReceived: 2,
  BuyPriceEx: 24.5,
  BuyPriceTax: 2.45,
  LineTotal: 53.9,
  IsActive: true,
};

const addRequest: ActionRequestSupplierTransAddInventoryRequest = {
  Value: { InventoryList: [inventoryLine] },
  TenantID: 7,
  WebsiteID: 3,
  UserID: 42,
};

describe('ActionRequestDeliveryReceiptT', () => {
  it('parses a full valid request unchanged', () => {
    expect(ActionRequestDeliveryReceiptT.parse(saveRequest)).toEqual(saveRequest);
  });

  it('has an example that sets every field of every nested record', () => {
    expect(unsetFields(ActionRequestDeliveryReceiptT, saveRequest)).toEqual([]);
  });

  it('requires Value, and nothing inside it', () => {
    expect(issuesOf(ActionRequestDeliveryReceiptT, { TenantID: 7 })).toEqual([{ path: ['Value'], code: 'invalid_type' }]);
    expect(ActionRequestDeliveryReceiptT.parse({ Value: {} })).toEqual({ Value: {} });
  });

  it.each([
    ['a string for a number', (r: ActionRequestDeliveryReceiptT) => Object.assign(r.Value.Lines![0]!, { QuantityReceived: '8' }), 'Value.Lines.0.QuantityReceived'],
    ['a string for a bool', (r: ActionRequestDeliveryReceiptT) => Object.assign(r.Value, { IsReadOnly: 'false' }), 'Value.IsReadOnly'],
    ['a number for a string', (r: ActionRequestDeliveryReceiptT) => Object.assign(r.Value, { RefNumber: 900 }), 'Value.RefNumber'],
    ['a list for an object', (r: ActionRequestDeliveryReceiptT) => Object.assign(r.Value, { Warehouse: [] }), 'Value.Warehouse'],
  ])('refuses %s with the path of the field', (_case, change, path) => {
    expect(issuePaths(ActionRequestDeliveryReceiptT, variant(saveRequest, change))).toEqual([path]);
  });

  it('refuses ids outside int32 >= 0 and offsets beyond +-14:00', () => {
    const bad = variant(saveRequest, (r) => {
      r.UserID = 2 ** 31;
      r.Value.WarehouseID = -1;
      r.Value.Warehouse!.Location!.Contacts![0]!.BusinessID = -1;
      r.Value.Warehouse!.Location!.UtcOffset = 15 * 60;
      r.Value.CreatedDateTime_offset = -841;
    });
    expect(issuePaths(ActionRequestDeliveryReceiptT, bad).sort()).toEqual(
      [
        'UserID',
        'Value.CreatedDateTime_offset',
        'Value.Warehouse.Location.Contacts.0.BusinessID',
        'Value.Warehouse.Location.UtcOffset',
        'Value.WarehouseID',
      ].sort(),
    );
  });

  it('refuses unknown keys, including a field spelled in another case', () => {
    expect(issuesOf(ActionRequestDeliveryReceiptT, { Value: { name: 'x' } })).toEqual([
      { path: ['Value'], code: 'unrecognized_keys', keys: ['name'] },
    ]);
    expect(issuesOf(ActionRequestDeliveryReceiptT, { Value: { Warehouse: { Users: [{ firstName: 'Sam' }] } } })).toEqual([
      { path: ['Value', 'Warehouse', 'Users', 0], code: 'unrecognized_keys', keys: ['firstName'] },
    ]);
  });

  it('refuses malformed GUIDs', () => {
    const bad = variant(saveRequest, (r) => {
      r.Value.GUID = '{6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f}';
      r.Value.Warehouse!.Location!.Contacts![0]!.BusinessLocationGuid = 'not-a-guid';
    });
    expect(issuePaths(ActionRequestDeliveryReceiptT, bad).sort()).toEqual(
      ['Value.GUID', 'Value.Warehouse.Location.Contacts.0.BusinessLocationGuid'].sort(),
    );
  });

  it('applies the Address schema to the location addresses', () => {
    const bad = variant(saveRequest, (r) => (r.Value.Warehouse!.Location!.Addresses![0]!.Latitude = 91));
    expect(issuePaths(ActionRequestDeliveryReceiptT, bad)).toEqual(['Value.Warehouse.Location.Addresses.0.Latitude']);
  });

  it('refuses strings over their bound', () => {
    const over = variant(saveRequest, (r) => {
      r.Value.InternalNote = repeat(limits.longText + 1);
      r.Value.Attachments![0]!.URI = repeat(limits.url + 1);
      r.Value.Warehouse!.Users![0]!.EmailAddress = repeat(limits.emailAddress + 1);
      r.Value.Warehouse!.Location!.Phone = repeat(limits.phoneNumber + 1);
      r.Value.Lines![0]!.SKU = repeat(limits.shortText + 1);
    });
    expect(issuePaths(ActionRequestDeliveryReceiptT, over).sort()).toEqual(
      [
        'Value.Attachments.0.URI',
        'Value.InternalNote',
        'Value.Lines.0.SKU',
        'Value.Warehouse.Location.Phone',
        'Value.Warehouse.Users.0.EmailAddress',
      ].sort(),
    );
  });

  it('refuses lists over the item bound, and Lines over the receipt bound of 1,000 (issue 9)', () => {
    const attachments = variant(saveRequest, (r) => (r.Value.Attachments = Array.from({ length: limits.arrayItems + 1 }, () => ({}))));
    expect(issuesOf(ActionRequestDeliveryReceiptT, attachments)).toEqual([{ path: ['Value', 'Attachments'], code: 'too_big' }]);
    const full = variant(saveRequest, (r) => (r.Value.Lines = Array.from({ length: maxLinesPerReceipt }, () => ({}))));
    expect(ActionRequestDeliveryReceiptT.safeParse(full).success).toBe(true);
    const over = variant(saveRequest, (r) => (r.Value.Lines = Array.from({ length: maxLinesPerReceipt + 1 }, () => ({}))));
    expect(issuesOf(ActionRequestDeliveryReceiptT, over)).toEqual([{ path: ['Value', 'Lines'], code: 'too_big' }]);
  });

  it('lists its fields in the order the domain stores and shows them (receipt-fields.ts)', () => {
    const notStored = new Set(['BSID', 'RowNumber', 'Warehouse']);
    expect(receiptFieldOrder).toEqual(Object.keys(DeliveryReceiptT.shape).filter((field) => !notStored.has(field)));
    expect(lineFieldOrder).toEqual(Object.keys(DeliveryLine.shape));
  });
});

describe('ActionRequestSupplierTransAddInventoryRequest', () => {
  it('parses a full valid request unchanged', () => {
    expect(ActionRequestSupplierTransAddInventoryRequest.parse(addRequest)).toEqual(addRequest);
    expect(unsetFields(ActionRequestSupplierTransAddInventoryRequest, addRequest)).toEqual([]);
  });

  it('requires Value and at least one line', () => {
    expect(issuesOf(ActionRequestSupplierTransAddInventoryRequest, {})).toEqual([{ path: ['Value'], code: 'invalid_type' }]);
    expect(issuesOf(ActionRequestSupplierTransAddInventoryRequest, { Value: {} })).toEqual([
      { path: ['Value', 'InventoryList'], code: 'invalid_type' },
    ]);
    expect(issuesOf(ActionRequestSupplierTransAddInventoryRequest, { Value: { InventoryList: [] } })).toEqual([
      { path: ['Value', 'InventoryList'], code: 'too_small' },
    ]);
  });

  it('refuses bad lines with the path of the field', () => {
    const bad = variant(addRequest, (r) => {
      r.Value.InventoryList.push({ InventoryID: 2 ** 31 }, { Quantity: Number.NaN }, { BuyPriceEx: '24.50' as unknown as number });
    });
    expect(issuePaths(ActionRequestSupplierTransAddInventoryRequest, bad)).toEqual([
      'Value.InventoryList.1.InventoryID',
      'Value.InventoryList.2.Quantity',
      'Value.InventoryList.3.BuyPriceEx',
    ]);
    expect(issuesOf(ActionRequestSupplierTransAddInventoryRequest, { Value: { InventoryList: [{ inventoryID: 1 }] } })).toEqual([
      { path: ['Value', 'InventoryList', 0], code: 'unrecognized_keys', keys: ['inventoryID'] },
    ]);
  });

  it('refuses more lines than the item bound', () => {
    const at = { Value: { InventoryList: Array.from({ length: limits.arrayItems }, () => inventoryLine) } };
    expect(ActionRequestSupplierTransAddInventoryRequest.safeParse(at).success).toBe(true);
    const over = { Value: { InventoryList: Array.from({ length: limits.arrayItems + 1 }, () => inventoryLine) } };
    expect(issuesOf(ActionRequestSupplierTransAddInventoryRequest, over)).toEqual([
      { path: ['Value', 'InventoryList'], code: 'too_big' },
    ]);
  });
});

describe('delivery receipts as JSON Schema', () => {
  it('converts both envelopes', () => {
    const save = z.toJSONSchema(ActionRequestDeliveryReceiptT, { target: 'draft-2020-12' });
    expect(save.$ref).toBe('#/$defs/ActionRequestDeliveryReceiptT');
    expect(Object.keys(save.$defs ?? {}).sort()).toEqual(
      [
        'ActionRequestDeliveryReceiptT',
        'Address',
        'Attachment',
        'Contact',
        'DeliveryLine',
        'DeliveryReceiptT',
        'Location',
        'PurchaseOrderSummary',
        'SyncLog',
        'User',
        'Warehouse',
        'WarehouseType',
      ].sort(),
    );
    expect(save.$defs?.ActionRequestDeliveryReceiptT?.required).toEqual(['Value']);

    const add = z.toJSONSchema(ActionRequestSupplierTransAddInventoryRequest, { target: 'draft-2020-12' });
    expect(Object.keys(add.$defs ?? {}).sort()).toEqual(
      ['ActionRequestSupplierTransAddInventoryRequest', 'InventoryLine', 'SupplierTransAddInventoryRequest'].sort(),
    );
    expect(add.$defs?.SupplierTransAddInventoryRequest?.properties?.InventoryList).toMatchObject({
      minItems: 1,
      maxItems: limits.arrayItems,
    });
  });

  it('flags the personal fields of contacts and users x-personal-data, and nothing x-sensitive', () => {
    expect(flaggedFields(ActionRequestDeliveryReceiptT, 'x-personal-data')).toEqual([
      'Contact.Birthday',
      'Contact.EmailAddress',
      'Contact.FirstName',
      'Contact.Gender',
      'Contact.LastName',
      'Contact.Phone1',
      'Contact.PhoneMobile',
      'User.EmailAddress',
      'User.FirstName',
      'User.LastName',
      'User.Phone1',
      'User.PhoneMobile',
    ]);
    expect(flaggedFields(ActionRequestDeliveryReceiptT, 'x-sensitive')).toEqual([]);
    expect(isPersonalData(Contact.shape.Birthday)).toBe(true);
    expect(isPersonalData(User.shape.PositionOrOccupation)).toBe(false);
  });
});
