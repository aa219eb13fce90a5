// Infra tests: the document-events path on AWS. The queue, its DLQ and the webhook secret live in the data stack
// as shared/events/queues.ts declares them; the consumer is invoked by an event source mapping with partial batch
// responses; the webhook and consumer get exactly the queue, secret and table rights they use; failures alarm.
import { documentEventsQueue } from '#shared/events/queues';
import { operations } from '#shared/operations/index';
import { webhookSecretGeneration } from '#infra/stacks/data-stack';
import type { OperationFunction } from '#infra/constructs/operation-function';
import {
  actionsOf,
  expectedQueueProperties,
  exportedValue,
  logicalIdOf,
  queuePoliciesOf,
  resourcesOf,
  resourcesOfType,
  sqsConsumeActions,
  statementsOfRole,
  synthesize,
  type CfnResource,
  type PolicyStatement,
  type Synthesized,
} from './synthesize';

const { deadLetterQueue, eventSource, consumer } = documentEventsQueue;

/** What the sendDocumentEvents grant (shared/operations/grants.ts) and an SQS event source grant. */
const sendActions = ['sqs:SendMessage'];
const consumeActions = sqsConsumeActions;
const secretReadActions = ['secretsmanager:GetSecretValue'];

const webhookOperation = operations.find((operation) => operation.grants?.includes('sendDocumentEvents'));

