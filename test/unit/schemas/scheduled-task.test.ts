// Unit tests of the scheduled-task schemas: ScheduledTask (JSON), ScheduledTaskXml, AdaptorDetails and the
// recursive inventory class groups.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { isSensitive } from '#shared/schemas/annotations';
import { limits } from '#shared/schemas/common';
import {
  DefaultInventoryClass,
  InventoryClassGroup,
  InventoryClassGroupType,
  ScheduledTask,
  ScheduledTaskXml,
  TokenDetails,
  type AdaptorDetails,
  type Instruction,
} from '#shared/schemas/scheduled-task';
import { SyncLog, SyncLogDateTime } from '#shared/schemas/sync-log';
import { flaggedFields, issuePaths, issuesOf, repeat, unsetFields, variant } from './support';

const instruction: Instruction = {
  KeyName: 'ExportInvoices',
  FriendlyName: 'Export invoices',
  Description: 'Send approved invoices to the ledger',
  Value: 'true',
  ValueOptions: ['true', 'false'],
  ValueType: 1,
  IsTriggerReconfigure: false,
  IsReadOnly: false,
  HasValue: true,
};

const inventoryClass: DefaultInventoryClass = {
  ID: 11,
  GUID: '0f8fad5b-d9cb-469f-a165-70867728950e',
  GUIDstring: '0f8fad5b-d9cb-469f-a165-70867728950e',
  BSID: 'IC-11',
  RowNumber: 1,
  Version: 2,
  Name: 'Stationery',
  Description: 'Paper, pens and toner',
  CreatedWith: 'Web',
  IsActive: true,
  IsSystem: false,
  PostingBehaviour: 'Inventory',
  SalesPostingInventoryID: 101,
  SalesPostingInventoryCode: 'SALES-STAT',
  SalesPostingInventoryName: 'Stationery sales',
  SalesPostingInventoryRevenueAccountCode: '200',
  SalesPostingInventoryExpenseAccountCode: '310',
  ServicePostingInventoryID: 102,
  ServicePostingInventoryCode: 'SRV-STAT',
  ServicePostingInventoryName: 'Stationery service',
  ServicePostingInventoryRevenueAccountCode: '210',
  ServicePostingInventoryExpenseAccountCode: '320',
  CountOfProducts: 42,
  IsApprovedForWeb: true,
  IsApprovedForPOS: true,
  IsApprovedForService: false,
  IsAutoCreateGenericAccountInventory: false,
  CreatedDateTime_utc: '2026-01-10T02:00:00Z',
  ModifiedDateTime_utc: '2026-02-10T02:00:00+00:00',
  SyncLogs: [
    {
      ID: 9,
      AdaptorID: 4,
      BSID: 'SL-9',
      Status: 'Synced',
      Details: 'Imported from the ledger',
      SyncCode: 'XERO',
      LastImportDateTime: '2026-03-01T10:00:00+10:00',
      LastExportDateTime: '2026-03-01T10:05:00+10:00',
      LastImportDateTime_utc: '2026-03-01T00:00:00Z',
      LastExportDateTime_utc: '2026-03-01T00:05:00Z',
      LastModifiedDateTime_utc: '2026-03-01T00:05:00Z',
      LastImportDateTime_offset: 600,
      LastExportDateTime_offset: 600,
      LastModifiedDateTime_offset: 600,
    },
  ],
  InventoryClassGroup: {
    ID: 21,
    GUID: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    GUIDstring: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    BSID: 'ICG-21',
    RowNumber: 1,
    Version: 1,
    Name: 'Office supplies',
    Description: 'Everything for the office',
    CreatedWith: 'Web',
    IsActive: true,
    IsSystem: false,
    SupplierID: 61,
    IsDefault: true,
    InventoryClasses: [{ ID: 12, Name: 'Furniture' }],
    InventoryClassGroupType: {
      ID: 31,
      GUID: 'c9bf9e57-1685-4c89-bafb-ff5af830be8a',
      GUIDstring: 'c9bf9e57-1685-4c89-bafb-ff5af830be8a',
      BSID: 'ICGT-31',
      RowNumber: 1,
      Version: 1,
      Name: 'Consumables',
      Description: 'Used up in the course of business',
      CreatedWith: 'Web',
      IsActive: true,
      IsSystem: false,
      IsDefault: false,
      IsGeneric: true,
      InventoryClassGroups: [{ ID: 22, Name: 'Kitchen' }],
    },
  },
};

