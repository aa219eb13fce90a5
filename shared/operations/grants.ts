// Operations manifest: what each grant gives a function, defined once. A grant is two things that must never
// drift apart: the IAM statements it allows and the environment variables it sets. The CDK grant helpers
// (infra/constructs/grant-*.ts) and the local stack (function environments and the IAM edge that enforces the
// statements, infra/local/) both derive from this module, so a function locally holds exactly the rights and the
// settings its deployed role and configuration give it.
import { tableDefinition, type IndexName, type TableAction } from '#shared/data/table';
import { queueDefinitions, type QueueDefinition, type QueueName, type QueueSendGrant, type ResourceGrant } from '#shared/events/queues';
import { environmentVariables, serviceName } from '#shared/environment';
import { schedulerEnvironment } from './environment';

export { serviceName } from '#shared/environment';

/** The settings every function gets besides its grants, on AWS (OperationFunction) and locally. */
export const commonFunctionEnvironment = (logLevel: string = 'INFO'): Record<string, string> => ({
  [environmentVariables.serviceName]: serviceName,
  [environmentVariables.logLevel]: logLevel,
});

/**
 * One Allow statement of an identity policy. Actions are exact (no wildcard). Resources are exact ARNs, except the
 * schedules of one schedule group (`.../schedule/<group>/*`): schedules are created at run time, one per task, so
 * their ARNs cannot be listed. Conditions are IAM condition blocks (`{ StringEquals: { 'iam:PassedToService': ... } }`).
 */
export interface PolicyStatement {
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly conditions?: PolicyConditions;
}

/** `{ <operator>: { <condition key>: value or values } }`, as in an IAM policy document. */
export type PolicyConditions = Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;

/**
 * Names and ARNs of the resources grants refer to: CloudFormation tokens in the CDK app, concrete values locally.
 * The webhook secret's values may reach a function directly (`localValues`) where no Secrets Manager runs: a handler
 * run in-process by an integration test or the benchmark, and `sam local` (infra/local/sam-env.ts). The local stack
 * gives its functions the ARN: its Secrets Manager (infra/local/secrets-manager.ts) holds the secret.
 */
export interface GrantResources extends OtherResources {
  readonly table: TableResource;
}

export interface TableResource {
  readonly name: string;
  readonly arn: string;
}

/** A queue as grants see it: where senders send (its URL) and what IAM names (its ARN and its DLQ's). */
export interface QueueResource {
  readonly url: string;
  readonly arn: string;
  readonly deadLetterQueueArn: string;
}

/** The resources of the grants other than the table's. */
export interface OtherResources {
  /** Every queue of shared/events/queues.ts, by name. */
  readonly queues: { readonly [name in QueueName]: QueueResource };
  readonly webhookSecret: { readonly arn: string; readonly localValues?: string };
  /** The KMS key of secret fields (shared/crypto/): on AWS and locally (the local stack's KMS holds it) alike. */
  readonly secretFieldsKey: { readonly arn: string };
  /** EventBridge Scheduler: the stage's schedule group and the role schedules send with. */
  readonly scheduler: SchedulerResource;
}

export interface SchedulerResource {
  readonly groupName: string;
  /** The ARN pattern of the group's schedules: `arn:<partition>:scheduler:<region>:<account>:schedule/<group>/*`. */
  readonly schedulesArn: string;
  /** The execution role every schedule's target names (sqs:SendMessage on the task-runs queue and its DLQ). */
  readonly executionRoleArn: string;
  /** Locally, the endpoint of the scheduler emulation (through the IAM edge); on AWS the SDK's default. */
  readonly endpoint?: string;
}

/** What a function grant produces: its statements and its environment. */
export interface Granted {
  readonly statements: readonly PolicyStatement[];
  readonly environment: Readonly<Record<string, string>>;
}

export type GrantDefinition = (resources: OtherResources) => Granted;

/**
 * Table rights of a function: the actions, and the indexes (by name) it reads. DynamoDB authorises a read through
 * a GSI against the index's ARN, so each index is named rather than `<table>/index/*`: a GSI added later is
 * unreadable until an operation declares it.
 *
 * Transactions need no action of their own: each `TransactItems` entry is authorised as its underlying operation
 * (`Put` -> PutItem, `Update` -> UpdateItem, `Delete` -> DeleteItem, `ConditionCheck` -> ConditionCheckItem,
 * transactional `Get` -> GetItem), AWS, "Using IAM with DynamoDB transactions".
 */
