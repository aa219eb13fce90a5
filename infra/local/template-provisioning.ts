// Local stack: what provisioning creates, from the data stack's template: the table's keys, global secondary
// indexes and TTL attribute (AWS::DynamoDB::Table), and each queue's visibility timeout, retention, maximum message
// size and redrive policy, with its dead-letter queue's retention (AWS::SQS::Queue). Local names stay the local
// stack's (shared/events/queues.ts `localQueueName`, shared/data/table.ts `localTableName`): the template leaves
// the table's name to CloudFormation and names queues after the stack.
import type { QueueSettings, TableDefinition } from './provision';
import { resourcesOfType, type AssemblyStack, type CfnResource } from './template';

const keyOf = (schema: unknown, type: 'HASH' | 'RANGE', where: string): string => {
  const key = (Array.isArray(schema) ? schema : []).find((element: { KeyType?: unknown }) => element.KeyType === type) as { AttributeName?: unknown } | undefined;
  if (typeof key?.AttributeName !== 'string') throw new Error(`${where}: no ${type} key`);
  return key.AttributeName;
};

/** The one table of the data stack, as provisioning takes it. */
export const tableFromTemplate = (stack: AssemblyStack): TableDefinition => {
  const tables = resourcesOfType(stack.template, 'AWS::DynamoDB::Table');
  if (tables.length !== 1) throw new Error(`${stack.stackName} declares ${tables.length} tables; the local stack runs exactly one`);
  const [logicalId, table] = tables[0]!;
  const properties = table.Properties ?? {};
  const ttl = properties.TimeToLiveSpecification as { AttributeName?: unknown; Enabled?: unknown } | undefined;
  const indexes = (Array.isArray(properties.GlobalSecondaryIndexes) ? properties.GlobalSecondaryIndexes : []) as Array<{ IndexName: string; KeySchema: unknown }>;
  return {
    partitionKey: keyOf(properties.KeySchema, 'HASH', logicalId),
    sortKey: keyOf(properties.KeySchema, 'RANGE', logicalId),
    ...(ttl?.Enabled === true && typeof ttl.AttributeName === 'string' ? { timeToLiveAttribute: ttl.AttributeName } : {}),
    globalSecondaryIndexes: indexes.map((index) => ({
      indexName: index.IndexName,
      partitionKey: keyOf(index.KeySchema, 'HASH', `${logicalId} ${index.IndexName}`),
      sortKey: keyOf(index.KeySchema, 'RANGE', `${logicalId} ${index.IndexName}`),
      serves: `${stack.stackName} ${logicalId}`,
    })),
  };
};

/** A literal number of the template, or CloudFormation's default when the property is absent. */
const numberOf = (resource: CfnResource | undefined, property: string, fallback: number, where: string): number => {
  const value = resource?.Properties?.[property];
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number)) throw new Error(`${where}.${property} is not a number the local stack can use: ${JSON.stringify(value)}`);
  return number;
};

/**
 * A queue's settings from the template (the queue whose QueueName is `<stack>-<logicalName>` and the dead-letter
 * queue its RedrivePolicy names), under the local names of `local`.
 */
export const queueSettingsFromTemplate = (
  stack: AssemblyStack,
  local: Pick<QueueSettings, 'localQueueName'> & { readonly logicalName: string; readonly deadLetterQueue: { readonly localQueueName: string } },
): QueueSettings => {
  const found = resourcesOfType(stack.template, 'AWS::SQS::Queue').find(([, queue]) => queue.Properties?.QueueName === `${stack.stackName}-${local.logicalName}`);
  if (!found) throw new Error(`${stack.stackName} declares no queue ${stack.stackName}-${local.logicalName}`);
  const [logicalId, queue] = found;
  const redrive = queue.Properties?.RedrivePolicy as { deadLetterTargetArn?: { 'Fn::GetAtt'?: unknown[] }; maxReceiveCount?: unknown } | undefined;
  const deadLetterId = redrive?.deadLetterTargetArn?.['Fn::GetAtt']?.[0];
  if (typeof deadLetterId !== 'string') throw new Error(`${stack.stackName} ${logicalId} has no dead-letter queue`);
  const deadLetter = stack.template.Resources[deadLetterId];
  const where = `${stack.stackName} ${logicalId}`;
  return {
    localQueueName: local.localQueueName,
    visibilityTimeoutSeconds: numberOf(queue, 'VisibilityTimeout', 30, where),
    retentionPeriodSeconds: numberOf(queue, 'MessageRetentionPeriod', 345_600, where),
    maximumMessageBytes: numberOf(queue, 'MaximumMessageSize', 262_144, where),
    deadLetterQueue: {
      localQueueName: local.deadLetterQueue.localQueueName,
      maxReceiveCount: Number(redrive?.maxReceiveCount),
      retentionPeriodSeconds: numberOf(deadLetter, 'MessageRetentionPeriod', 345_600, `${stack.stackName} ${deadLetterId}`),
    },
  };
};