const adaptorDetails: AdaptorDetails = {
  ID: 4,
  MasterAdaptorID: 1,
  TenantID: 7,
  WebsiteID: 3,
  UserID: 42,
  AdaptorCategory: 2,
  Name: 'Xero',
  Description: 'Accounting ledger',
  Type: 'Accounting',
  Version: '2.1',
  OrganisationId: 'org-778',
  OrganisationName: 'Acme Pty Ltd',
  IconURL: '/icons/xero.png',
  FullIconUrl: 'https://cdn.example.com/icons/xero.png',
  InstructionsXML: '<Instructions><Instruction KeyName="ExportInvoices" /></Instructions>',
  IsActive: true,
  IsAuthorized: true,
  IsSource: false,
  IsTarget: true,
  IsUsedByTenant: true,
  Messages: ['Connected', 'Last export succeeded'],
  Instructions: [instruction],
  DefaultInventoryClass: inventoryClass,
  DefaultCustomerClass: {
    ID: 5,
    GUID: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f',
    GUIDstring: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f',
    BSID: 'CC-5',
    Name: 'Trade',
    Description: 'Trade customers on 30 day terms',
    PostingBehaviour: 'Account',
    CountOfCustomers: 120,
    CreditLimit: 5000,
    FundingRate: 1.5,
    DefaultPricingBandID: 2,
    TradingTermID: 3,
    TradingTermType: 'DaysAfterInvoice',
    TradingTermDays: 30,
    BatchInvoicePrefix: 'TRD',
    BatchInvoiceFrequencyDays: 7,
    AccountCustomerRefNumberPrefix: 'ACC',
    LoyaltyDescription: '',
    GenericAccountCustomerID: 500,
    GenericAccountCustomerName: 'Cash sale',
    HasBeenSaved: true,
    IsAccountCustomerBatched: false,
    IsApprovedForWeb: true,
    IsApprovedForPOS: true,
    IsApprovedForService: true,
    IsActive: true,
    IsAutoApprovedforClaimRequests: false,
    IsAutoSendPayByLinkInvoice: false,
    IsCanSetFundingRate: false,
    IsLoyaltyEligible: true,
    IsBatchInvoice: false,
    IsExemptFromMerchantSurcharge: false,
    IsAutoCreateGenericAccountCustomer: false,
    IsSystem: false,
    PrimaryOperationalCustomer: {
      CustomerID: 501,
      IsIndividual: false,
      CompanyName: 'Acme Pty Ltd',
      PrimaryContactFullName: 'Jo Citizen',
    },
  },
  TranslatorDetails: [
    {
      ID: 8,
      MasterTranslatorID: 2,
      MasterAdaptorID: 1,
      AdaptorID: 4,
      TenantID: 7,
      WebsiteID: 3,
      UserID: 42,
      Name: 'Invoice to Xero',
      Description: 'Maps invoices to Xero invoices',
      IconURL: '/icons/translator.png',
      Version: '1.0',
      InstructionsXML: '<Instructions />',
      TranslationDefinition: '<xsl:stylesheet version="1.0" />',
      IsEnabled: true,
      IsActive: true,
      IsUsedByTenant: true,
      IsSource: false,
      IsTarget: true,
      Instructions: [instruction],
    },
  ],
  TokenDetails: {
    Provider: 'Xero',
    OrgID: 'org-778',
    OrgName: 'Acme Pty Ltd',
    Username: 'integration@acme.example',
    UserAgent: 'BusinessPlatform/1.0',
    TokenKey: 'tk_live_8s7d6f',
    TokenSecret: 'ts_live_1a2b3c',
    ConsumerKey: 'ck_5e6f',
    ConsumerSecret: 'cs_9g8h',
    Session: 'sess_0102',
    Verifier: 'ver_77',
    ExpiresAt: '2026-04-01T00:00:00Z',
    SessionExpiresAt: '2026-03-02T00:00:00+10:00',
    HasExpired: false,
    HasSessionExpired: false,
    HasTokenKey: true,
    HasTokenSecret: true,
    HasConsumerKey: true,
    HasConsumerSecret: true,
    HasSession: true,
    HasVerifier: true,
    HasUsername: true,
  },
  Actions: [
    {
      ID: 15,
      AdaptorID: 4,
      DatTypeID: 14,
      RefDatTypeID: 15,
      TenantID: 7,
      WebsiteID: 3,
      UserID: 42,
      LastExecUserID: 42,
      Action: 'Export',
      Name: 'Export invoices',
      Description: 'Exports approved invoices',
      TriggerXML: '<Trigger On="Approved" />',
      InstructionsXML: '<Instructions />',
      IsActive: true,
      IsAutoQueue: true,
      LastExecDateTime: '2026-03-01T10:05:00+10:00',
      LastExecDateTime_utc: '2026-03-01T00:05:00Z',
      Instructions: [instruction],
      TranslatorActionDetails: [
        {
          ID: 16,
          TranslatorID: 8,
          AdaptorActionID: 15,
          DatTypeID: 14,
          RefDatTypeID: 15,
          TenantID: 7,
          WebsiteID: 3,
          UserID: 42,
          Action: 'Translate',
          Name: 'Invoice mapping',
          Description: 'Applies the invoice mapping',
          InstructionsXML: '<Instructions />',
          TranslationDefinition: '<Map />',
          IsEnabled: true,
          IsActive: true,
          Instructions: [instruction],
        },
      ],
    },
  ],
};