export interface TableGrant {
  readonly actions: readonly TableAction[];
  readonly indexes?: readonly IndexName[];
}

export type { ResourceGrant } from '#shared/events/queues';

export { schedulerEnvironment } from './environment';

/**
 * What a task schedule's execution role may do: send the run to the task-runs queue, and a dead-letter event to its
 * DLQ when delivery keeps failing. The data stack's role and the local scheduler emulation hold exactly these.
 */
export const schedulerExecutionStatements = (taskRuns: Pick<QueueResource, 'arn' | 'deadLetterQueueArn'>): PolicyStatement[] => [
  { actions: ['sqs:SendMessage'], resources: [taskRuns.arn, taskRuns.deadLetterQueueArn] },
];

/** The service principal a schedule's execution role is passed to. */
export const schedulerServicePrincipal = 'scheduler.amazonaws.com';

/** The schedule actions a function managing schedules needs; nothing lists, tags or touches groups. */
export const scheduleActions = ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule', 'scheduler:UpdateSchedule'] as const;

/** The encryption-context keys every secret-field data key carries (shared/crypto/secret-fields.ts). */
export const secretFieldsContextKeys = ['tenant', 'task', 'field'] as const;

/**
 * What sealing a secret field asks of KMS (shared/crypto/secret-cipher.ts): Encrypt for a secret of up to 4 KiB,
 * GenerateDataKey for the Encryption SDK's message of a longer one. Neither can decrypt anything.
 */
export const sealSecretActions = ['kms:Encrypt', 'kms:GenerateDataKey'] as const;
/** What opening one asks: Decrypt, of KMS's blob or of the message's data key. */
export const openSecretActions = ['kms:Decrypt'] as const;

/**
 * The conditions every use of the secret-fields key carries: the request's encryption context has exactly the
 * keys tenant, task and field (ForAllValues alone would accept an empty context, hence the Null checks).
 */
export const secretFieldsKeyConditions: PolicyConditions = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...secretFieldsContextKeys] },
  Null: Object.fromEntries(secretFieldsContextKeys.map((key) => [`kms:EncryptionContext:${key}`, 'false'])),
};


/** Of the table actions, those DynamoDB authorises against an index ARN when the request names an index. */
export const indexActions: ReadonlySet<TableAction> = new Set<TableAction>(['dynamodb:Query']);

export const indexArn = (tableArn: string, indexName: string): string => `${tableArn}/index/${indexName}`;

/** The table grant: its actions on the table, the index actions on each named index, and the table's name (`environmentVariables.table`). */
export const tableGrant = (grant: TableGrant, table: TableResource): Granted => {
  const actions = [...new Set(grant.actions)].sort();
  const indexes = [...new Set(grant.indexes ?? [])];
  const onIndexes = actions.filter((action) => indexActions.has(action));
  if (indexes.length > 0 && onIndexes.length === 0) {
    throw new Error(`A table grant names indexes (${indexes.join(', ')}) without an action that reads an index`);
  }
  const declared = new Set<string>(tableDefinition.globalSecondaryIndexes.map((index) => index.indexName));
  for (const index of indexes) if (!declared.has(index)) throw new Error(`${index} is not an index of shared/data/table.ts`);
  if (actions.length === 0) return { statements: [], environment: {} };
  return {
    statements: [
      { actions, resources: [table.arn] },
      ...(indexes.length > 0 ? [{ actions: onIndexes, resources: indexes.map((index) => indexArn(table.arn, index)) }] : []),
    ],
    environment: { [environmentVariables.table]: table.name },
  };
};

/** SendMessage only on one queue of queues.ts, with its URL: the sender never looks the queue up or reads it. */
const sendTo =
  (definition: Pick<QueueDefinition, 'urlVariable'> & { readonly name: QueueName }): GrantDefinition =>
  ({ queues }) => ({
    statements: [{ actions: ['sqs:SendMessage'], resources: [queues[definition.name].arn] }],
    environment: { [definition.urlVariable]: queues[definition.name].url },
  });

