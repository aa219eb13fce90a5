// Infra tests: the payments queue, its DLQ and consumer, and who may send to it (the refund function only), on the
// synthesized templates. The table's TTL attribute, which expires Idempotency-Key records, is table.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { paymentsQueue } from '#shared/events/queues';
import { operations } from '#shared/operations/index';
import type { OperationFunction } from '#infra/constructs/operation-function';
import { paymentsQueueUrlVariable } from '#shared/payments/queue';
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
  type Synthesized,
} from './synthesize';

const { deadLetterQueue, eventSource, consumer } = paymentsQueue;
/** The sendPayments grant (shared/operations/grants.ts): SendMessage only. */
const sendActions = ['sqs:SendMessage'];
const consumeActions = sqsConsumeActions;

describe('payments (dev)', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize();
  });
  afterAll(() => synthesized.cleanUp());

  const queueId = () => logicalIdOf(synthesized.dataStack.queues.payments.queue);
  const deadLetterQueueId = () => logicalIdOf(synthesized.dataStack.queues.payments.deadLetterQueue);
  const tableId = () => logicalIdOf(synthesized.dataStack.table);
  const dataResource = (logicalId: string): CfnResource => synthesized.dataJson.Resources[logicalId]!;
  const functionProperties = (fn: OperationFunction) => synthesized.apiJson.Resources[logicalIdOf(fn.function)]!.Properties as Record<string, any>;
  /** A function's statements on the payments queue, with their actions. */
  const onPaymentsQueue = (fn: OperationFunction) =>
    statementsOfRole(synthesized.apiJson, logicalIdOf(fn.role)).filter((statement) =>
      resourcesOf(statement).some(
        (resource) =>
          Object.hasOwn(resource as object, 'Fn::ImportValue') && JSON.stringify(exportedValue(synthesized, resource)).includes(queueId()),
      ),
    );

  it('creates the queue from queues.ts (SSE-SQS, dead-lettering after maxReceiveCount) and a DLQ only it may use', () => {
    expect(dataResource(queueId()).Properties).toEqual(expectedQueueProperties(synthesized.dataStack.stackName, paymentsQueue, deadLetterQueueId()));
    expect(paymentsQueue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * consumer.timeoutSeconds);
    const dlq = dataResource(deadLetterQueueId()).Properties!;
    expect(dlq.MessageRetentionPeriod).toBe(deadLetterQueue.retentionPeriodSeconds);
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    const allow = dlq.RedriveAllowPolicy as { redrivePermission: string; sourceQueueArns: unknown[] };
    expect(allow.redrivePermission).toBe('byQueue');
    expect(JSON.stringify(allow.sourceQueueArns)).toContain(`:${synthesized.dataStack.stackName}-${paymentsQueue.logicalName}"`);
  });

  it.each([
    ['queue', () => queueId()],
    ['dead-letter queue', () => deadLetterQueueId()],
  ])('refuses any request to the %s without TLS', (_, idOf) => {
    const policies = queuePoliciesOf(synthesized.dataJson, idOf());
    expect(policies).toHaveLength(1);
    expect(JSON.stringify(policies[0]![1].Properties!.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });

  it('outputs both queue ARNs for a DLQ redrive', () => {
    expect(synthesized.dataJson.Outputs?.PaymentsQueueArn?.Value).toEqual({ 'Fn::GetAtt': [queueId(), 'Arn'] });
    expect(synthesized.dataJson.Outputs?.PaymentsDlqArn?.Value).toEqual({ 'Fn::GetAtt': [deadLetterQueueId(), 'Arn'] });
  });

  it('invokes the consumer from the queue with the settings of queues.ts and partial batch responses', () => {
    const consumerId = logicalIdOf(synthesized.apiStack.consumer(consumer.name).function);
    const mappings = resourcesOfType(synthesized.apiJson, 'AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => JSON.stringify(mapping.Properties?.FunctionName) === JSON.stringify({ Ref: consumerId }),
    );
    expect(mappings).toHaveLength(1);
    const properties = mappings[0]![1].Properties!;
    expect(exportedValue(synthesized, properties.EventSourceArn)).toEqual({ 'Fn::GetAtt': [queueId(), 'Arn'] });
    expect(properties).toMatchObject({
      BatchSize: eventSource.batchSize,
      MaximumBatchingWindowInSeconds: eventSource.maxBatchingWindowSeconds,
      ScalingConfig: { MaximumConcurrency: eventSource.maximumConcurrency },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(functionProperties(synthesized.apiStack.consumer(consumer.name)).Timeout).toBe(consumer.timeoutSeconds);
  });

  it('grants the consumer exactly its queues.ts table actions and the consume actions on its queue', () => {
    const statements = statementsOfRole(synthesized.apiJson, logicalIdOf(synthesized.apiStack.consumer(consumer.name).role)).filter(
      (statement) => !actionsOf(statement).some((action) => action.startsWith('logs:') || action.startsWith('xray:')),
    );
    const described = statements
      .map((statement) => ({ actions: actionsOf(statement).sort(), resources: resourcesOf(statement).map((resource) => exportedValue(synthesized, resource)) }))
      .sort((a, b) => a.actions[0]!.localeCompare(b.actions[0]!));
    expect(described).toEqual([
      { actions: [...consumer.tableAccess].sort(), resources: [{ 'Fn::GetAtt': [tableId(), 'Arn'] }] },
      { actions: consumeActions, resources: [{ 'Fn::GetAtt': [queueId(), 'Arn'] }] },
    ]);
    expect(functionProperties(synthesized.apiStack.consumer(consumer.name)).Environment.Variables).not.toHaveProperty(paymentsQueueUrlVariable);
  });

  it.each(operations.map((operation) => [operation.operationId, operation] as const))(
    '%s may send to the payments queue, with its URL, only if its manifest grants sendPayments',
    (operationId, operation) => {
      const fn = synthesized.apiStack.operationFunctions.get(operationId)!;
      const sends = operation.grants?.includes('sendPayments') ?? false;
      expect(onPaymentsQueue(fn).flatMap(actionsOf).sort()).toEqual(sends ? sendActions : []);
      const variables = functionProperties(fn).Environment.Variables as Record<string, unknown>;
      expect(paymentsQueueUrlVariable in variables).toBe(sends);
      if (sends) expect(exportedValue(synthesized, variables[paymentsQueueUrlVariable])).toEqual({ Ref: queueId() });
    },
  );

  it('lets the refund, and only the refund, send to the payments queue', () => {
    expect(operations.filter((operation) => operation.grants?.includes('sendPayments')).map((operation) => operation.operationId)).toEqual([
      'paymentPostRefund',
    ]);
  });
});
