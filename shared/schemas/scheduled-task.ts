// Schemas: ScheduledTask (body of the scheduled-task save) with its optional AdaptorDetails, and ScheduledTaskXml,
// the XML form, which lists the same fields without AdaptorDetails (spec note 2). Credentials in TokenDetails are
// flagged `x-sensitive`; inventory class groups nest recursively (bounded by the body depth limit, shared/http).
// Beyond the spec: Version, TimeZone, the server-owned answer fields (next and last run, schedule state, latest
// runs, audit) and the flags that say a secret is stored (`Has<Field>`, `HasValue`); shared/scheduled-tasks/README.md.
import { z } from 'zod';
import { visibleCharacterPattern } from '#shared/data/visible-text';
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
  namedIntEnum as namedInt,
  recordHeader,
  recordIdentity,
  rowNumber,
  shape,
  text,
  url,
} from './common';
import { latestRunsShown, maxInterval } from './limits';
import { matches } from '#shared/validation/portable';
import { timeZoneNamePattern } from './calendar';
import { SyncLogDateTime } from './sync-log';

/** A flag only answers set (a secret is stored): accepted in a request, so a fetched task can be sent back, and ignored. */
function answerOnly(description: string) {
  return bool().optional().meta({ description: `${description} Answer only: ignored in a request.` });
}

