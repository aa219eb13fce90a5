// Messaging: the one list of the service's queues. Each definition is a queue, its dead-letter queue, the variable
// a sender is given its URL in, and (for a queue this API consumes) its consumer and event source mapping. The CDK
// data stack, the API stack (consumers, alarms), the grants (shared/operations/grants.ts), the local provisioning
// and the local event source mappings all iterate `queueDefinitions`: adding a queue is one definition here (plus,
// when a function sends to it, one grant entry).

import type { IndexName, TableAction } from '../data/table';
import type { ResourceGrant } from '../operations/grants';

export const consumerTimeoutSeconds = 30;
const maxBatchingWindowSeconds = 1;
/** Six times the consumer's timeout plus the batching window: AWS's rule for Lambda event sources. */
const lambdaVisibilityTimeoutSeconds = consumerTimeoutSeconds * 6 + maxBatchingWindowSeconds;
const fourDays = 4 * 24 * 60 * 60;
/** The SQS maximum, counted from the original send for a standard queue. */
const fourteenDays = 14 * 24 * 60 * 60;

/** What every queue definition holds. */
export interface QueueDefinition {
  /** The key grants and resources use (`documentEvents`). */
  readonly name: string;
  /** CloudFormation logical id, and the queue name's suffix on AWS (`<stack>-<logicalName>`). */
  readonly logicalName: string;
  /** Its name on the local SQS server. */
  readonly localQueueName: string;
  /** The environment variable a sending function reads the queue's URL from (set by its send grant). */
  readonly urlVariable: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionPeriodSeconds: number;
  readonly maximumMessageBytes: number;
  readonly deadLetterQueue: {
    readonly logicalName: string;
    readonly localQueueName: string;
    readonly maxReceiveCount: number;
    readonly retentionPeriodSeconds: number;
  };
  readonly eventSource?: QueueEventSource;
  /** The function the event source mapping invokes (a module exporting `handler`), and its rights. */
  readonly consumer?: QueueConsumerDefinition;
}

export interface QueueEventSource {
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly maximumConcurrency: number;
  readonly reportBatchItemFailures: boolean;
}

export interface QueueConsumerDefinition {
  readonly name: string;
  /** The function's description (AWS console, Lambda's 256 characters at most). */
  readonly description: string;
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly tableAccess: readonly TableAction[];
  /** The indexes it queries, by name (shared/data/table.ts; granted one by one, as for operations). */
  readonly tableIndexes?: readonly IndexName[];
  /** Resource grants of the consumer besides its table and its own queue (shared/operations/grants.ts). */
  readonly grants?: readonly ResourceGrant[];
}

/** A queue this API consumes: both its event source and its consumer are declared. */
export type ConsumedQueueDefinition = QueueDefinition & { readonly eventSource: QueueEventSource; readonly consumer: QueueConsumerDefinition };

export const documentEventsQueue = {
  name: 'documentEvents',
  logicalName: 'DocumentEvents',
  localQueueName: 'document-events',
  urlVariable: 'DOCUMENT_EVENTS_QUEUE_URL',
  visibilityTimeoutSeconds: lambdaVisibilityTimeoutSeconds,
  /** Four days: covers a weekend outage of the consumer with margin. */
  retentionPeriodSeconds: fourDays,
  /** SQS's own message limit; the webhook answers 413 above it. */
  maximumMessageBytes: 256 * 1024,
  deadLetterQueue: {
    logicalName: 'DocumentEventsDlq',
    localQueueName: 'document-events-dlq',
    maxReceiveCount: 5,
    retentionPeriodSeconds: fourteenDays,
  },
  eventSource: {
    /** Ten records per invoke: each record is one DynamoDB transaction, so a batch stays well inside the timeout. */
    batchSize: 10,
    /** Short window: events are small and users watch a document's state change, so latency beats batching. */
    maxBatchingWindowSeconds,
    /** Caps the consumer's concurrency so a burst of events cannot exhaust the table's or account's capacity. */
    maximumConcurrency: 10,
    reportBatchItemFailures: true,
  },
  consumer: {
    name: 'documentEventsConsumer',
    description: 'SQS document-events consumer: applies each provider event to the document state, exactly once',
    handler: 'functions/document-events/consume.ts',
    timeoutSeconds: consumerTimeoutSeconds,
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem'] as readonly TableAction[],
  },
} as const satisfies ConsumedQueueDefinition;

/**
 * The payments queue: queued refunds (`IsQueue` / `IsSaveAutoQueue`) wait here, their amount already reserved on the
 * payment, until the consumer completes them. A refund that keeps failing is marked Failed (its reservation
 * released) on its last receive and then lands in the DLQ.
 */
