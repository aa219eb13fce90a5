// Local stack: the one translation of the shared table and queue definitions into DynamoDB and SQS API calls.
// Idempotent, so a restart over persisted data (or a second test run against the same servers) is a no-op.
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueNameExists,
  SetQueueAttributesCommand,
  type CreateQueueCommandInput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { IndexDefinition } from '#shared/data/table';

/** The shape of shared/data/table.ts's `tableDefinition`, so tests can provision variants of it. */
export interface TableDefinition {
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly timeToLiveAttribute?: string;
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
}

/** What provisioning needs of a queue of shared/events/queues.ts (tests provision faster variants of them). */
export interface QueueSettings {
  readonly localQueueName: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionPeriodSeconds: number;
  readonly maximumMessageBytes: number;
  readonly deadLetterQueue: {
    readonly localQueueName: string;
    readonly maxReceiveCount: number;
    readonly retentionPeriodSeconds: number;
  };
}

/** The shape of a consumed queue of shared/events/queues.ts: its settings and its event source mapping's. */
export interface QueueDefinition extends QueueSettings {
  readonly eventSource: {
    readonly batchSize: number;
    readonly maxBatchingWindowSeconds: number;
    readonly maximumConcurrency: number;
    readonly reportBatchItemFailures: boolean;
  };
}

const keySchema = (partitionKey: string, sortKey: string): KeySchemaElement[] => [
  { AttributeName: partitionKey, KeyType: 'HASH' },
  { AttributeName: sortKey, KeyType: 'RANGE' },
];

// The CDK default projection; the stack does not narrow it.
const globalSecondaryIndex = (index: IndexDefinition): GlobalSecondaryIndex => ({
  IndexName: index.indexName,
  KeySchema: keySchema(index.partitionKey, index.sortKey),
  Projection: { ProjectionType: 'ALL' },
});

const keyAttributeNames = (definition: TableDefinition): string[] => [
  ...new Set([
    definition.partitionKey,
    definition.sortKey,
    ...definition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ]),
];

export const createTableInput = (definition: TableDefinition, tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST',
  // Every key attribute is a string (composed values such as `T#42#LOC#0000000007`).
  AttributeDefinitions: keyAttributeNames(definition).map((name) => ({ AttributeName: name, AttributeType: 'S' })),
  KeySchema: keySchema(definition.partitionKey, definition.sortKey),
  ...(definition.globalSecondaryIndexes.length > 0
    ? { GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map(globalSecondaryIndex) }
    : {}),
});

/** Creates the table, or adds the indexes a persisted table lacks, then turns TTL on. */
export const ensureTable = async (dynamodb: DynamoDBClient, definition: TableDefinition, tableName: string): Promise<void> => {
  const input = createTableInput(definition, tableName);
  const existing = await dynamodb
    .send(new DescribeTableCommand({ TableName: tableName }))
    .then((described) => described.Table)
    .catch((error: unknown) => {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    });
  if (!existing) {
    await dynamodb.send(new CreateTableCommand(input));
  } else {
    const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    for (const index of input.GlobalSecondaryIndexes ?? []) {
      if (present.has(index.IndexName)) continue;
      await dynamodb.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: input.AttributeDefinitions,
          GlobalSecondaryIndexUpdates: [{ Create: index }],
        }),
      );
    }
  }
  if (definition.timeToLiveAttribute) {
    const ttl = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
      await dynamodb.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
  }
};

export const deadLetterQueueInput = (definition: QueueSettings): CreateQueueCommandInput => ({
  QueueName: definition.deadLetterQueue.localQueueName,
  Attributes: { MessageRetentionPeriod: String(definition.deadLetterQueue.retentionPeriodSeconds) },
});

export const queueInput = (definition: QueueSettings, deadLetterQueueArn: string): CreateQueueCommandInput => ({
  QueueName: definition.localQueueName,
  Attributes: {
    VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(definition.retentionPeriodSeconds),
    MaximumMessageSize: String(definition.maximumMessageBytes),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: deadLetterQueueArn,
      maxReceiveCount: definition.deadLetterQueue.maxReceiveCount,
    }),
  },
});

export interface ProvisionedQueue {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly deadLetterQueueUrl: string;
  readonly deadLetterQueueArn: string;
}

const ensureQueue = async (sqs: SQSClient, input: CreateQueueCommandInput): Promise<{ url: string; arn: string }> => {
  let url: string | undefined;
  try {
    ({ QueueUrl: url } = await sqs.send(new CreateQueueCommand(input)));
  } catch (error) {
    // Same name, other attributes: the definition changed since the queue was made. Bring it in line.
    if (!(error instanceof QueueNameExists)) throw error;
    ({ QueueUrl: url } = await sqs.send(new GetQueueUrlCommand({ QueueName: input.QueueName })));
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: input.Attributes }));
  }
  if (!url) throw new Error(`SQS returned no URL for ${input.QueueName}`);
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  if (!Attributes?.QueueArn) throw new Error(`SQS returned no ARN for ${input.QueueName}`);
  return { url, arn: Attributes.QueueArn };
};

/** Creates the dead-letter queue, then the queue that redrives to it. */
export const ensureQueues = async (sqs: SQSClient, definition: QueueSettings): Promise<ProvisionedQueue> => {
  const deadLetter = await ensureQueue(sqs, deadLetterQueueInput(definition));
  const queue = await ensureQueue(sqs, queueInput(definition, deadLetter.arn));
  return { queueUrl: queue.url, queueArn: queue.arn, deadLetterQueueUrl: deadLetter.url, deadLetterQueueArn: deadLetter.arn };
};