const xmlTask: ScheduledTaskXml = {
  ID: 0,
  Name: 'NightlyExport',
  NameFriendlyName: 'Nightly export',
  Status: 'Scheduled',
  TimeOfDay: '2026-03-01T02:00:00+10:00',
  CompletedDateTime_utc: '2026-02-28T16:00:05Z',
  IsEnabled: true,
  IsActive: true,
  IsRecurringSchedule: true,
  Interval: 1,
  IntervalType: 2,
  RecurrenceType: 1,
  TaskTypeID: 6,
  DocumentID: 0,
  DatTypeID: 14,
  DatTypeFriendlyName: 'Invoice',
  WorkflowID: 0,
  IDs: [1, 2, 3],
  TimeZone: 'Australia/Brisbane',
  Version: 3,
  NextRunDateTime_utc: '2026-03-01T16:00:00Z',
  LastRunDateTime_utc: '2026-02-28T16:00:00Z',
  ScheduleState: 'Enabled',
  Runs: [{ ScheduledDateTime_utc: '2026-02-28T16:00:00Z', RecordedDateTime_utc: '2026-02-28T16:00:01Z', Outcome: 'Skipped', Reason: 'Misfire' }],
  CreatedDateTime_utc: '2026-02-01T00:00:00Z',
  ModifiedDateTime_utc: '2026-02-02T00:00:00Z',
  CreatedByUserID: 42,
  ModifiedByUserID: 42,
};

const task: ScheduledTask = { ...xmlTask, AdaptorDetails: adaptorDetails };

