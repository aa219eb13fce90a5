// Platform: what each function needs of its environment, derived from its grants. Each grant declares the variables
// it sets (`grantVariables`; its definition in grants.ts sets exactly these: the CDK stack and the local stack set
// what it returns), the table grant its name, a stack setting its variable; a function reads and checks all of its
// variables when it loads (`loadFunctionEnvironment`, called by `httpOperation` and `consumer`), so a missing one
// fails its cold start with the variable's name, as Powertools' commons read their settings once at construction.
// The names and the reader are in shared/environment.ts.
import { environmentVariables, loadVariables, requiredVariable, type RequiredVariable } from '#shared/environment';
import { queueDefinitions, queueUrlVariableOf, type QueueSendGrant, type ResourceGrant } from '#shared/events/queues';
import type { ServiceGrant } from '#shared/events/resource-grants';
import { stackSettings, type StackSetting } from './settings';

/** The environment variables of the manageSchedules grant (read by shared/scheduled-tasks/schedule-sync.ts). */
export const schedulerEnvironment = {
  groupName: 'SCHEDULE_GROUP_NAME',
  targetQueueArn: 'SCHEDULE_TARGET_QUEUE_ARN',
  deadLetterQueueArn: 'SCHEDULE_DEAD_LETTER_QUEUE_ARN',
  executionRoleArn: 'SCHEDULE_ROLE_ARN',
  /** The AWS SDK's service-specific endpoint variable: set locally only, so never required. */
  endpoint: 'AWS_ENDPOINT_URL_SCHEDULER',
} as const;

const one = requiredVariable;

/** What each service grant requires of the environment (a queue's send grant: its URL, `variablesOfGrant`). */
const serviceGrantVariables: { readonly [grant in ServiceGrant]: readonly RequiredVariable[] } = {
  readWebhookSecret: [{ anyOf: [environmentVariables.webhookSecretArn, environmentVariables.webhookSecrets], source: 'readWebhookSecret' }],
  manageSchedules: [schedulerEnvironment.groupName, schedulerEnvironment.targetQueueArn, schedulerEnvironment.deadLetterQueueArn, schedulerEnvironment.executionRoleArn].map(
    (name) => one(name, 'manageSchedules'),
  ),
  sealSecrets: [one(environmentVariables.secretFieldsKey, 'sealSecrets')],
  openSecrets: [one(environmentVariables.secretFieldsKey, 'openSecrets')],
};

/**
 * What one grant requires of the environment: a service grant its own variables, a queue's send grant its queue's
 * URL, named from the grant as `defineQueue` names it (`queueUrlVariableOf`). No queue definition is read here: each
 * carries its message's validator, and this module is in every function's bundle.
 */
const variablesOfGrant = (grant: ResourceGrant): readonly RequiredVariable[] =>
  Object.hasOwn(serviceGrantVariables, grant) ? serviceGrantVariables[grant as ServiceGrant] : [one(queueUrlVariableOf(grant as QueueSendGrant), grant)];

/**
 * What each grant requires of the environment: its definition in grants.ts sets exactly these (a unit test checks it).
 * Built only where it is read (tests, the stacks): a function's bundle drops it, and with it the queue definitions.
 */
export const grantVariables: { readonly [grant in ResourceGrant]: readonly RequiredVariable[] } = /* @__PURE__ */ (() =>
  Object.fromEntries(
    [...queueDefinitions.map((queue) => queue.sendGrant), ...(Object.keys(serviceGrantVariables) as ServiceGrant[])].map((grant) => [grant, variablesOfGrant(grant)]),
  ) as { readonly [grant in ResourceGrant]: readonly RequiredVariable[] })();

/** What a function's manifest entry (or queue consumer definition) says it uses, as far as its environment goes. */
export interface FunctionNeeds {
  readonly tableAccess?: readonly string[];
  readonly grants?: readonly ResourceGrant[];
  readonly stackSettings?: readonly StackSetting[];
}

/** The needs of a manifest entry or a consumer definition, and nothing else of it. */
export const needsOf = ({ tableAccess, grants, stackSettings: settings }: FunctionNeeds): FunctionNeeds => ({
  ...(tableAccess && tableAccess.length > 0 ? { tableAccess } : {}),
  ...(grants && grants.length > 0 ? { grants } : {}),
  ...(settings && settings.length > 0 ? { stackSettings: settings } : {}),
});

/** Every variable a function with these needs must find set. */
export const requiredVariablesOf = (needs: FunctionNeeds): RequiredVariable[] => [
  ...((needs.tableAccess ?? []).length > 0 ? [one(environmentVariables.table, 'the table grant')] : []),
  ...[...new Set(needs.grants ?? [])].flatMap(variablesOfGrant),
  ...(needs.stackSettings ?? []).map((setting) => ({
    anyOf: [stackSettings[setting].variable] as [string],
    source: `the ${setting} stack setting`,
    problem: stackSettings[setting].problem,
  })),
];

/**
 * Reads and checks every variable the function needs, once, when it loads (`httpOperation`, `consumer`): a missing
 * one fails the cold start with its name. The values are kept for `environmentValue` (shared/environment.ts).
 */
export const loadFunctionEnvironment = (needs: FunctionNeeds, env: Readonly<Record<string, string | undefined>> = process.env): void =>
  loadVariables(requiredVariablesOf(needs), env);