describe('document events (dev)', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize();
  });
  afterAll(() => synthesized.cleanUp());

  const queueId = () => logicalIdOf(synthesized.dataStack.queues.documentEvents.queue);
  const deadLetterQueueId = () => logicalIdOf(synthesized.dataStack.queues.documentEvents.deadLetterQueue);
  const secretId = () => logicalIdOf(synthesized.dataStack.webhookSecret);
  const tableId = () => logicalIdOf(synthesized.dataStack.table);
  const dataResource = (logicalId: string): CfnResource => synthesized.dataJson.Resources[logicalId]!;
  const apiProperties = (construct: Parameters<typeof logicalIdOf>[0]) =>
    synthesized.apiJson.Resources[logicalIdOf(construct)]!.Properties as Record<string, any>;

  /** Statements of a function's role other than its own logs and X-Ray (covered by functions.test.ts). */
  const grantsOf = (operationFunction: OperationFunction): PolicyStatement[] =>
    statementsOfRole(synthesized.apiJson, logicalIdOf(operationFunction.role)).filter(
      (statement) => !actionsOf(statement).some((action) => action.startsWith('logs:') || action.startsWith('xray:')),
    );

  /** One statement per resource group: its sorted actions and what its resources resolve to in the data stack. */
  const describeGrants = (operationFunction: OperationFunction) =>
    grantsOf(operationFunction)
      .map((statement) => ({
        actions: actionsOf(statement).sort(),
        resources: resourcesOf(statement).map((resource) => exportedValue(synthesized, resource)),
      }))
      .sort((a, b) => a.actions[0]!.localeCompare(b.actions[0]!));

  const webhook = () => synthesized.apiStack.operationFunctions.get(webhookOperation!.operationId)!;
  const documentEventsConsumer = () => synthesized.apiStack.consumer(documentEventsQueue.consumer.name);

  describe('queue and dead-letter queue', () => {
    it('the webhook operation asks for both document-events grants in the manifest', () => {
      expect(webhookOperation?.grants).toEqual(expect.arrayContaining(['sendDocumentEvents', 'readWebhookSecret']));
    });

    it('creates the standard queue from queues.ts, dead-lettering after maxReceiveCount receives', () => {
      const properties = dataResource(queueId()).Properties!;
      expect(properties).toEqual(expectedQueueProperties(synthesized.dataStack.stackName, documentEventsQueue, deadLetterQueueId()));
      // Not FIFO: the consumer restores order itself.
      expect(properties.FifoQueue).toBeUndefined();
    });

    it('keeps messages invisible at least six times the consumer timeout (AWS guidance for Lambda event sources)', () => {
      const visibility = dataResource(queueId()).Properties!.VisibilityTimeout as number;
      const consumerTimeout = apiProperties(documentEventsConsumer().function).Timeout as number;
      expect(consumerTimeout).toBe(consumer.timeoutSeconds);
      expect(visibility).toBeGreaterThanOrEqual(6 * consumerTimeout);
    });

    it('creates the DLQ with its retention, SSE, no DLQ of its own, and a redrive-allow policy naming only the queue', () => {
      const properties = dataResource(deadLetterQueueId()).Properties!;
      expect(properties.MessageRetentionPeriod).toBe(deadLetterQueue.retentionPeriodSeconds);
      expect(properties.SqsManagedSseEnabled).toBe(true);
      expect(properties.RedrivePolicy).toBeUndefined();
      const allow = properties.RedriveAllowPolicy as { redrivePermission: string; sourceQueueArns: unknown[] };
      expect(allow.redrivePermission).toBe('byQueue');
      expect(allow.sourceQueueArns).toHaveLength(1);
      // The ARN is built from the queue's fixed name (a Ref would be a dependency cycle).
      const arn = JSON.stringify(allow.sourceQueueArns[0]);
      expect(arn).toContain('":sqs:"');
      expect(arn).toMatch(new RegExp(`":${dataResource(queueId()).Properties!.QueueName as string}"`));
    });

    it.each([
      ['queue', () => queueId()],
      ['dead-letter queue', () => deadLetterQueueId()],
    ])('refuses any request to the %s that does not use TLS, and grants nothing in a resource policy', (_, idOf) => {
      const policies = queuePoliciesOf(synthesized.dataJson, idOf());
      expect(policies).toHaveLength(1);
      expect((policies[0]![1].Properties!.PolicyDocument as { Statement: unknown[] }).Statement).toEqual([
        {
          Action: 'sqs:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Resource: { 'Fn::GetAtt': [idOf(), 'Arn'] },
        },
      ]);
    });

    it('is disposable in dev, like the table', () => {
      for (const logicalId of [queueId(), deadLetterQueueId(), secretId()]) {
        expect(dataResource(logicalId).DeletionPolicy).toBe('Delete');
        expect(dataResource(logicalId).UpdateReplacePolicy).toBe('Delete');
      }
    });

    it('outputs both queue ARNs for the DLQ redrive', () => {
      expect(synthesized.dataJson.Outputs?.DocumentEventsQueueArn?.Value).toEqual({ 'Fn::GetAtt': [queueId(), 'Arn'] });
      expect(synthesized.dataJson.Outputs?.DocumentEventsDlqArn?.Value).toEqual({
        'Fn::GetAtt': [deadLetterQueueId(), 'Arn'],
      });
    });
  });

  describe('webhook signing secret', () => {
    it('is generated once in the data stack as {"current": 48 letters and digits}', () => {
      expect(dataResource(secretId()).Type).toBe('AWS::SecretsManager::Secret');
      expect(dataResource(secretId()).Properties!.GenerateSecretString).toEqual({
        SecretStringTemplate: '{}',
        GenerateStringKey: 'current',
        ExcludePunctuation: true,
        PasswordLength: 48,
      });
      expect(webhookSecretGeneration.passwordLength).toBeGreaterThanOrEqual(16);
      // No rotation schedule: rotation is the manual procedure of infra/README.md (acknowledged SMG4).
      synthesized.data.resourceCountIs('AWS::SecretsManager::RotationSchedule', 0);
      synthesized.data.resourceCountIs('AWS::SecretsManager::ResourcePolicy', 0);
      expect(synthesized.dataJson.Outputs?.WebhookSecretArn?.Value).toEqual({ Ref: secretId() });
    });
  });

  describe('consumer and its event source mapping', () => {
    it('invokes the consumer from the queue with the settings of queues.ts and partial batch responses', () => {
      // The payments queue has its own mapping (test/infra/payments.test.ts).
      const consumerId = logicalIdOf(documentEventsConsumer().function);
      const mappings = resourcesOfType(synthesized.apiJson, 'AWS::Lambda::EventSourceMapping').filter(
        ([, mapping]) => JSON.stringify(mapping.Properties?.FunctionName) === JSON.stringify({ Ref: consumerId }),
      );
      expect(mappings).toHaveLength(1);
      const properties = mappings[0]![1].Properties!;
      expect(exportedValue(synthesized, properties.EventSourceArn)).toEqual({ 'Fn::GetAtt': [queueId(), 'Arn'] });
      expect(properties).toEqual({
        EventSourceArn: expect.anything(),
        FunctionName: { Ref: logicalIdOf(documentEventsConsumer().function) },
        BatchSize: eventSource.batchSize,
        MaximumBatchingWindowInSeconds: eventSource.maxBatchingWindowSeconds,
        ScalingConfig: { MaximumConcurrency: eventSource.maximumConcurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(eventSource.reportBatchItemFailures).toBe(true);
    });

    it('creates the mapping only after the role can read the queue', () => {
      const consumerFunction = synthesized.apiJson.Resources[logicalIdOf(documentEventsConsumer().function)] as {
        DependsOn?: string[];
      };
      expect(consumerFunction.DependsOn).toEqual(
        expect.arrayContaining([expect.stringMatching(/^DocumentEventsConsumerRoleDefaultPolicy/)]),
      );
    });

    it('grants the consumer exactly its queues.ts table actions on the table and the consume actions on the queue', () => {
      expect(describeGrants(documentEventsConsumer())).toEqual([
        { actions: [...new Set(consumer.tableAccess)].sort(), resources: [{ 'Fn::GetAtt': [tableId(), 'Arn'] }] },
        { actions: consumeActions, resources: [{ 'Fn::GetAtt': [queueId(), 'Arn'] }] },
      ]);
    });

    it('gives the consumer TABLE_NAME and nothing of the webhook', () => {
      const variables = apiProperties(documentEventsConsumer().function).Environment.Variables as Record<string, unknown>;
      expect(exportedValue(synthesized, variables.TABLE_NAME)).toEqual({ Ref: tableId() });
      expect(variables).not.toHaveProperty('DOCUMENT_EVENTS_QUEUE_URL');
      expect(variables).not.toHaveProperty('WEBHOOK_SECRET_ARN');
    });

    it('has no API route', () => {
      const consumerId = logicalIdOf(documentEventsConsumer().function);
      for (const [, method] of resourcesOfType(synthesized.apiJson, 'AWS::ApiGateway::Method')) {
        expect(JSON.stringify(method.Properties)).not.toContain(`"${consumerId}"`);
      }
      for (const [, permission] of resourcesOfType(synthesized.apiJson, 'AWS::Lambda::Permission')) {
        expect(JSON.stringify(permission.Properties!.FunctionName)).not.toContain(`"${consumerId}"`);
      }
    });
  });

  describe('webhook grants', () => {
    it('lets the webhook send to the queue only and read the secret only, with no table access', () => {
      expect(describeGrants(webhook())).toEqual([
        { actions: secretReadActions, resources: [{ Ref: secretId() }] },
        { actions: sendActions, resources: [{ 'Fn::GetAtt': [queueId(), 'Arn'] }] },
      ]);
    });

    it('gives the webhook the queue URL and the secret ARN, from the same resources it was granted', () => {
      const variables = apiProperties(webhook().function).Environment.Variables as Record<string, unknown>;
      expect(exportedValue(synthesized, variables.DOCUMENT_EVENTS_QUEUE_URL)).toEqual({ Ref: queueId() });
      expect(exportedValue(synthesized, variables.WEBHOOK_SECRET_ARN)).toEqual({ Ref: secretId() });
      expect(variables).not.toHaveProperty('TABLE_NAME');
    });

    it.each(operations.map((operation) => [operation.operationId, operation] as const))(
      '%s gets queue and secret rights and variables exactly as its manifest grants say',
      (operationId, operation) => {
        const operationFunction = synthesized.apiStack.operationFunctions.get(operationId)!;
        // Rights on this area's queue and secret (the other queues' are their areas' tests', e.g. payments.test.ts).
        const otherQueueIds = Object.values(synthesized.dataStack.queues)
          .filter((deployed) => deployed.definition.name !== documentEventsQueue.name)
          .flatMap((deployed) => [logicalIdOf(deployed.queue), logicalIdOf(deployed.deadLetterQueue)]);
        const actions = grantsOf(operationFunction)
          .filter((statement) => !otherQueueIds.some((queueId) => JSON.stringify(statement.Resource).includes(queueId)))
          .flatMap(actionsOf);
        const variables = apiProperties(operationFunction.function).Environment.Variables as Record<string, unknown>;
        const sends = operation.grants?.includes('sendDocumentEvents') ?? false;
        const readsSecret = operation.grants?.includes('readWebhookSecret') ?? false;
        expect(actions.filter((action) => action.startsWith('sqs:')).sort()).toEqual(sends ? sendActions : []);
        expect('DOCUMENT_EVENTS_QUEUE_URL' in variables).toBe(sends);
        expect(actions.filter((action) => action.startsWith('secretsmanager:')).sort()).toEqual(
          readsSecret ? secretReadActions : [],
        );
        expect('WEBHOOK_SECRET_ARN' in variables).toBe(readsSecret);
      },
    );

    it('grants the authorizer neither queue nor secret', () => {
      const actions = grantsOf(synthesized.apiStack.authorizerFunction).flatMap(actionsOf);
      expect(actions.filter((action) => /^(sqs|secretsmanager):/.test(action))).toEqual([]);
    });
  });

  describe('alarms', () => {
    const alarms = () =>
      resourcesOfType(synthesized.apiJson, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties as Record<string, any>);
    const dimensionValue = (alarm: Record<string, any>) => exportedValue(synthesized, alarm.Dimensions[0].Value);

    it('alarms on any message in the DLQ, keeping its state when an idle DLQ stops reporting', () => {
      const matching = alarms().filter(
        (alarm) =>
          alarm.Namespace === 'AWS/SQS' &&
          alarm.MetricName === 'ApproximateNumberOfMessagesVisible' &&
          JSON.stringify(dimensionValue(alarm)) === JSON.stringify({ 'Fn::GetAtt': [deadLetterQueueId(), 'QueueName'] }),
      );
      expect(matching).toHaveLength(1);
      expect(matching[0]).toMatchObject({
        Statistic: 'Maximum',
        Period: 300,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'ignore',
      });
    });

    it('alarms when the oldest message of the queue has waited more than 15 minutes', () => {
      const matching = alarms().filter(
        (alarm) =>
          alarm.Namespace === 'AWS/SQS' &&
          alarm.MetricName === 'ApproximateAgeOfOldestMessage' &&
          JSON.stringify(dimensionValue(alarm)) === JSON.stringify({ 'Fn::GetAtt': [queueId(), 'QueueName'] }),
      );
      expect(matching).toHaveLength(1);
      expect(matching[0]).toMatchObject({ Statistic: 'Maximum', Threshold: 15 * 60, ComparisonOperator: 'GreaterThanThreshold' });
    });

    it('alarms on any invocation error of the consumer', () => {
      const consumerId = logicalIdOf(documentEventsConsumer().function);
      const matching = alarms().filter(
        (alarm) =>
          alarm.Namespace === 'AWS/Lambda' &&
          alarm.MetricName === 'Errors' &&
          JSON.stringify(alarm.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: consumerId } }]),
      );
      expect(matching).toHaveLength(1);
      expect(matching[0]).toMatchObject({ Statistic: 'Sum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    });
  });
});

describe('document events (prod)', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize({ stage: 'prod' });
  });
  afterAll(() => synthesized.cleanUp());

  it('retains the queues and the signing secret, so neither a destroy nor a replacement loses them', () => {
    const { queue, deadLetterQueue: documentEventsDeadLetterQueue } = synthesized.dataStack.queues.documentEvents;
    const { webhookSecret } = synthesized.dataStack;
    for (const construct of [queue, documentEventsDeadLetterQueue, webhookSecret]) {
      const resource = synthesized.dataJson.Resources[logicalIdOf(construct)]!;
      expect(resource.DeletionPolicy).toBe('Retain');
      expect(resource.UpdateReplacePolicy).toBe('Retain');
    }
  });
});
