// Schemas: ScheduledTask (body of the scheduled-task save) with its optional AdaptorDetails, and ScheduledTaskXml,
// the XML form, which lists the same fields without AdaptorDetails (spec note 2). Credentials in TokenDetails are
// flagged `x-sensitive`; inventory class groups nest recursively.
import { z } from 'zod';
import { sensitive } from './annotations';
import {
  bool,
  count,
  dateTime,
  decimal,
  documentText,
  guid,
  id,
  int32,
  limits,
  listOf,
  longText,
  rowNumber,
  shape,
  text,
  url,
} from './common';
import { SyncLogDateTime } from './sync-log';

export const Instruction = shape('Instruction', {
  KeyName: text().optional(),
  FriendlyName: text().optional(),
  Description: longText().optional(),
  Value: longText().optional(),
  ValueOptions: listOf(longText()).optional(),
  ValueType: int32().optional(),
  IsTriggerReconfigure: bool().optional(),
  IsReadOnly: bool().optional(),
});
export type Instruction = z.infer<typeof Instruction>;

export const Translator = shape('Translator', {
  ID: id().optional(),
  MasterTranslatorID: id().optional(),
  MasterAdaptorID: id().optional(),
  AdaptorID: id().optional(),
  TenantID: id().optional(),
  WebsiteID: id().optional(),
  UserID: id().optional(),
  Name: text().optional(),
  Description: longText().optional(),
  IconURL: url().optional(),
  Version: text().optional(),
  InstructionsXML: documentText().optional(),
  TranslationDefinition: documentText().optional(),
  IsEnabled: bool().optional(),
  IsActive: bool().optional(),
  IsUsedByTenant: bool().optional(),
  IsSource: bool().optional(),
  IsTarget: bool().optional(),
  Instructions: listOf(Instruction).optional(),
});
export type Translator = z.infer<typeof Translator>;

const credential = (description: string) => sensitive(text(limits.credentialText).optional(), description);

/** The spec: "credential-bearing, never to be logged". Every secret carries `x-sensitive`. */
export const TokenDetails = shape('TokenDetails', {
  Provider: text().optional(),
  OrgID: text().optional(),
  OrgName: text().optional(),
  Username: text().optional(),
  UserAgent: longText().optional(),
  TokenKey: credential('OAuth token (access token or key) of the connection.'),
  TokenSecret: credential('OAuth token secret of the connection.'),
  ConsumerKey: credential('OAuth consumer key of the integration.'),
  ConsumerSecret: credential('OAuth consumer secret of the integration.'),
  Session: credential('Session handle of the connection.'),
  Verifier: credential('OAuth verifier returned by the provider.'),
  ExpiresAt: dateTime().optional(),
  SessionExpiresAt: dateTime().optional(),
  HasExpired: bool().optional(),
  HasSessionExpired: bool().optional(),
});
export type TokenDetails = z.infer<typeof TokenDetails>;

export const TranslatorAction = shape('TranslatorAction', {
  ID: id().optional(),
  TranslatorID: id().optional(),
  AdaptorActionID: id().optional(),
  DatTypeID: id().optional(),
  RefDatTypeID: id().optional(),
  TenantID: id().optional(),
  WebsiteID: id().optional(),
  UserID: id().optional(),
  Action: text().optional(),
  Name: text().optional(),
  Description: longText().optional(),
  InstructionsXML: documentText().optional(),
  TranslationDefinition: documentText().optional(),
  IsEnabled: bool().optional(),
  IsActive: bool().optional(),
  Instructions: listOf(Instruction).optional(),
});
export type TranslatorAction = z.infer<typeof TranslatorAction>;

export const AdaptorAction = shape('AdaptorAction', {
  ID: id().optional(),
  AdaptorID: id().optional(),
  DatTypeID: id().optional(),
  RefDatTypeID: id().optional(),
  TenantID: id().optional(),
  WebsiteID: id().optional(),
  UserID: id().optional(),
  LastExecUserID: id().optional(),
  Action: text().optional(),
  Name: text().optional(),
  Description: longText().optional(),
  TriggerXML: documentText().optional(),
  InstructionsXML: documentText().optional(),
  IsActive: bool().optional(),
  IsAutoQueue: bool().optional(),
  LastExecDateTime: dateTime().optional(),
  LastExecDateTime_utc: dateTime().optional(),
  Instructions: listOf(Instruction).optional(),
  TranslatorActionDetails: listOf(TranslatorAction).optional(),
});
export type AdaptorAction = z.infer<typeof AdaptorAction>;

