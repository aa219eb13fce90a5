// Platform: a function's environment, named once and read once. Every variable a grant, the table or a stack setting
// gives a function is named here; the grants (grants.ts: the CDK stack and the local stack set what they return) and
// the run-time code (through this module's reader) use these names and no other spelling. A function reads and checks
// all of its variables when it loads (`loadFunctionEnvironment`, called by `httpOperation` and `consumer`), so a
// missing one fails its cold start with the variable's name, as Powertools' commons read their settings once at
// construction; the code that builds a client or a publisher later reads the checked value (`environmentValue`).
import { queueDefinitions, type QueueSendGrant, type ResourceGrant } from '#shared/events/queues';
import { stackSettings, type StackSetting } from './settings';

/** The variables the table and the service grants set (a queue's URL variable is its definition's `urlVariable`). */
export const environmentVariables = {
  /** The table grant (any table action). */
  table: 'TABLE_NAME',
  /** sealSecrets and openSecrets: the secret-fields KMS key's ARN. */
  secretFieldsKey: 'SECRET_FIELDS_KEY_ARN',
  /** readWebhookSecret on AWS: the secret's ARN, read through Secrets Manager. */
  webhookSecretArn: 'WEBHOOK_SECRET_ARN',
  /** readWebhookSecret locally (no Secrets Manager): the secrets' values themselves. */
  webhookSecrets: 'WEBHOOK_SECRETS',
} as const;

/** The environment variables of the manageSchedules grant (read by shared/scheduled-tasks/schedule-sync.ts). */
export const schedulerEnvironment = {
  groupName: 'SCHEDULE_GROUP_NAME',
  targetQueueArn: 'SCHEDULE_TARGET_QUEUE_ARN',
  deadLetterQueueArn: 'SCHEDULE_DEAD_LETTER_QUEUE_ARN',
  executionRoleArn: 'SCHEDULE_ROLE_ARN',
  /** The AWS SDK's service-specific endpoint variable: set locally only, so never required. */
  endpoint: 'AWS_ENDPOINT_URL_SCHEDULER',
} as const;

/**
 * One thing a function needs from its environment: one of `anyOf` set (most have one name; the webhook secret is its
 * ARN on AWS or its values locally), given by `source` (a grant, the table, a stack setting), checked by `problem`.
 */
export interface RequiredVariable {
  readonly anyOf: readonly [string, ...string[]];
  readonly source: string;
  readonly problem?: (value: string) => string | undefined;
}

const one = (name: string, source: string): RequiredVariable => ({ anyOf: [name], source });

/** What each grant requires of the environment: its definition in grants.ts sets exactly these (a unit test checks it). */
export const grantVariables: { readonly [grant in ResourceGrant]: readonly RequiredVariable[] } = {
  ...(Object.fromEntries(queueDefinitions.map((queue): [string, readonly RequiredVariable[]] => [queue.sendGrant, [one(queue.urlVariable, queue.sendGrant)]])) as {
    readonly [grant in QueueSendGrant]: readonly RequiredVariable[];
  }),
  readWebhookSecret: [{ anyOf: [environmentVariables.webhookSecretArn, environmentVariables.webhookSecrets], source: 'readWebhookSecret' }],
  manageSchedules: [schedulerEnvironment.groupName, schedulerEnvironment.targetQueueArn, schedulerEnvironment.deadLetterQueueArn, schedulerEnvironment.executionRoleArn].map(
    (name) => one(name, 'manageSchedules'),
  ),
  sealSecrets: [one(environmentVariables.secretFieldsKey, 'sealSecrets')],
  openSecrets: [one(environmentVariables.secretFieldsKey, 'openSecrets')],
};

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
  ...[...new Set(needs.grants ?? [])].flatMap((grant) => grantVariables[grant]),
  ...(needs.stackSettings ?? []).map((setting) => ({
    anyOf: [stackSettings[setting].variable] as [string],
    source: `the ${setting} stack setting`,
    problem: stackSettings[setting].problem,
  })),
];

/** A function's environment lacks a variable it needs, or holds a bad value: its cold start fails with this. */
export class FunctionEnvironmentError extends Error {
  override readonly name = 'FunctionEnvironmentError';
}

type Environment = Readonly<Record<string, string | undefined>>;

/** Reads and checks the variables; throws naming the first missing or bad one and where it should come from. */
export const readFunctionEnvironment = (required: readonly RequiredVariable[], env: Environment = process.env): Record<string, string> => {
  const values: Record<string, string> = {};
  for (const variable of required) {
    const present = variable.anyOf.filter((name) => (env[name] ?? '') !== '');
    if (present.length === 0) {
      throw new FunctionEnvironmentError(`Environment variable ${variable.anyOf.join(' or ')} must be set (given by ${variable.source})`);
    }
    for (const name of present) {
      const value = env[name] as string;
      const problem = variable.problem?.(value);
      if (problem !== undefined) throw new FunctionEnvironmentError(`Environment variable ${name} ${problem}; got "${value}"`);
      values[name] = value;
    }
  }
  return values;
};

let loaded: Record<string, string> = {};

/**
 * Reads and checks every variable the function needs, once, when it loads (`httpOperation`, `consumer`): a missing
 * one fails the cold start with its name. The values are kept for `environmentValue`.
 */
export const loadFunctionEnvironment = (needs: FunctionNeeds, env: Environment = process.env): void => {
  loaded = { ...loaded, ...readFunctionEnvironment(requiredVariablesOf(needs), env) };
};

/**
 * A variable's checked value: the one loaded at start-up, else read now (code a test runs without a function
 * around it) and refused the same way when missing.
 */
export const environmentValue = (name: string, env: Environment = process.env): string =>
  loaded[name] ?? readFunctionEnvironment([one(name, 'the function\'s grants')], env)[name] as string;

/** An optional variable: its value, or undefined when unset or empty. */
export const optionalEnvironmentValue = (name: string, env: Environment = process.env): string | undefined => loaded[name] ?? (env[name] || undefined);
