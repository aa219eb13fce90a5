// Infra, stateful: the resources that hold data (the single table, the document-events queues and the webhook's
// signing secret). They live in their own stack so that deploying new code, which only touches the API stack, can
// never replace or drop them, and so that a redeploy never generates a new signing secret.
import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../shared/data/table';
import { documentEventsQueue, paymentsQueue } from '../../shared/events/queues';

/** A queue definition of shared/events/queues.ts: each gets a queue and a DLQ made the same way. */
type QueueDefinition = typeof documentEventsQueue | typeof paymentsQueue;

export interface DataStackProps extends StackProps {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
}

/**
 * What the webhook's generated secret looks like: `{"current":"<48 letters and digits>"}`. Never change it on a
 * deployed stack: CloudFormation would generate a new value and the provider's signatures would stop matching.
 */
export const webhookSecretGeneration = {
  secretStringTemplate: '{}',
  generateStringKey: 'current',
  excludePunctuation: true,
  passwordLength: 48,
} as const;

export class DataStack extends Stack {
  readonly table: ITable;
  /** The webhook sends verified events here; the consumer applies them to the table. */
  readonly documentEventsQueue: Queue;
  /** Events the consumer failed maxReceiveCount times; alarmed, kept 14 days, redriven by hand. */
  readonly documentEventsDeadLetterQueue: Queue;
  /** Queued refunds wait here for the payments consumer. */
  readonly paymentsQueue: Queue;
  /** Queued refunds that kept failing (each already marked Failed, its reservation released); alarmed. */
  readonly paymentsDeadLetterQueue: Queue;
  /** The HMAC key(s) shared with the document-analysis provider. */
  readonly webhookSecret: Secret;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);

    // `Table` (AWS::DynamoDB::Table) rather than TableV2 (a single-replica GlobalTable): the service runs in one
    // region, the template stays plain, and cdk-nag's PITR rule inspects this resource type (not GlobalTable).
    // No tableName: CloudFormation names it, functions learn it from TABLE_NAME.
    const table = new Table(this, tableDefinition.logicalName, {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      // Traffic is spiky and small; on-demand needs no capacity planning and costs nothing when idle.
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    this.table = table;

    const queues = this.createQueues(documentEventsQueue, props.removalPolicy);
    this.documentEventsQueue = queues.queue;
    this.documentEventsDeadLetterQueue = queues.deadLetterQueue;
    const payments = this.createQueues(paymentsQueue, props.removalPolicy);
    this.paymentsQueue = payments.queue;
    this.paymentsDeadLetterQueue = payments.deadLetterQueue;
    this.webhookSecret = this.createWebhookSecret(props.removalPolicy);

    new CfnOutput(this, 'WebhookSecretArn', {
      description: 'Signing secret shared with the document-analysis provider (read and rotate: infra/README.md)',
      value: this.webhookSecret.secretArn,
    });
  }

  private createQueues(definition: QueueDefinition, removalPolicy: RemovalPolicy): { queue: Queue; deadLetterQueue: Queue } {
    const { deadLetterQueue, consumer } = definition;
    // AWS's rule for Lambda event sources: a message must stay invisible long enough for Lambda to retry a
    // throttled batch. queues.ts derives it that way; refuse a future edit that breaks it.
    if (definition.visibilityTimeoutSeconds < 6 * consumer.timeoutSeconds) {
      throw new Error(`${definition.logicalName}: visibilityTimeoutSeconds must be at least 6 x consumer.timeoutSeconds`);
    }

    // The main queue's name is fixed because the DLQ's redrive-allow policy must name it: a Ref to the main queue
    // would be a cycle (the main queue's redrive policy already refers to the DLQ). The stack name keeps it unique
    // per account and region, like the stack itself.
    const queueName = `${this.stackName}-${definition.logicalName}`;
    const queueArn = this.formatArn({ service: 'sqs', resource: queueName });

    // Both queues: SQS-managed SSE (SSE-SQS) and TLS-only access. SSE-SQS encrypts every message at rest with keys
    // SQS owns and rotates, at no cost and without KMS calls on each send and receive; a customer-managed KMS key
    // would add a key policy, kms:GenerateDataKey/Decrypt grants to the senders and consumers, and per-request KMS
    // charges, for messages that carry the provider's already-verified document events or a refund's tenant and ID
    // (no credentials, no card data).
    // The DLQ has no DLQ of its own: that would only hide the failures it exists to keep. Messages stay for
    // 14 days (the SQS maximum, counted from the original send) and the DLQ alarm says when to look. cdk-nag's SQS3
    // sees from the main queue's redrive policy (same stack) that this queue is a DLQ: nothing to acknowledge.
    const deadLetters = new Queue(this, deadLetterQueue.logicalName, {
      retentionPeriod: Duration.seconds(deadLetterQueue.retentionPeriodSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Only its own queue may dead-letter into it, so a misconfigured queue elsewhere cannot bury its failures
      // among ours (and our DLQ alarm would not be about us).
      redriveAllowPolicy: {
        redrivePermission: RedrivePermission.BY_QUEUE,
        sourceQueues: [Queue.fromQueueArn(this, `${definition.logicalName}SourceArn`, queueArn)],
      },
      removalPolicy,
    });
    const queue = new Queue(this, definition.logicalName, {
      queueName,
      visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(definition.retentionPeriodSeconds),
      maxMessageSizeBytes: definition.maximumMessageBytes,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: deadLetterQueue.maxReceiveCount },
      removalPolicy,
    });
    new CfnOutput(this, `${definition.logicalName}QueueArn`, {
      description: 'Destination of a DLQ redrive (aws sqs start-message-move-task --destination-arn)',
      value: queue.queueArn,
    });
    new CfnOutput(this, `${definition.logicalName}DlqArn`, {
      description: 'Source of a DLQ redrive (aws sqs start-message-move-task --source-arn)',
      value: deadLetters.queueArn,
    });
    return { queue, deadLetterQueue: deadLetters };
  }

  private createWebhookSecret(removalPolicy: RemovalPolicy): Secret {
    // Generated once, when the stack creates it: CloudFormation does not regenerate it on later deploys, and it
    // lives in this stack so a redeploy or replacement of the API stack can never change it under the provider.
    const secret = new Secret(this, 'WebhookSigningSecret', {
      description:
        'HMAC signing secret(s) of the document-analysis provider webhook: JSON object, every string member ' +
        '(16+ characters) is accepted; "current" is the one given to the provider (rotation: infra/README.md)',
      generateSecretString: { ...webhookSecretGeneration },
      removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The value is shared with an external party (the document-analysis provider), which must be given the new ' +
        'secret out of band; a rotation Lambda cannot do that. Rotation is a coordinated manual procedure with ' +
        'overlapping secrets ("current" plus "previous", both accepted by the signature check; infra/README.md), so ' +
        'no event is refused while the provider switches.',
    });
    return secret;
  }
}