// Inventory classes, class groups and group types refer to each other (a class names its group, a group lists its
// classes and names its type, a type lists its groups). The references are getters so each schema can name one
// declared below it: zod 4 resolves them on first use and TypeScript infers the cycle without annotations. The
// common fields are written out in each (as the spec lists them): spreading a shared object into a literal with
// such getters makes TypeScript resolve the cycle eagerly and give up.
export const DefaultInventoryClass = shape('DefaultInventoryClass', {
  ID: id().optional(),
  GUID: guid().optional(),
  GUIDstring: text().optional(),
  BSID: text().optional(),
  RowNumber: rowNumber().optional(),
  Version: decimal().min(0).optional(),
  Name: text().optional(),
  Description: longText().optional(),
  CreatedWith: text().optional(),
  IsActive: bool().optional(),
  IsSystem: bool().optional(),
  PostingBehaviour: text().optional(),
  SalesPostingInventoryID: id().optional(),
  SalesPostingInventoryCode: text().optional(),
  SalesPostingInventoryName: text().optional(),
  SalesPostingInventoryRevenueAccountCode: text().optional(),
  SalesPostingInventoryExpenseAccountCode: text().optional(),
  ServicePostingInventoryID: id().optional(),
  ServicePostingInventoryCode: text().optional(),
  ServicePostingInventoryName: text().optional(),
  ServicePostingInventoryRevenueAccountCode: text().optional(),
  ServicePostingInventoryExpenseAccountCode: text().optional(),
  CountOfProducts: count().optional(),
  IsApprovedForWeb: bool().optional(),
  IsApprovedForPOS: bool().optional(),
  IsApprovedForService: bool().optional(),
  IsAutoCreateGenericAccountInventory: bool().optional(),
  CreatedDateTime_utc: dateTime().optional(),
  ModifiedDateTime_utc: dateTime().optional(),
  SyncLogs: listOf(SyncLogDateTime).optional(),
  get InventoryClassGroup() {
    return InventoryClassGroup.optional();
  },
});
export type DefaultInventoryClass = z.infer<typeof DefaultInventoryClass>;

export const InventoryClassGroup = shape('InventoryClassGroup', {
  ID: id().optional(),
  GUID: guid().optional(),
  GUIDstring: text().optional(),
  BSID: text().optional(),
  RowNumber: rowNumber().optional(),
  Version: decimal().min(0).optional(),
  Name: text().optional(),
  Description: longText().optional(),
  CreatedWith: text().optional(),
  IsActive: bool().optional(),
  IsSystem: bool().optional(),
  SupplierID: id().optional(),
  IsDefault: bool().optional(),
  get InventoryClasses() {
    return listOf(DefaultInventoryClass).optional();
  },
  get InventoryClassGroupType() {
    return InventoryClassGroupType.optional();
  },
});
export type InventoryClassGroup = z.infer<typeof InventoryClassGroup>;

export const InventoryClassGroupType = shape('InventoryClassGroupType', {
  ID: id().optional(),
  GUID: guid().optional(),
  GUIDstring: text().optional(),
  BSID: text().optional(),
  RowNumber: rowNumber().optional(),
  Version: decimal().min(0).optional(),
  Name: text().optional(),
  Description: longText().optional(),
  CreatedWith: text().optional(),
  IsActive: bool().optional(),
  IsSystem: bool().optional(),
  IsDefault: bool().optional(),
  IsGeneric: bool().optional(),
  get InventoryClassGroups() {
    return listOf(InventoryClassGroup).optional();
  },
});
export type InventoryClassGroupType = z.infer<typeof InventoryClassGroupType>;

export const PrimaryOperationalCustomer = shape('PrimaryOperationalCustomer', {
  CustomerID: id().optional(),
  IsIndividual: bool().optional(),
  CompanyName: text().optional(),
  PrimaryContactFullName: text().optional(),
});
export type PrimaryOperationalCustomer = z.infer<typeof PrimaryOperationalCustomer>;