describe('ScheduledTask', () => {
  it('parses a full valid task unchanged', () => {
    expect(ScheduledTask.parse(task)).toEqual(task);
  });

  it('has an example that sets every field of every nested record', () => {
    expect(unsetFields(ScheduledTask, task)).toEqual([]);
  });

  it('parses an empty body: the spec makes every field optional', () => {
    expect(ScheduledTask.parse({})).toEqual({});
  });

  it.each([
    ['a string for an int', (t: ScheduledTask) => Object.assign(t, { Interval: '1' }), 'Interval'],
    ['a number for a string', (t: ScheduledTask) => Object.assign(t, { Name: 7 }), 'Name'],
    ['a string for a bool', (t: ScheduledTask) => Object.assign(t.AdaptorDetails!, { IsActive: 'yes' }), 'AdaptorDetails.IsActive'],
    ['a string for a list', (t: ScheduledTask) => Object.assign(t.AdaptorDetails!, { Messages: 'hello' }), 'AdaptorDetails.Messages'],
    ['a fraction for an int', (t: ScheduledTask) => Object.assign(t, { IntervalType: 1.5 }), 'IntervalType'],
  ])('refuses %s with the path of the field', (_case, change, path) => {
    expect(issuePaths(ScheduledTask, variant(task, change))).toEqual([path]);
  });

  it('refuses ids outside int32 >= 0 and a negative interval', () => {
    const bad = variant(task, (t) => {
      t.ID = 2 ** 31;
      t.IDs = [1, -1];
      t.Interval = -1;
      t.AdaptorDetails!.Actions![0]!.TranslatorActionDetails![0]!.TranslatorID = -1;
    });
    expect(issuePaths(ScheduledTask, bad).sort()).toEqual(
      ['AdaptorDetails.Actions.0.TranslatorActionDetails.0.TranslatorID', 'ID', 'IDs.1', 'Interval'].sort(),
    );
  });

  it('refuses date-times without an offset, or not ISO 8601', () => {
    const bad = variant(task, (t) => {
      t.TimeOfDay = '2026-03-01T02:00:00';
      t.AdaptorDetails!.TokenDetails!.ExpiresAt = '2026-04-01';
      t.AdaptorDetails!.DefaultInventoryClass!.SyncLogs![0]!.LastImportDateTime = '1 Mar 2026 10:00';
    });
    expect(issuePaths(ScheduledTask, bad).sort()).toEqual(
      [
        'AdaptorDetails.DefaultInventoryClass.SyncLogs.0.LastImportDateTime',
        'AdaptorDetails.TokenDetails.ExpiresAt',
        'TimeOfDay',
      ].sort(),
    );
  });

  it('refuses unknown keys, including a field spelled in another case', () => {
    expect(issuesOf(ScheduledTask, { ...task, name: 'x' })).toEqual([{ path: [], code: 'unrecognized_keys', keys: ['name'] }]);
    expect(issuesOf(ScheduledTask, { AdaptorDetails: { TokenDetails: { tokenSecret: 's' } } })).toEqual([
      { path: ['AdaptorDetails', 'TokenDetails'], code: 'unrecognized_keys', keys: ['tokenSecret'] },
    ]);
  });

  it('refuses a malformed GUID', () => {
    const bad = variant(task, (t) => (t.AdaptorDetails!.DefaultCustomerClass!.GUID = '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6'));
    expect(issuePaths(ScheduledTask, bad)).toEqual(['AdaptorDetails.DefaultCustomerClass.GUID']);
  });

  it('bounds XML fragments, credentials and short text', () => {
    const at = variant(task, (t) => {
      t.AdaptorDetails!.InstructionsXML = repeat(limits.documentText);
      t.AdaptorDetails!.TokenDetails!.TokenKey = repeat(limits.credentialText);
      t.Name = repeat(limits.shortText);
    });
    expect(ScheduledTask.safeParse(at).success).toBe(true);
    const over = variant(task, (t) => {
      t.AdaptorDetails!.InstructionsXML = repeat(limits.documentText + 1);
      t.AdaptorDetails!.Actions![0]!.TriggerXML = repeat(limits.documentText + 1);
      t.AdaptorDetails!.TokenDetails!.TokenKey = repeat(limits.credentialText + 1);
      t.AdaptorDetails!.FullIconUrl = repeat(limits.url + 1);
      t.Name = repeat(limits.shortText + 1);
    });
    expect(issuePaths(ScheduledTask, over).sort()).toEqual(
      [
        'AdaptorDetails.Actions.0.TriggerXML',
        'AdaptorDetails.FullIconUrl',
        'AdaptorDetails.InstructionsXML',
        'AdaptorDetails.TokenDetails.TokenKey',
        'Name',
      ].sort(),
    );
  });

  it('refuses lists over the item bound', () => {
    const over = variant(task, (t) => (t.IDs = Array.from({ length: limits.arrayItems + 1 }, (_, index) => index)));
    expect(issuesOf(ScheduledTask, over)).toEqual([{ path: ['IDs'], code: 'too_big' }]);
    const at = variant(task, (t) => (t.IDs = Array.from({ length: limits.arrayItems }, (_, index) => index)));
    expect(ScheduledTask.safeParse(at).success).toBe(true);
  });
});

