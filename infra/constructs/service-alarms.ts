// Infra: the alarms that say the service is failing its callers, all sent to one topic. Each watches a signal
// that is zero in normal operation (or, for a few business metrics, below a small burst), so any alarm is worth a look.
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { businessMetrics, metricsNamespace, type BusinessMetric } from '#shared/observability/metrics';
import { serviceName } from '#shared/operations/grants';

/** The service's CloudWatch namespace: its business metrics (EMF) and the authorizer's log metric, one namespace. */
export const alarmNamespace = metricsNamespace;

const period = Duration.minutes(5);

/**
 * A business metric as the functions write it (shared/observability/metrics.ts): its namespace, the `service`
 * dimension every function writes and, for a metric with a dimension of its own, one value of it. The alarms and the
 * dashboard read metrics only through this, so neither can name a metric or a dimension value no function writes.
 */
export const businessMetric = <M extends BusinessMetric>(
  metric: M,
  dimensionValue?: string,
  options: { readonly statistic?: string; readonly period?: Duration; readonly label?: string } = {},
): Metric => {
  const definition: { name: string; dimension?: { name: string; values: readonly string[] } } = businessMetrics[metric];
  if (definition.dimension && dimensionValue === undefined) throw new Error(`${definition.name} needs a ${definition.dimension.name}`);
  if (definition.dimension && definition.dimension.values.length > 0 && !definition.dimension.values.includes(dimensionValue as string)) {
    throw new Error(`${definition.name} is never written with ${definition.dimension.name} ${dimensionValue}`);
  }
  return new Metric({
    namespace: metricsNamespace,
    metricName: definition.name,
    dimensionsMap: { service: serviceName, ...(definition.dimension ? { [definition.dimension.name]: dimensionValue as string } : {}) },
    statistic: options.statistic ?? 'Sum',
    period: options.period ?? period,
    ...(options.label ? { label: options.label } : {}),
  });
};

/**
 * The business metrics that signal trouble, each with the count over five minutes above which it alarms. Zero where
 * any occurrence is a failure; a small burst where single occurrences are normal (one mistyped signature, a schedule
 * firing for a version a save just replaced, a firing late after a deploy).
 */
export const businessAlarms = [
  {
    id: 'WebhookSignatureRefusals',
    metric: () => businessMetric('webhookEventsRefused', 'Signature'),
    threshold: 5,
    description: 'More than 5 webhook events refused for their signature in 5 minutes: the provider signs with a secret the service does not hold (rotation half done), or someone is probing the webhook.',
  },
  {
    id: 'WebhookUnavailable',
    metric: () => businessMetric('webhookEventsRefused', 'Unavailable'),
    threshold: 0,
    description: 'Webhook events answered 503: the webhook secret or the document-events queue is unreachable; the provider retries, events wait.',
  },
  {
    id: 'RefundFailuresInline',
    metric: () => businessMetric('refundFailures', 'Inline'),
    threshold: 0,
    description: 'Inline refunds failed (503): contention on a payment outlasted the retries. Nothing was refunded; callers must retry.',
  },
  {
    id: 'RefundFailuresQueued',
    metric: () => businessMetric('refundFailures', 'Queued'),
    threshold: 0,
    description: 'Queued refunds failed: the payments queue could not take one, or the consumer marked one Failed on its last receive (its amount is refundable again). Read the paymentsConsumer logs.',
  },
  {
    id: 'TaskRunsStaleVersion',
    metric: () => businessMetric('taskRuns', 'StaleVersion'),
    threshold: 10,
    description: 'More than 10 task firings in 5 minutes came from a schedule older than its task: schedules are not being replaced on save (scheduler sync failing?).',
  },
  {
    id: 'TaskRunsMisfire',
    metric: () => businessMetric('taskRuns', 'Misfire'),
    threshold: 10,
    description: 'More than 10 task firings in 5 minutes were skipped as misfires (over one interval late): the task-runs queue or its consumer is falling behind.',
  },
  {
    id: 'ScheduleSyncsPending',
    metric: () => businessMetric('scheduleSyncsPending'),
    threshold: 0,
    description: 'Task saves left their task Pending: EventBridge Scheduler refused or timed out; retries are queued (schedule-sync queue). Firings may be missed until they succeed.',
  },
] as const satisfies readonly { id: string; metric: () => Metric; threshold: number; description: string }[];