export const Instruction = shape('Instruction', {
  KeyName: text().optional(),
  FriendlyName: text().optional(),
  Description: longText().optional(),
  Value: longText().optional(),
  ValueOptions: listOf(longText()).optional(),
  ValueType: int32().optional(),
  IsTriggerReconfigure: bool().optional(),
  IsReadOnly: bool().optional(),
  HasValue: answerOnly('True in an answer when the instruction is secret (its KeyName looks like one) and a value is stored.'),
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
  Username: credential('User name of the connection: a credential like the others.'),
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
  HasTokenKey: answerOnly('True in an answer when TokenKey is stored.'),
  HasTokenSecret: answerOnly('True in an answer when TokenSecret is stored.'),
  HasConsumerKey: answerOnly('True in an answer when ConsumerKey is stored.'),
  HasConsumerSecret: answerOnly('True in an answer when ConsumerSecret is stored.'),
  HasSession: answerOnly('True in an answer when Session is stored.'),
  HasVerifier: answerOnly('True in an answer when Verifier is stored.'),
  HasUsername: answerOnly('True in an answer when Username is stored.'),
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
// declared below it: zod 4 resolves them on first use and TypeScript infers the cycle without annotations.

/** What the three inventory records list first: the record header, then their name, description, origin and flags. */
const inventoryClassHeader = () => ({
  ...recordHeader(),
  Name: text().optional(),
  Description: longText().optional(),
  CreatedWith: text().optional(),
  IsActive: bool().optional(),
  IsSystem: bool().optional(),
});

/**
 * An inventory record: `fields` (no getters) after the record header, its name, description, origin and flags, then
 * `links`, the getters that name the other records of the cycle. The links are added apart (`extend`): a literal that
 * both spreads shared fields and has such getters makes TypeScript resolve the cycle eagerly and give up.
 */
const inventoryRecord = <Fields extends z.core.$ZodLooseShape, Links extends z.core.$ZodLooseShape>(name: string, fields: Fields, links: Links) =>
  z.strictObject({ ...inventoryClassHeader(), ...fields }).extend(links).meta({ id: name });

export const DefaultInventoryClass = inventoryRecord('DefaultInventoryClass', {
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
}, {
  get InventoryClassGroup() {
    return InventoryClassGroup.optional();
  },
});
export type DefaultInventoryClass = z.infer<typeof DefaultInventoryClass>;

export const InventoryClassGroup = inventoryRecord('InventoryClassGroup', {
  SupplierID: id().optional(),
  IsDefault: bool().optional(),
}, {
  get InventoryClasses() {
    return listOf(DefaultInventoryClass).optional();
  },
  get InventoryClassGroupType() {
    return InventoryClassGroupType.optional();
  },
});
export type InventoryClassGroup = z.infer<typeof InventoryClassGroup>;

export const InventoryClassGroupType = inventoryRecord('InventoryClassGroupType', {
  IsDefault: bool().optional(),
  IsGeneric: bool().optional(),
}, {
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
  ...recordIdentity(),
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

/** `IntervalType`: the unit of Interval (recurrence.ts). 0 (None) only on a one-off task: typed clients send 0 for unset. */
export const intervalTypeNames = ['None', 'Minute', 'Hour', 'Day', 'Week', 'Month'] as const;
/** `RecurrenceType` (recurrence.ts): what a recurring task's runs keep constant. */
export const recurrenceTypeNames = ['Auto', 'ElapsedTime', 'LocalTime'] as const;

/** An optional named int enumeration (common.ts). */
const namedIntEnum = (names: readonly string[], descriptions: readonly string[], description: string) =>
  namedInt(names, descriptions, description).optional();

export const ScheduleStates = ['Enabled', 'Disabled', 'Pending', 'Deleted'] as const;
export type ScheduleState = (typeof ScheduleStates)[number];

/** One recorded run of a task (written by the task-runs consumer, shown newest first). */
export const ScheduledTaskRun = shape(
  'ScheduledTaskRun',
  {
    ScheduledDateTime_utc: dateTime(),
    RecordedDateTime_utc: dateTime(),
    Outcome: z.enum(['Run', 'Skipped']),
    Reason: z.enum(['Misfire', 'StaleVersion', 'Disabled']).optional(),
  },
  'A run of the task: when it was due, when it was recorded, and whether it ran or was skipped (and why).',
);
export type ScheduledTaskRun = z.infer<typeof ScheduledTaskRun>;

/**
 * A TimeOfDay the recurrence engine reads (recurrence.ts): its written year within `taskYears`, its offset within
 * `taskOffsetMinutes` (the date-time format already caps it at +14:00). A unit test holds the two to each other.
 */
export const taskTimePattern = /^(?:19[7-9]\d|2[01]\d\d)-.*(?:Z|\+\d\d:\d\d|-(?:0\d|1[01]):\d\d|-12:00)$/;

/** Every field of ScheduledTask except AdaptorDetails: the XML form carries exactly these. */
const scheduledTaskFields = {
  ID: id().optional(),
  Name: text().optional(),
  NameFriendlyName: text().optional(),
  Status: text()
    .optional()
    .meta({ description: 'Server-owned: Scheduled, Completed (a one-off task that ran) or Disabled. Ignored in a request.' }),
  TimeOfDay: dateTime()
    .refine(matches(taskTimePattern), {
      error: 'must name a year from 1970 to 2199 (the scheduler\'s) and an offset from -12:00 to +14:00',
      // Judged only of a date-time: one problem per value, as the server reports it.
      when: (payload) => payload.issues.length === 0,
    })
    .optional()
    .meta({ description: "The first (or only) run, in a year from 1970 to 2199 (the scheduler's) with an offset from -12:00 to +14:00." }),
  TimeZone: text(64)
    .regex(timeZoneNamePattern, { error: 'must be an IANA time zone name, e.g. Australia/Sydney (case-sensitive)' })
    .optional()
    .meta({
      description:
        'Beyond the spec: an IANA time zone (Australia/Sydney) whose local time the runs keep. Without it, the offset of TimeOfDay is a fixed offset.',
    }),
  CompletedDateTime_utc: dateTime()
    .optional()
    .meta({ description: "Server-owned: when a one-off task's run was recorded. Ignored in a request." }),
  IsEnabled: bool().optional(),
  IsActive: bool().optional(),
  IsRecurringSchedule: bool().optional(),
  /** Number of IntervalType units between runs: never negative. */
  Interval: count().optional(),
  IntervalType: namedIntEnum(
    intervalTypeNames,
    ['No interval (a one-off task only)', 'Minutes', 'Hours', 'Days', 'Weeks', 'Months'],
    'The unit of Interval: 1 minute, 2 hour, 3 day, 4 week, 5 month (0: none, a one-off task only).',
  ),
  RecurrenceType: namedIntEnum(
    recurrenceTypeNames,
    [
      'Elapsed time for minute and hour intervals, local time for day, week and month intervals (the default)',
      'Runs exactly Interval units of elapsed time apart (minute, hour, day, week)',
      "Runs at TimeOfDay's local time on every Interval-th day, week or month, across DST changes",
    ],
    'What the runs keep constant: 0 Auto (default), 1 ElapsedTime, 2 LocalTime.',
  ),
  TaskTypeID: id().optional(),
  DocumentID: id().optional(),
  DatTypeID: id().optional(),
  DatTypeFriendlyName: text().optional(),
  WorkflowID: id().optional(),
  IDs: listOf(id()).optional(),
  Version: z.int32().min(0).optional().meta({
    description:
      'Version of the task this update is based on (0 or absent: none named). When given and stale, Save answers 409. Every write adds one.',
  }),
  NextRunDateTime_utc: dateTime()
    .optional()
    .meta({ description: 'Server-owned: the next run, computed from the schedule (absent when none is left): the time the task really runs, TimeOfDay rounded up to a whole minute (the scheduler fires with one-minute precision, never before the time asked). Ignored in a request.' }),
  LastRunDateTime_utc: dateTime()
    .optional()
    .meta({ description: 'Server-owned: the scheduled time of the last recorded run. Ignored in a request.' }),
  ScheduleState: z
    .enum(ScheduleStates)
    .optional()
    .meta({
      description:
        'Server-owned: Enabled (the schedule exists), Disabled (no schedule: disabled, inactive or no run left) Pending (the scheduler could not be reached; a retry brings it in line) or Deleted (a one-off task ran and its schedule deleted itself). Ignored in a request.',
    }),
  Runs: z
    .array(ScheduledTaskRun)
    .max(latestRunsShown)
    .optional()
    .meta({ description: `Server-owned: the latest ${latestRunsShown} runs, newest first (Get only). Ignored in a request.` }),
  CreatedDateTime_utc: dateTime().optional(),
  ModifiedDateTime_utc: dateTime().optional(),
  CreatedByUserID: id().optional(),
  ModifiedByUserID: id().optional(),
};

/** A task created every 15 minutes from 1 January 2026 (UTC), and a one-off task kept in Sydney time. */
const scheduledTaskExamples = [
  { Name: 'Export invoices', TaskTypeID: 7, IsEnabled: true, IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2026-01-01T00:00:00Z' },
  { Name: 'Year-end stocktake', TaskTypeID: 3, IsRecurringSchedule: false, TimeOfDay: '2026-12-31T18:00:00+11:00', TimeZone: 'Australia/Sydney' },
];

/**
 * The rules shared/scheduled-tasks/service.ts and recurrence.ts apply to the task as merged with the stored one, in
 * the JSON Schema the document states them with (the domain, not the schema, enforces them: it reports every problem
 * of the merged task at once). A create (ID absent or 0) has nothing to merge with: Name, TaskTypeID and TimeOfDay
 * are required, Interval or IntervalType need IsRecurringSchedule, and a recurring task needs both. On either, a Name
 * sent is not blank, a TaskTypeID sent is not 0, and a recurring task's Interval and IntervalType are not 0.
 */
const intervalTypeOf = (name: (typeof intervalTypeNames)[number]) => intervalTypeNames.indexOf(name);
const recurrenceTypeOf = (name: (typeof recurrenceTypeNames)[number]) => recurrenceTypeNames.indexOf(name);
/** When the body sends IntervalType as one of `names`, the rule `then` states of the rest. */
const whenIntervalType = (names: readonly (typeof intervalTypeNames)[number][], then: object) => ({
  if: { properties: { IntervalType: { enum: names.map(intervalTypeOf) } }, required: ['IntervalType'] },
  then,
});
/**
 * A recurring task's interval, as recurrence.ts reads it: at most a year of its unit (`maxInterval`); local time (2)
 * only on a day, week or month interval, elapsed time (1) never on months (they differ in length).
 */
const recurringRules = [
  ...(['Minute', 'Hour', 'Day', 'Week', 'Month'] as const).map((name) =>
    whenIntervalType([name], { properties: { Interval: { maximum: maxInterval[name.toLowerCase() as Lowercase<typeof name>] } } }),
  ),
  whenIntervalType(['Minute', 'Hour'], { properties: { RecurrenceType: { enum: [recurrenceTypeOf('Auto'), recurrenceTypeOf('ElapsedTime')] } } }),
  whenIntervalType(['Month'], { properties: { RecurrenceType: { enum: [recurrenceTypeOf('Auto'), recurrenceTypeOf('LocalTime')] } } }),
];
const sentFieldRules = {
  properties: { Name: { pattern: visibleCharacterPattern }, TaskTypeID: { minimum: 1 } },
  if: { properties: { IsRecurringSchedule: { const: true } }, required: ['IsRecurringSchedule'] },
  then: { properties: { Interval: { minimum: 1 }, IntervalType: { minimum: 1 } }, allOf: recurringRules },
};
const createRules = {
  if: { properties: { ID: { minimum: 1 } }, required: ['ID'] },
  else: {
    required: ['Name', 'TaskTypeID', 'TimeOfDay'],
    dependentRequired: { Interval: ['IsRecurringSchedule'], IntervalType: ['IsRecurringSchedule'] },
    if: { properties: { IsRecurringSchedule: { const: true } }, required: ['IsRecurringSchedule'] },
    then: { required: ['Interval', 'IntervalType'] },
  },
};
const mergedTaskRules = [sentFieldRules, createRules];

export const ScheduledTask = shape(
  'ScheduledTask',
  { ...scheduledTaskFields, AdaptorDetails: AdaptorDetails.optional() },
  'A scheduled task: what to run, when and how often, and optionally the adaptor that runs it. A create (ID absent ' +
    'or 0) requires Name (not blank), TaskTypeID (not 0) and TimeOfDay, and a recurring one IntervalType 1 to 5 and ' +
    'Interval 1 or more; a save with a positive ID merges into the stored task, so its members are optional (see the ' +
    'operation).',
  scheduledTaskExamples,
  mergedTaskRules,
);
export type ScheduledTask = z.infer<typeof ScheduledTask>;

export const ScheduledTaskXml = shape(
  'ScheduledTaskXml',
  scheduledTaskFields,
  'The XML form of ScheduledTask: the same fields without AdaptorDetails.',
  scheduledTaskExamples,
  mergedTaskRules,
);
export type ScheduledTaskXml = z.infer<typeof ScheduledTaskXml>;
