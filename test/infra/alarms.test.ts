// Infra tests: every failure signal has an alarm, and every alarm notifies the topic (which only accepts TLS).
import { consumedQueueDefinitions, queueDefinitions } from '#shared/events/queues';
import { operations } from '#shared/operations/index';
import { logicalIdOf, resourcesOfType, synthesize, type CfnTemplate, type Synthesized } from './synthesize';
import { businessAlarms } from '#infra/constructs/service-alarms';
import { businessMetrics } from '#shared/observability/metrics';

let synthesized: Synthesized;
let template: CfnTemplate;

beforeAll(() => {
  synthesized = synthesize({ alarmEmail: 'oncall@example.com' });
  template = synthesized.apiJson;
});
afterAll(() => synthesized.cleanUp());

const alarms = () => resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties as Record<string, any>);

describe('alarms', () => {
  it('has one alarm per operation function, one for the API 5XX rate, one for authorizer failures, three for each consumed queue, one (dead letters) for each queue others consume and one per business alarm', () => {
    const unconsumed = queueDefinitions.length - consumedQueueDefinitions.length;
    expect(alarms()).toHaveLength(operations.length + 2 + 3 * consumedQueueDefinitions.length + unconsumed + businessAlarms.length);
  });

  it('alarms when more than 1 % of requests answer 5XX over five minutes', () => {
    synthesized.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Average',
      Period: 300,
      Threshold: 0.01,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it.each(operations.map((operation) => operation.operationId))('alarms on any invocation error of %s', (operationId) => {
    const functionId = logicalIdOf(synthesized.apiStack.operationFunctions.get(operationId)!.function);
    const matching = alarms().filter(
      (alarm) =>
        alarm.Namespace === 'AWS/Lambda' &&
        alarm.MetricName === 'Errors' &&
        JSON.stringify(alarm.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: functionId } }]),
    );
    expect(matching).toHaveLength(1);
    expect(matching[0]).toMatchObject({ Statistic: 'Sum', Period: 300, Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
  });

  it('alarms on authorizer failures, counted from its ERROR log lines rather than refused tokens', () => {
    const authorizerLogs = logicalIdOf(synthesized.apiStack.authorizerFunction.logGroup);
    synthesized.api.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: authorizerLogs },
      FilterPattern: '{ $.level = "ERROR" }',
      MetricTransformations: [
        { MetricNamespace: 'BusinessPlatformApi', MetricName: 'AuthorizerFailures', MetricValue: '1', DefaultValue: 0 },
      ],
    });
    synthesized.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'BusinessPlatformApi',
      MetricName: 'AuthorizerFailures',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    const authorizerId = logicalIdOf(synthesized.apiStack.authorizerFunction.function);
    expect(alarms().filter((alarm) => JSON.stringify(alarm.Dimensions ?? []).includes(`"${authorizerId}"`))).toEqual([]);
  });

  it('notifies one TLS-only topic on alarm and on recovery, and subscribes the given e-mail', () => {
    const topics = resourcesOfType(template, 'AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const topic = { Ref: topics[0]![0] };
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toEqual([topic]);
      expect(alarm.OKActions).toEqual([topic]);
    }
    synthesized.api.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: [
          {
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Effect: 'Deny',
            Principal: '*',
            Resource: topic,
            Sid: 'AllowPublishThroughSSLOnly',
          },
        ],
        Version: '2012-10-17',
      },
    });
    synthesized.api.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
  });

  describe('business metrics (EMF, shared/observability/metrics.ts)', () => {
    const businessAlarm = (metricName: string, dimension?: readonly [string, string]) =>
      alarms().filter(
        (alarm) =>
          alarm.Namespace === 'BusinessPlatformApi' &&
          alarm.MetricName === metricName &&
          JSON.stringify(alarm.Dimensions) ===
            JSON.stringify([...(dimension ? [{ Name: dimension[0], Value: dimension[1] }] : []), { Name: 'service', Value: 'business-platform-api' }].sort((a, b) => a.Name.localeCompare(b.Name))),
      );

    it.each([
      ['webhook events refused for their signature, above a small burst', 'WebhookEventsRefused', ['Reason', 'Signature'], 5],
      ['webhook events answered 503', 'WebhookEventsRefused', ['Reason', 'Unavailable'], 0],
      ['any inline refund failure', 'RefundFailures', ['Mode', 'Inline'], 0],
      ['any queued refund failure', 'RefundFailures', ['Mode', 'Queued'], 0],
      ['a burst of task runs from stale schedules', 'TaskRuns', ['Outcome', 'StaleVersion'], 10],
      ['a burst of misfired task runs', 'TaskRuns', ['Outcome', 'Misfire'], 10],
      ['any task left Pending by a failed schedule sync', 'ScheduleSyncsPending', undefined, 0],
    ] as const)('alarms on %s', (_what, metricName, dimension, threshold) => {
      const matching = businessAlarm(metricName, dimension);
      expect(matching).toHaveLength(1);
      expect(matching[0]).toMatchObject({
        Statistic: 'Sum',
        Period: 300,
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
    });

    it('alarms only on metric names and dimension values a function writes', () => {
      const byName = new Map<string, { name: string; dimension?: { name: string; values: readonly string[] } }>(
        Object.values(businessMetrics).map((metric) => [metric.name, metric]),
      );
      const ours = alarms().filter((alarm) => alarm.Namespace === 'BusinessPlatformApi' && alarm.MetricName !== 'AuthorizerFailures');
      expect(ours).toHaveLength(businessAlarms.length);
      for (const alarm of ours) {
        const metric = byName.get(alarm.MetricName);
        expect(metric).toBeDefined();
        for (const { Name, Value } of alarm.Dimensions as { Name: string; Value: string }[]) {
          if (Name === 'service') expect(Value).toBe('business-platform-api');
          else {
            expect(Name).toBe(metric!.dimension?.name);
            expect(metric!.dimension?.values).toContain(Value);
          }
        }
      }
    });
  });
});
