// Infra: the alarms that say the service is failing its callers, all sent to one topic. Each watches a signal
// that is zero in normal operation, so any alarm is worth a look.
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export const alarmNamespace = 'BusinessPlatformApi';

export interface ServiceAlarmsProps {
  readonly api: RestApi;
  /** Operation functions by operationId: an invocation error (crash, timeout, init failure) is never expected. */
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly authorizerLogGroup: ILogGroup;
  /** Share of requests answered 5XX, over five minutes, above which the API alarm fires (0.01 = 1 %). */
  readonly serverErrorRateThreshold?: number;
  readonly alarmEmail?: string;
}

const period = Duration.minutes(5);

export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);

    // Not KMS-encrypted: CloudWatch cannot publish to a topic under the AWS-managed SNS key, and alarm state
    // changes carry no data worth a customer-managed key. Publishing is still TLS-only (enforceSSL).
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Business platform API alarms',
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const notify = new SnsAction(this.topic);

    const add = (alarmId: string, metric: IMetric, threshold: number, description: string): void => {
      const alarm = new Alarm(this, alarmId, {
        metric,
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        // No traffic is not a failure.
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
      this.alarms.push(alarm);
    };

    // 5XXError is 0 or 1 per request, so its average over the period is the share of requests that failed.
    add(
      'ApiServerErrorRate',
      props.api.metricServerError({ statistic: 'Average', period }),
      props.serverErrorRateThreshold ?? 0.01,
      'More than 1 % of API requests answered 5XX over 5 minutes (functions, integration, or authorizer failures).',
    );

    for (const [operationId, operationFunction] of props.functions) {
      add(
        `${operationId}Errors`,
        operationFunction.metricErrors({ statistic: 'Sum', period }),
        0,
        `${operationId}: the function crashed, timed out or failed to start (handled errors are answered, not thrown).`,
      );
    }

    // The authorizer's Lambda Errors metric is not a failure signal: it throws "Unauthorized" for every refused
    // token, so anyone could trigger an alarm on it. What matters is the authorizer failing to decide (JWKS
    // unreachable, bad configuration), which it logs at ERROR; count those lines instead.
    const authorizerFailures = new MetricFilter(this, 'AuthorizerFailureLines', {
      logGroup: props.authorizerLogGroup,
      filterPattern: FilterPattern.stringValue('$.level', '=', 'ERROR'),
      metricNamespace: alarmNamespace,
      metricName: 'AuthorizerFailures',
      metricValue: '1',
      defaultValue: 0,
    });
    add(
      'AuthorizerFailures',
      authorizerFailures.metric({ statistic: 'Sum', period }) as Metric,
      0,
      'The bearer-token authorizer failed to decide (not a refused token): callers get 500 until it recovers.',
    );
  }
}
