// Infra: one CloudWatch dashboard for the service: the state of every alarm, the business metrics the functions write
// as EMF (shared/observability/metrics.ts, read through businessMetric so every line names a metric a function
// writes), and the operational metrics beside them: API traffic, errors and latency, function errors, each queue's
// backlog and age, and each dead-letter queue's depth (alarmed by ServiceAlarms).
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  MathExpression,
  TextWidget,
  type IAlarm,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { businessMetrics, metricsNamespace, type BusinessMetric } from '#shared/observability/metrics';
import { serviceName } from '#shared/operations/grants';
import { businessMetric, type ConsumedQueue } from './service-alarms';

export interface ServiceDashboardProps {
  readonly api: RestApi;
  /** Every function (operations, consumers), by name: their errors are graphed together. */
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly queues: readonly ConsumedQueue[];
  readonly alarms: readonly IAlarm[];
}

const period = Duration.minutes(5);
const width = 8;
const height = 6;

/** One line per value of a metric's dimension (a metric without one: its single line). */
const linesOf = (metric: BusinessMetric): IMetric[] => {
  const definition: { name: string; dimension?: { values: readonly string[] } } = businessMetrics[metric];
  if (!definition.dimension) return [businessMetric(metric)];
  return definition.dimension.values.map((value) => businessMetric(metric, value, { label: `${definition.name} ${value}` }));
};

const graph = (title: string, left: IMetric[], right: IMetric[] = []): GraphWidget =>
  new GraphWidget({ title, left, ...(right.length > 0 ? { right } : {}), width, height, period });

export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { api } = props;

    // Currencies are an open list (every ISO 4217 code money/ accepts): one line per currency written, found by search.
    const refundedAmount = new MathExpression({
      expression: `SEARCH('{${metricsNamespace},service,Currency} MetricName="${businessMetrics.refundedAmount.name}" service="${serviceName}"', 'Sum', ${period.toSeconds()})`,
      usingMetrics: {},
      label: 'Refunded (minor units)',
      period,
    });

    const rows: IWidget[][] = [
      [
        new TextWidget({
          markdown:
            '# Business platform API\nBusiness metrics are EMF lines the functions write (namespace `' +
            metricsNamespace +
            '`, README "Metrics and traces"); sums per 5 minutes. Traces: X-Ray, every AWS SDK call a subsegment.',
          width: 24,
          height: 2,
        }),
      ],
      [new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 4 })],
      [
        graph('Webhook events', [businessMetric('webhookEventsAccepted', undefined, { label: 'Accepted' }), ...linesOf('webhookEventsRefused')]),
        graph('Document events applied, by state', linesOf('documentEvents')),
        graph('Payments and refunds', [businessMetric('paymentsRecorded', undefined, { label: 'Payments recorded' }), ...linesOf('refunds'), ...linesOf('refundFailures')]),
      ],
      [
        graph('Refunded amount per currency (minor units)', [refundedAmount]),
        graph('Task runs by outcome', linesOf('taskRuns')),
        graph('Schedule syncs', [businessMetric('scheduleSyncsPending', undefined, { label: 'Pending (scheduler failed)' }), ...linesOf('scheduleSyncRetries')]),
      ],
      [
        graph('Receipts completed', linesOf('receiptsCompleted'), [businessMetric('linesReceived', undefined, { label: 'Lines received' })]),
        graph('Completion chunks', [businessMetric('completionChunks', undefined, { label: 'Chunks committed' })]),
        graph(
          'API requests and errors',
          [api.metricCount({ period, statistic: 'Sum' }), api.metricClientError({ period, statistic: 'Sum' }), api.metricServerError({ period, statistic: 'Sum' })],
          [api.metricLatency({ period, statistic: 'p99', label: 'Latency p99' })],
        ),
      ],
      [
        graph(
          'Function errors',
          [...props.functions].map(([name, fn]) => fn.metricErrors({ period, statistic: 'Sum', label: name })),
        ),
        graph(
          'Queue backlog (messages visible)',
          props.queues.map((queued) => queued.queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: queued.name })),
          props.queues.map((queued) => queued.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum', label: `${queued.name} oldest (s)` })),
        ),
        graph(
          'Dead letters (alarmed)',
          props.queues.map((queued) => queued.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: `${queued.name} DLQ` })),
        ),
      ],
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', { widgets: rows, defaultInterval: Duration.hours(3) });
  }
}
