// Observability: the business metrics an operator watches, declared once: their namespace, names, units and the one
// dimension each may carry with its every allowed value. Emitted as CloudWatch Embedded Metric Format (Powertools
// Metrics): one JSON line on stdout per event, which CloudWatch Logs turns into a metric on AWS and which the local
// stack writes to its log. The CDK stack (infra/constructs/service-dashboard.ts, service-alarms.ts) reads the same
// definitions, so an alarm can never watch a name or a dimension value no function writes.
//
// Each event is flushed when it happens (a single-metric instance), not stored until the end of the invocation: a
// local function process serves concurrent invocations with one module graph, where a shared buffer would mix their
// metrics, and an invocation that times out or crashes still counts what it did. Dimensions are low-cardinality by
// construction (a closed list per metric; currencies are the ISO 4217 codes money/ accepts): never a tenant, an id,
// an amount or anything personal. Values (a refunded amount) are the metric's value, never a dimension.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { processServiceName } from '#shared/environment';

/** The CloudWatch namespace of every metric of this service (the authorizer's log metric filter included). */
export const metricsNamespace = 'BusinessPlatformApi';

/** The `service` dimension Powertools adds to every metric: the service name every function logs under. */
export const metricsServiceName = processServiceName();

interface MetricDefinition {
  /** The CloudWatch metric name. */
  readonly name: string;
  readonly unit: (typeof MetricUnit)[keyof typeof MetricUnit];
  /** What one data point means, for the README and the dashboard. */
  readonly description: string;
  /** The one dimension besides `service`, and its closed list of values (absent: the metric has no other dimension). */
  readonly dimension?: { readonly name: string; readonly values: readonly string[] };
}

const webhookRefusalReasons = ['Signature', 'Invalid', 'TooLarge', 'MediaType', 'Unavailable', 'Other'] as const;
const documentStates = ['Uploaded', 'Processing', 'Processed', 'Failed', 'Unknown'] as const;
const refundModes = ['Inline', 'Queued'] as const;
const taskRunOutcomes = ['Run', 'Misfire', 'StaleVersion', 'Disabled'] as const;
const scheduleSyncOutcomes = ['Synced', 'Stale', 'Gone', 'Failed'] as const;
const completionModes = ['Single', 'Chunked'] as const;

