// Operations manifest: what each grant gives a function, defined once. A grant is two things that must never
// drift apart: the IAM statements it allows and the environment variables it sets. The CDK grant helpers
// (infra/constructs/grant-*.ts) and the local stack (function environments and the IAM edge that enforces the
// statements, infra/local/) both derive from this module, so a function locally holds exactly the rights and the
// settings its deployed role and configuration give it.
import { tableDefinition, type IndexName, type TableAction } from '../data/table';
import { paymentsQueueUrlVariable } from '../events/queues';

/** The service name every function logs under (Powertools), on AWS and locally. */
export const serviceName = 'business-platform-api';

/** The settings every function gets besides its grants, on AWS (OperationFunction) and locally. */
export const commonFunctionEnvironment = (logLevel: string = 'INFO'): Record<string, string> => ({
  POWERTOOLS_SERVICE_NAME: serviceName,
  LOG_LEVEL: logLevel,
});

/** One Allow statement of an identity policy. Actions and resources are exact: no wildcard anywhere. */
export interface PolicyStatement {
  readonly actions: readonly string[];
  readonly resources: readonly string[];
}

/**
 * Names and ARNs of the resources grants refer to: CloudFormation tokens in the CDK app, concrete values locally.
 * Locally there is no Secrets Manager: the webhook secret's values reach the function directly (`localValues`).
 */
export interface GrantResources extends OtherResources {
  readonly table: TableResource;
}

export interface TableResource {
  readonly name: string;
  readonly arn: string;
}

/** The resources of the grants other than the table's. */
export interface OtherResources {
  readonly documentEventsQueue: { readonly url: string; readonly arn: string };
  readonly paymentsQueue: { readonly url: string; readonly arn: string };
  readonly webhookSecret: { readonly arn: string; readonly localValues?: string };
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

/** The grants a function holds besides the table: each name is one entry of `resourceGrants`. */
export type ResourceGrant = 'sendDocumentEvents' | 'sendPayments' | 'readWebhookSecret';

/** Of the table actions, those DynamoDB authorises against an index ARN when the request names an index. */
export const indexActions: ReadonlySet<TableAction> = new Set<TableAction>(['dynamodb:Query']);

export const indexArn = (tableArn: string, indexName: string): string => `${tableArn}/index/${indexName}`;

/** The table grant: its actions on the table, the index actions on each named index, and TABLE_NAME. */
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
    environment: { TABLE_NAME: table.name },
  };
};

/** One entry per grant name: adding a name to `ResourceGrant` without its definition here fails to compile. */
export const resourceGrants: { readonly [grant in ResourceGrant]: GrantDefinition } = {
  /** Send to the document-events queue. SendMessage only: the webhook has the URL and never looks the queue up. */
  /** Send queued refunds to the payments queue (the refund function). SendMessage only, like the webhook's. */
  sendPayments: ({ paymentsQueue }) => ({
    statements: [{ actions: ['sqs:SendMessage'], resources: [paymentsQueue.arn] }],
    environment: { [paymentsQueueUrlVariable]: paymentsQueue.url },
  }),
  sendDocumentEvents: ({ documentEventsQueue }) => ({
    statements: [{ actions: ['sqs:SendMessage'], resources: [documentEventsQueue.arn] }],
    environment: { DOCUMENT_EVENTS_QUEUE_URL: documentEventsQueue.url },
  }),
  /** Read the webhook signing secret's value (GetSecretValue only: nothing describes it). */
  readWebhookSecret: ({ webhookSecret }) => ({
    statements: [{ actions: ['secretsmanager:GetSecretValue'], resources: [webhookSecret.arn] }],
    // Locally (no Secrets Manager) the values themselves; on AWS the ARN the function reads them from.
    environment: Object.fromEntries([
      webhookSecret.localValues === undefined ? ['WEBHOOK_SECRET_ARN', webhookSecret.arn] : ['WEBHOOK_SECRETS', webhookSecret.localValues],
    ]),
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