/** A queue with its dead-letter queue, and its Lambda consumer when this API drains it. */
export interface ConsumedQueue {
  /** Prefix of the alarm ids (`documentEvents` -> `documentEventsDeadLetters`, ...). */
  readonly name: string;
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
  /**
   * The function of the event source mapping: its Errors alarm sits with the queue's. Absent for a queue that others
   * consume (the task-work queue): its dead letters and waiting messages are alarmed all the same.
   */
  readonly consumerName?: string;
  readonly consumer?: IFunction;
  /**
   * Age of the oldest message above which the consumer is considered stuck or starved. 15 minutes by default:
   * normal events wait about a second (the batching window), a throttled or failing consumer lets them pile up.
   */
  readonly maximumMessageAge?: Duration;
}

export interface ServiceAlarmsProps {
  readonly api: RestApi;
  /** Operation functions by operationId: an invocation error (crash, timeout, init failure) is never expected. */
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly authorizerLogGroup: ILogGroup;
  /** Every queue: dead letters and message age are alarmed, and the consumer's errors where it has one. */
  readonly queues?: readonly ConsumedQueue[];
  /** Share of requests answered 5XX, over five minutes, above which the API alarm fires (0.01 = 1 %). */
  readonly serverErrorRateThreshold?: number;
  readonly alarmEmail?: string;
}

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

    const add = (
      alarmId: string,
      metric: IMetric,
      threshold: number,
      description: string,
      // No traffic is not a failure.
      treatMissingData: TreatMissingData = TreatMissingData.NOT_BREACHING,
    ): void => {
      const alarm = new Alarm(this, alarmId, {
        metric,
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData,
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

    for (const consumed of props.queues ?? []) {
      const consumerName = consumed.consumerName ?? 'its consumer';
      // Any dead letter is an event that was never applied. SQS publishes a queue's metrics only while it counts as
      // active (up to six hours after it last held messages or was accessed), so an untouched DLQ can go silent:
      // missing data keeps the alarm where it is (IGNORE) rather than reporting OK while messages still sit there.
      add(
        `${consumed.name}DeadLetters`,
        consumed.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period }),
        0,
        `${consumed.name}: messages in the dead-letter queue (failed ${consumerName} repeatedly). ` +
          'Read the consumer logs, fix, then redrive (infra/README.md).',
        TreatMissingData.IGNORE,
      );
      // A queue others drain (task work) is theirs to watch for age: its workers are not part of this API, and an
      // age alarm would fire for as long as no worker is deployed. Its dead letters are still ours to see.
      if (!consumed.consumer || !consumed.consumerName) continue;
      const maximumMessageAge = consumed.maximumMessageAge ?? Duration.minutes(15);
      add(
        `${consumed.name}OldestMessageAge`,
        consumed.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period }),
        maximumMessageAge.toSeconds(),
        `${consumed.name}: the oldest message has waited over ${maximumMessageAge.toHumanString()} ` +
          `(${consumerName} stopped, throttled or failing).`,
      );
      // Failed records are reported as batch item failures, not thrown; Errors counts crashes, timeouts and
      // init failures of the whole invocation.
      add(
        `${consumed.consumerName}Errors`,
        consumed.consumer.metricErrors({ statistic: 'Sum', period }),
        0,
        `${consumed.consumerName}: the consumer crashed, timed out or failed to start (failed records are retried, not thrown).`,
      );
    }

    // Business metrics (EMF, shared/observability/metrics.ts): a metric nobody wrote in the period is no event.
    for (const alarm of businessAlarms) add(alarm.id, alarm.metric(), alarm.threshold, alarm.description);

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