export const DefaultCustomerClass = shape('DefaultCustomerClass', {
  ID: id().optional(),
  GUID: guid().optional(),
  GUIDstring: text().optional(),
  BSID: text().optional(),
  Name: text().optional(),
  Description: longText().optional(),
  PostingBehaviour: text().optional(),
  CountOfCustomers: count().optional(),
  CreditLimit: decimal().optional(),
  FundingRate: decimal().optional(),
  DefaultPricingBandID: id().optional(),
  TradingTermID: id().optional(),
  TradingTermType: text().optional(),
  TradingTermDays: count().optional(),
  BatchInvoicePrefix: text().optional(),
  BatchInvoiceFrequencyDays: count().optional(),
  AccountCustomerRefNumberPrefix: text().optional(),
  LoyaltyDescription: longText().optional(),
  GenericAccountCustomerID: id().optional(),
  GenericAccountCustomerName: text().optional(),
  HasBeenSaved: bool().optional(),
  IsAccountCustomerBatched: bool().optional(),
  IsApprovedForWeb: bool().optional(),
  IsApprovedForPOS: bool().optional(),
  IsApprovedForService: bool().optional(),
  IsActive: bool().optional(),
  IsAutoApprovedforClaimRequests: bool().optional(),
  IsAutoSendPayByLinkInvoice: bool().optional(),
  IsCanSetFundingRate: bool().optional(),
  IsLoyaltyEligible: bool().optional(),
  IsBatchInvoice: bool().optional(),
  IsExemptFromMerchantSurcharge: bool().optional(),
  IsAutoCreateGenericAccountCustomer: bool().optional(),
  IsSystem: bool().optional(),
  PrimaryOperationalCustomer: PrimaryOperationalCustomer.optional(),
});
export type DefaultCustomerClass = z.infer<typeof DefaultCustomerClass>;

export const AdaptorDetails = shape('AdaptorDetails', {
  ID: id().optional(),
  MasterAdaptorID: id().optional(),
  TenantID: id().optional(),
  WebsiteID: id().optional(),
  UserID: id().optional(),
  AdaptorCategory: int32().optional(),
  Name: text().optional(),
  Description: longText().optional(),
  Type: text().optional(),
  Version: text().optional(),
  OrganisationId: text().optional(),
  OrganisationName: text().optional(),
  IconURL: url().optional(),
  FullIconUrl: url().optional(),
  InstructionsXML: documentText().optional(),
  IsActive: bool().optional(),
  IsAuthorized: bool().optional(),
  IsSource: bool().optional(),
  IsTarget: bool().optional(),
  IsUsedByTenant: bool().optional(),
  Messages: listOf(longText()).optional(),
  Instructions: listOf(Instruction).optional(),
  DefaultInventoryClass: DefaultInventoryClass.optional(),
  DefaultCustomerClass: DefaultCustomerClass.optional(),
  TranslatorDetails: listOf(Translator).optional(),
  TokenDetails: TokenDetails.optional(),
  Actions: listOf(AdaptorAction).optional(),
});
export type AdaptorDetails = z.infer<typeof AdaptorDetails>;

/** Every field of ScheduledTask except AdaptorDetails: the XML form carries exactly these. */
const scheduledTaskFields = {
  ID: id().optional(),
  Name: text().optional(),
  NameFriendlyName: text().optional(),
  Status: text().optional(),
  TimeOfDay: dateTime().optional(),
  CompletedDateTime_utc: dateTime().optional(),
  IsEnabled: bool().optional(),
  IsActive: bool().optional(),
  IsRecurringSchedule: bool().optional(),
  /** Number of IntervalType units between runs: never negative. */
  Interval: count().optional(),
  IntervalType: int32().optional(),
  RecurrenceType: int32().optional(),
  TaskTypeID: id().optional(),
  DocumentID: id().optional(),
  DatTypeID: id().optional(),
  DatTypeFriendlyName: text().optional(),
  WorkflowID: id().optional(),
  IDs: listOf(id()).optional(),
};

export const ScheduledTask = shape(
  'ScheduledTask',
  { ...scheduledTaskFields, AdaptorDetails: AdaptorDetails.optional() },
  'A scheduled task: what to run, when and how often, and optionally the adaptor that runs it.',
);
export type ScheduledTask = z.infer<typeof ScheduledTask>;

export const ScheduledTaskXml = shape(
  'ScheduledTaskXml',
  scheduledTaskFields,
  'The XML form of ScheduledTask: the same fields without AdaptorDetails.',
);
export type ScheduledTaskXml = z.infer<typeof ScheduledTaskXml>;