describe('ScheduledTaskXml', () => {
  it('has the fields of ScheduledTask except AdaptorDetails', () => {
    expect(Object.keys(ScheduledTaskXml.shape).sort()).toEqual(
      Object.keys(ScheduledTask.shape)
        .filter((key) => key !== 'AdaptorDetails')
        .sort(),
    );
  });

  it('parses a full valid task and refuses AdaptorDetails', () => {
    expect(ScheduledTaskXml.parse(xmlTask)).toEqual(xmlTask);
    expect(unsetFields(ScheduledTaskXml, xmlTask)).toEqual([]);
    expect(issuesOf(ScheduledTaskXml, task)).toEqual([{ path: [], code: 'unrecognized_keys', keys: ['AdaptorDetails'] }]);
  });
});

describe('inventory class groups (recursive)', () => {
  const level = (depth: number): InventoryClassGroup => ({
    ID: depth,
    Name: `Group ${depth}`,
    ...(depth < 3
      ? {
          InventoryClasses: [{ ID: depth, Name: `Class ${depth}`, InventoryClassGroup: level(depth + 1) }],
          InventoryClassGroupType: { ID: depth, InventoryClassGroups: [level(depth + 1)] },
        }
      : {}),
  });

  it('parses groups nested three levels deep through classes and group types', () => {
    const group = level(1);
    expect(InventoryClassGroup.parse(group)).toEqual(group);
    expect(
      InventoryClassGroup.parse(group).InventoryClasses?.[0]?.InventoryClassGroup?.InventoryClassGroupType?.InventoryClassGroups?.[0]
        ?.Name,
    ).toBe('Group 3');
  });

  it('reports an error deep in the recursion with its full path', () => {
    const bad = variant(level(1), (group) => {
      group.InventoryClasses![0]!.InventoryClassGroup!.InventoryClassGroupType!.InventoryClassGroups![0]!.ID = -1;
      group.InventoryClassGroupType!.InventoryClassGroups![0]!.InventoryClasses![0]!.InventoryClassGroup!.GUID = 'x';
    });
    expect(issuePaths(InventoryClassGroup, bad).sort()).toEqual(
      [
        'InventoryClassGroupType.InventoryClassGroups.0.InventoryClasses.0.InventoryClassGroup.GUID',
        'InventoryClasses.0.InventoryClassGroup.InventoryClassGroupType.InventoryClassGroups.0.ID',
      ].sort(),
    );
  });

  it('refuses unknown keys at any depth', () => {
    expect(issuesOf(InventoryClassGroupType, { InventoryClassGroups: [{ InventoryClasses: [{ name: 'x' }] }] })).toEqual([
      { path: ['InventoryClassGroups', 0, 'InventoryClasses', 0], code: 'unrecognized_keys', keys: ['name'] },
    ]);
  });

  it('converts to JSON Schema with the cycle as references', () => {
    const document = z.toJSONSchema(InventoryClassGroup, { target: 'draft-2020-12' });
    const defs = document.$defs ?? {};
    expect(Object.keys(defs).sort()).toEqual(
      ['DefaultInventoryClass', 'InventoryClassGroup', 'InventoryClassGroupType', 'SyncLogDateTime'].sort(),
    );
    expect(defs.InventoryClassGroup?.properties?.InventoryClasses).toEqual({
      type: 'array',
      maxItems: limits.arrayItems,
      items: { $ref: '#/$defs/DefaultInventoryClass' },
    });
    expect(defs.DefaultInventoryClass?.properties?.InventoryClassGroup).toEqual({ $ref: '#/$defs/InventoryClassGroup' });
    expect(defs.InventoryClassGroupType?.properties?.InventoryClassGroups).toMatchObject({
      items: { $ref: '#/$defs/InventoryClassGroup' },
    });
  });
});