export const businessMetrics = {
  webhookEventsAccepted: {
    name: 'WebhookEventsAccepted',
    unit: MetricUnit.Count,
    description: 'Provider webhook events verified and queued (202).',
  },
  webhookEventsRefused: {
    name: 'WebhookEventsRefused',
    unit: MetricUnit.Count,
    description: 'Provider webhook events refused, by reason: a bad signature (401), an invalid body (400), too large (413), an unsupported media type or Accept (415/406), the secrets or queue unavailable (503), anything else.',
    dimension: { name: 'Reason', values: webhookRefusalReasons },
  },
  documentEvents: {
    name: 'DocumentEventsApplied',
    unit: MetricUnit.Count,
    description: 'Document events applied to a document (duplicates not counted), by the state the event stands for (Unknown: a type the service does not know).',
    dimension: { name: 'State', values: documentStates },
  },
  paymentsRecorded: {
    name: 'PaymentsRecorded',
    unit: MetricUnit.Count,
    description: 'Payments recorded (POST /Payment, 201).',
  },
  refunds: {
    name: 'Refunds',
    unit: MetricUnit.Count,
    description: 'Refunds made inline (201) or accepted into the payments queue (202), by mode.',
    dimension: { name: 'Mode', values: refundModes },
  },
  refundFailures: {
    name: 'RefundFailures',
    unit: MetricUnit.Count,
    description: 'Refunds that failed after being asked for: contention that outlasted the retries (503), a queue that could not take the refund, a queued refund marked Failed on its last receive; by mode.',
    dimension: { name: 'Mode', values: refundModes },
  },
  refundedAmount: {
    name: 'RefundedAmountMinor',
    unit: MetricUnit.NoUnit,
    description: 'Amount refunded, in the currency\'s minor units (cents for AUD), when a refund is done (inline at once, queued when the consumer completes it), per currency. Sum per period is the refunded total.',
    dimension: { name: 'Currency', values: [] },
  },
  taskRuns: {
    name: 'TaskRuns',
    unit: MetricUnit.Count,
    description: 'Scheduled-task firings recorded (duplicates not counted), by outcome: Run, or Skipped because of a Misfire, a StaleVersion schedule or a Disabled task.',
    dimension: { name: 'Outcome', values: taskRunOutcomes },
  },
  scheduleSyncsPending: {
    name: 'ScheduleSyncsPending',
    unit: MetricUnit.Count,
    description: 'Task saves whose scheduler call failed: the task is Pending and a sync retry is queued.',
  },
  scheduleSyncRetries: {
    name: 'ScheduleSyncRetries',
    unit: MetricUnit.Count,
    description: 'Schedule-sync retries by outcome: Synced, Stale (a message of an older version: the newest version synced in its stead, written only when the schedule was not in line), Gone (the task no longer exists), Failed (the scheduler still fails; the message comes back).',
    dimension: { name: 'Outcome', values: scheduleSyncOutcomes },
  },
  receiptsCompleted: {
    name: 'ReceiptsCompleted',
    unit: MetricUnit.Count,
    description: 'Delivery receipts that became Complete, by mode: Single (one transaction, in the request) or Chunked (the last chunk, in the completions consumer).',
    dimension: { name: 'Mode', values: completionModes },
  },
  linesReceived: {
    name: 'ReceiptLinesReceived',
    unit: MetricUnit.Count,
    description: 'Receipt lines that received stock, counted when their receipt becomes Complete.',
  },
  completionChunks: {
    name: 'CompletionChunks',
    unit: MetricUnit.Count,
    description: 'Chunks of chunked receipt completions committed by the completions consumer (one transaction each).',
  },
} as const satisfies Record<string, MetricDefinition>;

export type BusinessMetric = keyof typeof businessMetrics;
type Definition<M extends BusinessMetric> = (typeof businessMetrics)[M];
/** The dimension value a metric takes: one of its closed list (currencies: a code money/ accepted). */
type DimensionValue<M extends BusinessMetric> =
  Definition<M> extends { readonly dimension: { readonly values: readonly [] } }
    ? string
    : Definition<M> extends { readonly dimension: { readonly values: readonly (infer V)[] } }
      ? V
      : never;

export type WebhookRefusalReason = (typeof webhookRefusalReasons)[number];
export type DocumentStateDimension = (typeof documentStates)[number];

let metrics: Metrics | undefined;

/** The one Metrics instance (namespace and `service` dimension), created on the first metric. */
const metricsInstance = (): Metrics => (metrics ??= new Metrics({ namespace: metricsNamespace, serviceName: metricsServiceName }));

const emit = (metric: MetricDefinition, value: number, dimensionValue?: string): void => {
  try {
    const single = metricsInstance().singleMetric();
    if (metric.dimension && dimensionValue !== undefined) single.addDimension(metric.dimension.name, dimensionValue);
    single.addMetric(metric.name, metric.unit, value);
  } catch {
    // A metric is never worth failing the work it describes.
  }
};

/** The arguments after the metric: its dimension's value first when it has one, then the value (1 by default). */
type MetricArguments<M extends BusinessMetric> = Definition<M> extends { readonly dimension: object }
  ? [dimensionValue: DimensionValue<M>, value?: number]
  : [value?: number];

/** Emits one data point of a business metric now: `countMetric('refunds', 'Inline')`, `countMetric('paymentsRecorded')`. */
export const countMetric = <M extends BusinessMetric>(metric: M, ...args: MetricArguments<M>): void => {
  const definition: MetricDefinition = businessMetrics[metric];
  if (definition.dimension) emit(definition, (args[1] as number | undefined) ?? 1, args[0] as string);
  else emit(definition, (args[0] as number | undefined) ?? 1);
};