export const paymentsQueue = {
  name: 'payments',
  logicalName: 'Payments',
  localQueueName: 'payments',
  urlVariable: 'PAYMENTS_QUEUE_URL',
  visibilityTimeoutSeconds: lambdaVisibilityTimeoutSeconds,
  retentionPeriodSeconds: fourDays,
  /** A message names a refund (`{"tenantId":1,"refundId":8}`); anything near this size is not one. */
  maximumMessageBytes: 1024,
  deadLetterQueue: {
    logicalName: 'PaymentsDlq',
    localQueueName: 'payments-dlq',
    maxReceiveCount: 5,
    retentionPeriodSeconds: fourteenDays,
  },
  eventSource: {
    batchSize: 10,
    maxBatchingWindowSeconds,
    /** Refunds of one payment contend for its item; a few consumers at once are plenty. */
    maximumConcurrency: 5,
    reportBatchItemFailures: true,
  },
  consumer: {
    name: 'paymentsConsumer',
    description: 'SQS payments consumer: completes queued refunds; marks one Failed and releases its amount on its last receive',
    handler: 'functions/payment/consume-refunds.ts',
    timeoutSeconds: consumerTimeoutSeconds,
    /** Read the refund; settle it in one transaction (refund Put, link and payment Updates). */
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as readonly TableAction[],
  },
} as const satisfies ConsumedQueueDefinition;

/** The environment variable of the payments queue's URL (set with the `sendPayments` grant). */
export const paymentsQueueUrlVariable = paymentsQueue.urlVariable;

/**
 * Scheduled-task runs: the target of every task's EventBridge Scheduler schedule (and of the local scheduler
 * emulation). Each message is a `TaskRunMessage` (shared/scheduled-tasks/messages.ts); the consumer records the run
 * once and publishes the due work. The scheduler sends with its execution role; the one function that sends here is
 * the schedule-sync consumer, for a one-off task whose time passed before its schedule could be written.
 */
export const taskRunsQueue = {
  name: 'taskRuns',
  logicalName: 'TaskRuns',
  localQueueName: 'task-runs',
  urlVariable: 'TASK_RUNS_QUEUE_URL',
  visibilityTimeoutSeconds: lambdaVisibilityTimeoutSeconds,
  /** Four days: a run older than one interval is a misfire anyway, but a weekly task's run must survive a weekend. */
  retentionPeriodSeconds: fourDays,
  /** The scheduler's Input is a `TaskRunMessage` of about 100 bytes; a larger message is not one. */
  maximumMessageBytes: 1024,
  deadLetterQueue: {
    logicalName: 'TaskRunsDlq',
    localQueueName: 'task-runs-dlq',
    maxReceiveCount: 5,
    retentionPeriodSeconds: fourteenDays,
  },
  eventSource: {
    batchSize: 10,
    maxBatchingWindowSeconds,
    /** Runs of different tasks touch different partitions; ten at once drain a top-of-the-hour burst quickly. */
    maximumConcurrency: 10,
    reportBatchItemFailures: true,
  },
  consumer: {
    name: 'scheduledTaskRunsConsumer',
    description: 'SQS task-runs consumer: records each scheduled run once, then publishes the due work to the task-work queue',
    handler: 'functions/scheduled-task/record-runs.ts',
    timeoutSeconds: consumerTimeoutSeconds,
    /** Read the task; write the run item once (conditional Put); advance the task (Update conditional on Version). */
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as readonly TableAction[],
    grants: ['sendTaskWork'],
  },
} as const satisfies ConsumedQueueDefinition;

/**
 * Due task work: one `TaskWorkMessage` per run, for the workers of each `TaskTypeID`. No worker exists in this API:
 * the queue and its message contract are the integration point. Its visibility timeout suits a Lambda worker with
 * the consumers' 30 s timeout; a worker that needs longer changes it here.
 */
export const taskWorkQueue = {
  name: 'taskWork',
  logicalName: 'TaskWork',
  localQueueName: 'task-work',
  urlVariable: 'TASK_WORK_QUEUE_URL',
  visibilityTimeoutSeconds: lambdaVisibilityTimeoutSeconds,
  retentionPeriodSeconds: fourDays,
  /** A `TaskWorkMessage` is about 200 bytes. */
  maximumMessageBytes: 2048,
  deadLetterQueue: {
    logicalName: 'TaskWorkDlq',
    localQueueName: 'task-work-dlq',
    maxReceiveCount: 5,
    retentionPeriodSeconds: fourteenDays,
  },
} as const satisfies QueueDefinition;

/**
 * Schedule retries: a save whose scheduler call failed (the task stored with `ScheduleState: Pending`) enqueues a
 * `ScheduleSyncMessage`; the consumer reads the task and brings its schedule in line, retrying with the visibility
 * timeout. Ten receives at about three minutes each ride out half an hour of scheduler trouble before the DLQ alarm.
 * The schedule reconciler's own schedule (shared/scheduled-tasks/reconciler.ts) sends a `ScheduleReconcileMessage`
 * here every few minutes; the consumer then syncs every task its sparse index lists.
 */