describe('SyncLog variants', () => {
  it('share their fields and differ in the type of the dates', () => {
    expect(Object.keys(SyncLogDateTime.shape)).toEqual(Object.keys(SyncLog.shape));
    expect(SyncLog.safeParse({ LastImportDateTime: '1 Mar 2026 10:00' }).success).toBe(true);
    expect(issuePaths(SyncLogDateTime, { LastImportDateTime: '1 Mar 2026 10:00' })).toEqual(['LastImportDateTime']);
    expect(SyncLogDateTime.safeParse({ LastImportDateTime: '2026-03-01T10:00:00+10:00' }).success).toBe(true);
  });
});

describe('ScheduledTask as JSON Schema', () => {
  it('converts both forms', () => {
    const json = z.toJSONSchema(ScheduledTask, { target: 'draft-2020-12' });
    const xml = z.toJSONSchema(ScheduledTaskXml, { target: 'draft-2020-12' });
    expect(json.$ref).toBe('#/$defs/ScheduledTask');
    expect(Object.keys(json.$defs ?? {}).sort()).toEqual(
      [
        'AdaptorAction',
        'AdaptorDetails',
        'DefaultCustomerClass',
        'DefaultInventoryClass',
        'Instruction',
        'InventoryClassGroup',
        'InventoryClassGroupType',
        'PrimaryOperationalCustomer',
        'ScheduledTask',
        'ScheduledTaskRun',
        'SyncLogDateTime',
        'TokenDetails',
        'Translator',
        'TranslatorAction',
      ].sort(),
    );
    expect(Object.keys(xml.$defs ?? {}).sort()).toEqual(['ScheduledTaskRun', 'ScheduledTaskXml']);
    expect(json.$defs?.ScheduledTask?.properties?.TimeOfDay).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('makes IntervalType and RecurrenceType integer enumerations with named members', () => {
    const json = z.toJSONSchema(ScheduledTask, { target: 'draft-2020-12' });
    const properties = json.$defs?.ScheduledTask?.properties ?? {};
    expect(properties.IntervalType).toMatchObject({
      type: 'integer',
      enum: [0, 1, 2, 3, 4, 5],
      'x-enum-varnames': ['None', 'Minute', 'Hour', 'Day', 'Week', 'Month'],
    });
    expect(properties.RecurrenceType).toMatchObject({ type: 'integer', enum: [0, 1, 2], 'x-enum-varnames': ['Auto', 'ElapsedTime', 'LocalTime'] });
    expect(issuePaths(ScheduledTask, { IntervalType: 6, RecurrenceType: 3 })).toEqual(['IntervalType', 'RecurrenceType']);
    expect(issuePaths(ScheduledTask, { IntervalType: -1, ScheduleState: 'Running' })).toEqual(['IntervalType', 'ScheduleState']);
  });

  it('bounds the runs an answer lists to 20', () => {
    const run = { ScheduledDateTime_utc: '2026-02-28T16:00:00Z', RecordedDateTime_utc: '2026-02-28T16:00:01Z', Outcome: 'Run' };
    expect(ScheduledTask.safeParse({ Runs: Array(20).fill(run) }).success).toBe(true);
    expect(issuePaths(ScheduledTask, { Runs: Array(21).fill(run) })).toEqual(['Runs']);
  });

  it('flags every credential of TokenDetails x-sensitive, and nothing else', () => {
    expect(flaggedFields(ScheduledTask, 'x-sensitive')).toEqual([
      'TokenDetails.ConsumerKey',
      'TokenDetails.ConsumerSecret',
      'TokenDetails.Session',
      'TokenDetails.TokenKey',
      'TokenDetails.TokenSecret',
      'TokenDetails.Username',
      'TokenDetails.Verifier',
    ]);
    expect(isSensitive(TokenDetails.shape.TokenSecret)).toBe(true);
    expect(isSensitive(TokenDetails.shape.Provider)).toBe(false);
  });
});
