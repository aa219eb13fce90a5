// Infra, stateful: the resources that hold data (the single table, every queue of shared/events/queues.ts with its
// DLQ, the webhook's signing secret, the key of secret fields, and the schedule group with the role its schedules
// send with). They live in their own stack so that deploying new code, which only touches the API stack, can never
// replace or drop them, and so that a redeploy never generates a new signing secret or a new key.
import { ArnFormat, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { CfnSchedule, CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableDefinition } from '#shared/data/table';
import { queueDefinitions, type QueueDefinition, type QueueName } from '#shared/events/queues';
import { openSecretActions, schedulerExecutionStatements, schedulerServicePrincipal, sealSecretActions, secretFieldsKeyConditions } from '#shared/operations/grants';
import { reconcilerScheduleRequest } from '#shared/schedules/service-schedules';
import { taskSchedulerRoleId } from './construct-ids';

export interface DataStackProps extends StackProps {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  /** The deploy stage: names the schedule group (one per stage). */
  readonly stage: string;
  /** Name prefix of the function roles (the API stack's name): the key policy lets only them use the key. */
  readonly functionRoleNamePrefix: string;
}

/** A queue of queues.ts as deployed: the queue and its dead-letter queue. */
export interface DeployedQueue {
  readonly definition: QueueDefinition;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
}

/** The schedule group of a stage: every task's schedule lives in it, and the functions' rights end at it. */
export const scheduleGroupNameOf = (stage: string): string => `business-platform-${stage}-tasks`;

/** The key administration actions (CDK's own list for a key's administrators, plus on-demand rotation): no use of the key. */
export const keyAdministrationActions = [
  'kms:CancelKeyDeletion',
  'kms:Create*',
  'kms:Delete*',
  'kms:Describe*',
  'kms:Disable*',
  'kms:Enable*',
  'kms:Get*',
  'kms:List*',
  'kms:Put*',
  'kms:Revoke*',
  'kms:RotateKeyOnDemand',
  'kms:ScheduleKeyDeletion',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:Update*',
];

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
  /** Every queue of shared/events/queues.ts with its dead-letter queue, by name. */
  readonly queues: { readonly [name in QueueName]: DeployedQueue };
  /** The HMAC key(s) shared with the document-analysis provider. */
  readonly webhookSecret: Secret;
  /** The KMS key that wraps the data keys of secret fields (scheduled tasks' adaptor credentials). */
  readonly secretFieldsKey: Key;
  /** The stage's schedule group. */
  readonly scheduleGroup: CfnScheduleGroup;
  readonly scheduleGroupName: string;
  /** The role every task schedule sends to the task-runs queue with. */
  readonly schedulerRole: Role;

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

    this.queues = Object.fromEntries(
      queueDefinitions.map((definition: QueueDefinition) => [definition.name, { definition, ...this.createQueues(definition, props.removalPolicy) }]),
    ) as { [name in QueueName]: DeployedQueue };
    this.webhookSecret = this.createWebhookSecret(props.removalPolicy);
    this.secretFieldsKey = this.createSecretFieldsKey(props);
    this.scheduleGroupName = scheduleGroupNameOf(props.stage);
    this.scheduleGroup = new CfnScheduleGroup(this, 'TaskScheduleGroup', { name: this.scheduleGroupName });
    this.scheduleGroup.applyRemovalPolicy(props.removalPolicy);
    this.schedulerRole = this.createSchedulerRole(this.queues.taskRuns);
    this.createReconcilerSchedule(this.queues.scheduleSync);

    new CfnOutput(this, 'WebhookSecretArn', {
      description: 'Signing secret shared with the document-analysis provider (read and rotate: infra/README.md)',
      value: this.webhookSecret.secretArn,
    });
  }

  private createQueues(definition: QueueDefinition, removalPolicy: RemovalPolicy): { queue: Queue; deadLetterQueue: Queue } {
    const { deadLetterQueue, consumer } = definition;
    // AWS's rule for Lambda event sources: a message must stay invisible long enough for Lambda to retry a
    // throttled batch. queues.ts derives it that way; refuse a future edit that breaks it.
    if (consumer && definition.visibilityTimeoutSeconds < 6 * consumer.timeoutSeconds) {
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

  /**
   * The key of secret fields: symmetric, rotated yearly by KMS. Its policy is the only one it has (CDK's default
   * key policy is replaced): the account administers it, and only the API stack's function roles may use it, for
   * what sealing and opening a secret field asks (Encrypt, GenerateDataKey, Decrypt) only, and only with the secret-fields encryption context (tenant, task, field).
   * Those uses are delegated to IAM (principal: the account), so a role also needs its own sealSecrets or
   * openSecrets grant, which repeats the same conditions.
   */
  private createSecretFieldsKey(props: DataStackProps): Key {
    const account = new AccountRootPrincipal();
    return new Key(this, 'SecretFieldsKey', {
      description: 'Wraps the data keys of scheduled-task secret fields (adaptor credentials): envelope encryption',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      // A deleted key makes every stored credential unreadable: the longest waiting period to undo a deletion.
      pendingWindow: Duration.days(30),
      policy: new PolicyDocument({
        statements: [
          new PolicyStatement({
            sid: 'KeyAdministration',
            effect: Effect.ALLOW,
            principals: [account],
            actions: keyAdministrationActions,
            resources: ['*'],
          }),
          new PolicyStatement({
            sid: 'SecretFieldsDataKeys',
            effect: Effect.ALLOW,
            principals: [account],
            actions: [...openSecretActions, ...sealSecretActions],
            resources: ['*'],
            conditions: {
              ...Object.fromEntries(Object.entries(secretFieldsKeyConditions).map(([operator, keys]) => [operator, { ...keys }])),
              ArnLike: {
                'aws:PrincipalArn': this.formatArn({
                  service: 'iam',
                  region: '',
                  resource: 'role',
                  resourceName: `${props.functionRoleNamePrefix}-*`,
                  arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
                }),
              },
            },
          }),
        ],
      }),
    });
  }

  /**
   * The execution role of every task schedule. EventBridge Scheduler assumes it (only on behalf of this account:
   * aws:SourceAccount) to send the run message to the task-runs queue, and a dead-letter event to that queue's DLQ
   * when delivery keeps failing; it can do nothing else. It lives here, not in the API stack, because every stored
   * schedule names its ARN: a replaced role would orphan them all.
   */
  private createSchedulerRole(taskRuns: { queue: Queue; deadLetterQueue: Queue }): Role {
    return this.createScheduleExecutionRole(taskSchedulerRoleId, 'sends task runs to the task-runs queue (dead letters to its DLQ)', taskRuns);
  }

  /** A role EventBridge Scheduler assumes for this account only, to send to one queue and its DLQ (and nothing else). */
  private createScheduleExecutionRole(id: string, does: string, target: { queue: Queue; deadLetterQueue: Queue }): Role {
    const role = new Role(this, id, {
      description: `Assumed by EventBridge Scheduler: ${does}`,
      assumedBy: new ServicePrincipal(schedulerServicePrincipal, { conditions: { StringEquals: { 'aws:SourceAccount': this.account } } }),
    });
    for (const statement of schedulerExecutionStatements({ arn: target.queue.queueArn, deadLetterQueueArn: target.deadLetterQueue.queueArn })) {
      role.addToPrincipalPolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: [...statement.actions], resources: [...statement.resources] }));
    }
    return role;
  }

  /**
   * The schedule reconciler's own schedule (shared/scheduled-tasks/reconciler.ts): every few minutes a
   * ScheduleReconcileMessage to the schedule-sync queue, whose consumer syncs the tasks a dead save left out of line.
   * Its execution role may send to that queue and its DLQ only; no function may pass it (manageSchedules passes the
   * task schedules' role only), so no task schedule can target the schedule-sync queue.
   */
  private createReconcilerSchedule(scheduleSync: { queue: Queue; deadLetterQueue: Queue }): CfnSchedule {
    const role = this.createScheduleExecutionRole(
      'ScheduleReconcilerRole',
      "sends the schedule reconciler's firing to the schedule-sync queue (dead letters to its DLQ)",
      scheduleSync,
    );
    const request = reconcilerScheduleRequest({
      groupName: this.scheduleGroupName,
      queueArn: scheduleSync.queue.queueArn,
      deadLetterQueueArn: scheduleSync.deadLetterQueue.queueArn,
      roleArn: role.roleArn,
    });
    const schedule = new CfnSchedule(this, 'ScheduleReconciler', {
      name: request.Name,
      groupName: request.GroupName,
      description: request.Description,
      scheduleExpression: request.ScheduleExpression,
      state: request.State,
      flexibleTimeWindow: { mode: request.FlexibleTimeWindow.Mode },
      target: {
        arn: request.Target.Arn,
        roleArn: request.Target.RoleArn,
        input: request.Target.Input,
        retryPolicy: {
          maximumEventAgeInSeconds: request.Target.RetryPolicy.MaximumEventAgeInSeconds,
          maximumRetryAttempts: request.Target.RetryPolicy.MaximumRetryAttempts,
        },
        deadLetterConfig: { arn: request.Target.DeadLetterConfig.Arn },
      },
    });
    schedule.addResourceDependency(this.scheduleGroup);
    // The role's policy must exist before the schedule uses the role.
    schedule.node.addDependency(role);
    return schedule;
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