export const scheduleSyncQueue = {
  name: 'scheduleSync',
  logicalName: 'ScheduleSync',
  localQueueName: 'schedule-sync',
  urlVariable: 'SCHEDULE_SYNC_QUEUE_URL',
  visibilityTimeoutSeconds: lambdaVisibilityTimeoutSeconds,
  retentionPeriodSeconds: fourDays,
  maximumMessageBytes: 1024,
  deadLetterQueue: {
    logicalName: 'ScheduleSyncDlq',
    localQueueName: 'schedule-sync-dlq',
    maxReceiveCount: 10,
    retentionPeriodSeconds: fourteenDays,
  },
  eventSource: {
    batchSize: 10,
    maxBatchingWindowSeconds,
    /** Stays far below the scheduler's API rate quotas (CreateSchedule/UpdateSchedule: 50 per second by default). */
    maximumConcurrency: 2,
    reportBatchItemFailures: true,
  },
  consumer: {
    name: 'scheduleSyncConsumer',
    description: 'SQS schedule-sync consumer: brings a task\'s EventBridge Scheduler schedule in line with the stored task; reconciles out-of-line tasks',
    handler: 'functions/scheduled-task/sync-schedule.ts',
    timeoutSeconds: consumerTimeoutSeconds,
    /** Read the task; record its ScheduleState (Update conditional on Version); the reconciler Queries its sparse index. */
    tableAccess: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'] as readonly TableAction[],
    tableIndexes: ['gsi6'] as readonly IndexName[],
    /** Schedules; and a one-off task's run whose time passed before its schedule could be written (`sendTaskRuns`). */
    grants: ['manageSchedules', 'sendTaskRuns'],
  },
} as const satisfies ConsumedQueueDefinition;

/**
 * Delivery-receipt completions too large for one transaction: the save moves the receipt to `Completing` and
 * enqueues one message; the consumer applies the stock effects chunk by chunk.
 */
export const receiptCompletionsQueue = {
  name: 'receiptCompletions',
  logicalName: 'ReceiptCompletions',
  localQueueName: 'receipt-completions',
  urlVariable: 'RECEIPT_COMPLETIONS_QUEUE_URL',
  visibilityTimeoutSeconds: lambdaVisibilityTimeoutSeconds,
  retentionPeriodSeconds: fourDays,
  /** A message names a receipt and its version. */
  maximumMessageBytes: 1024,
  deadLetterQueue: {
    logicalName: 'ReceiptCompletionsDlq',
    localQueueName: 'receipt-completions-dlq',
    maxReceiveCount: 5,
    retentionPeriodSeconds: fourteenDays,
  },
  eventSource: {
    /** One completion can be many transactions: small batches keep an invocation well inside its timeout. */
    batchSize: 1,
    maxBatchingWindowSeconds,
    /** Completions of one warehouse contend for its stock items. */
    maximumConcurrency: 2,
    reportBatchItemFailures: true,
  },
  consumer: {
    name: 'receiptCompletionsConsumer',
    description: 'SQS receipt-completions consumer: applies a large delivery receipt\'s stock effects, chunk by chunk',
    handler: 'functions/delivery-receipt/complete.ts',
    timeoutSeconds: consumerTimeoutSeconds,
    /** Read the header and frozen lines; apply each chunk in a transaction (Put, Update, ConditionCheck). */
    tableAccess: [
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:ConditionCheckItem',
    ] as readonly TableAction[],
    /** A pass out of time hands the remaining chunks to a fresh message on this queue (functions/delivery-receipt/complete.ts). */
    grants: ['sendReceiptCompletions'],
  },
} as const satisfies ConsumedQueueDefinition;

/** Every queue of the service, in a fixed order (CDK construct order, local provisioning order). */
export const queueDefinitions = [
  documentEventsQueue,
  paymentsQueue,
  taskRunsQueue,
  taskWorkQueue,
  scheduleSyncQueue,
  receiptCompletionsQueue,
] as const satisfies readonly QueueDefinition[];

export type QueueName = (typeof queueDefinitions)[number]['name'];

/** The queues this API consumes, each with its consumer. */
export const consumedQueueDefinitions: readonly ConsumedQueueDefinition[] = queueDefinitions.filter(
  (definition): definition is Extract<(typeof queueDefinitions)[number], ConsumedQueueDefinition> => 'consumer' in definition,
);

/** A queue definition by its name. */
export const queueDefinitionNamed = (name: QueueName): QueueDefinition => {
  const found = queueDefinitions.find((definition) => definition.name === name);
  if (!found) throw new Error(`No queue named ${name}`);
  return found;
};