/** Every queue's send grant (`send<Queue>`, derived by defineQueue): which functions hold one is in their manifest entry or consumer definition. */
const sendGrants = Object.fromEntries(queueDefinitions.map((definition) => [definition.sendGrant, sendTo(definition)])) as {
  readonly [grant in QueueSendGrant]: GrantDefinition;
};

/** The secret-fields key's variable: its ARN (the local stack's KMS holds the same key locally). */
const secretFieldsKeyEnvironment = (key: OtherResources['secretFieldsKey']): Record<string, string> => ({ [environmentVariables.secretFieldsKey]: key.arn });

/**
 * One entry per grant name: every queue's send grant, then the service grants (`ServiceGrant`,
 * shared/events/resource-grants.ts): adding a name there without its definition here fails to compile.
 */
export const resourceGrants: { readonly [grant in ResourceGrant]: GrantDefinition } = {
  ...sendGrants,
  /** Read the webhook signing secret's value (GetSecretValue only: nothing describes it). */
  readWebhookSecret: ({ webhookSecret }) => ({
    statements: [{ actions: ['secretsmanager:GetSecretValue'], resources: [webhookSecret.arn] }],
    // On AWS and in the local stack the ARN the function reads them from; without a Secrets Manager the values themselves.
    environment: Object.fromEntries([
      webhookSecret.localValues === undefined
        ? [environmentVariables.webhookSecretArn, webhookSecret.arn]
        : [environmentVariables.webhookSecrets, webhookSecret.localValues],
    ]),
  }),
  /**
   * Create, read, replace and delete the schedules of the stage's group (and nothing else: no group, no list, no
   * tags), and pass the schedules' execution role to EventBridge Scheduler only.
   */
  manageSchedules: ({ scheduler, queues }) => ({
    statements: [
      { actions: [...scheduleActions], resources: [scheduler.schedulesArn] },
      {
        actions: ['iam:PassRole'],
        resources: [scheduler.executionRoleArn],
        conditions: { StringEquals: { 'iam:PassedToService': schedulerServicePrincipal } },
      },
    ],
    environment: {
      [schedulerEnvironment.groupName]: scheduler.groupName,
      [schedulerEnvironment.targetQueueArn]: queues.taskRuns.arn,
      [schedulerEnvironment.deadLetterQueueArn]: queues.taskRuns.deadLetterQueueArn,
      [schedulerEnvironment.executionRoleArn]: scheduler.executionRoleArn,
      ...(scheduler.endpoint !== undefined ? { [schedulerEnvironment.endpoint]: scheduler.endpoint } : {}),
    },
  }),
  /** Seal secret fields under the secret-fields encryption context (sealSecretActions). */
  sealSecrets: ({ secretFieldsKey }) => ({
    statements: [{ actions: [...sealSecretActions], resources: [secretFieldsKey.arn], conditions: secretFieldsKeyConditions }],
    environment: secretFieldsKeyEnvironment(secretFieldsKey),
  }),
  /** Open secret fields under the same context (openSecretActions). */
  openSecrets: ({ secretFieldsKey }) => ({
    statements: [{ actions: [...openSecretActions], resources: [secretFieldsKey.arn], conditions: secretFieldsKeyConditions }],
    environment: secretFieldsKeyEnvironment(secretFieldsKey),
  }),
};

/** What a function's manifest entry (or queue consumer definition) says it may use. */
export interface FunctionGrants {
  readonly tableAccess: readonly TableAction[];
  readonly tableIndexes?: readonly IndexName[];
  readonly grants?: readonly ResourceGrant[];
}

/** Every statement and variable a function's grants give it, in one place for the CDK app and the local stack. */
export const grantsOf = (fn: FunctionGrants, resources: GrantResources): Granted => {
  const parts = [
    tableGrant({ actions: fn.tableAccess, indexes: fn.tableIndexes ?? [] }, resources.table),
    ...[...new Set(fn.grants ?? [])].map((grant) => resourceGrants[grant](resources)),
  ];
  return {
    statements: parts.flatMap((part) => part.statements),
    environment: Object.assign({}, ...parts.map((part) => part.environment)) as Record<string, string>,
  };
};
