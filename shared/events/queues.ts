// Platform: the one list of the service's queues, each declared by `defineQueue`: its name, its message contract and
// its settings, from which its dead-letter queue, its names (CloudFormation, local), the variable a sender is given
// its URL in and the grant that allows sending to it (`send<Queue>`) derive. The CDK data stack, the API stack
// (consumers, alarms), the grants (shared/operations/grants.ts), the local provisioning and the local event source
// mappings all iterate `queueDefinitions`: adding a queue is one definition here and, when it is consumed, its
// consumer's module (a sender names the queue's send grant in its manifest entry). The consumer and publisher
// mechanisms are in shared/messaging/.

import { QueuedDocumentEvent } from '#shared/compiled/schemas/messages/document-events';
import { CompletionMessage } from '#shared/compiled/schemas/messages/delivery-receipts';
import { QueuedRefund } from '#shared/compiled/schemas/messages/payments';
import { ScheduleSyncQueueMessage, TaskRunMessage, TaskWorkMessage } from '#shared/compiled/schemas/messages/scheduled-tasks';
import type { IndexName, TableAction } from '#shared/data/table';
import { jsonMessage, type MessageContract } from './message-contract';
import type { ServiceGrant } from './resource-grants';

export const consumerTimeoutSeconds = 30;
const maxBatchingWindowSeconds = 1;
/** Six times the consumer's timeout plus the batching window: AWS's rule for Lambda event sources. */
const lambdaVisibilityTimeoutSeconds = consumerTimeoutSeconds * 6 + maxBatchingWindowSeconds;
const fourDays = 4 * 24 * 60 * 60;
/** The SQS maximum, counted from the original send for a standard queue. */
const fourteenDays = 14 * 24 * 60 * 60;
/** Receives before a message goes to the dead-letter queue, unless a queue says otherwise. */
const defaultMaxReceiveCount = 5;

/** The grant that allows sending to a queue, derived from its name: `sendReceiptCompletions`. */
export type SendGrant<Name extends string = string> = `send${Capitalize<Name>}`;

/** What every queue definition holds. */
export interface QueueDefinition<T = unknown, Grant extends string = ResourceGrant> {
  /** The key grants and resources use (`documentEvents`). */
  readonly name: string;
  /** What its senders put on it and its consumer reads (message-contract.ts). */
  readonly message: MessageContract<T>;
  /** The grant (shared/operations/grants.ts) that allows a function to send to it, with its URL: `sendDocumentEvents`. */
  readonly sendGrant: SendGrant;
  /** CloudFormation logical id, and the queue name's suffix on AWS (`<stack>-<logicalName>`): `DocumentEvents`. */
  readonly logicalName: string;
  /** Its name on the local SQS server: `document-events`. */
  readonly localQueueName: string;
  /** The environment variable a sending function reads the queue's URL from (set by its send grant): `DOCUMENT_EVENTS_QUEUE_URL`. */
  readonly urlVariable: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionPeriodSeconds: number;
  readonly maximumMessageBytes: number;
  readonly deadLetterQueue: {
    /** `DocumentEventsDlq` */
    readonly logicalName: string;
    /** `document-events-dlq` */
    readonly localQueueName: string;
    readonly maxReceiveCount: number;
    readonly retentionPeriodSeconds: number;
  };
  readonly eventSource?: QueueEventSource;
  /** The function the event source mapping invokes (a module exporting `handler`), and its rights. */
  readonly consumer?: QueueConsumerDefinition<Grant>;
}

export interface QueueEventSource {
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly maximumConcurrency: number;
  readonly reportBatchItemFailures: boolean;
}

export interface QueueConsumerDefinition<Grant extends string = ResourceGrant> {
  readonly name: string;
  /** The function's description (AWS console, Lambda's 256 characters at most). */
  readonly description: string;
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly tableAccess: readonly TableAction[];
  /** The indexes it queries, by name (shared/data/table.ts; granted one by one, as for operations). */
  readonly tableIndexes?: readonly IndexName[];
  /** Resource grants of the consumer besides its table and its own queue (shared/operations/grants.ts). */
  readonly grants?: readonly Grant[];
}

/** A queue this API consumes: both its event source and its consumer are declared. */
export type ConsumedQueueDefinition<T = unknown, Grant extends string = ResourceGrant> = QueueDefinition<T, Grant> & {
  readonly eventSource: QueueEventSource;
  readonly consumer: QueueConsumerDefinition<Grant>;
};

/** A queue this API only sends to (its consumers live elsewhere). */
export type UnconsumedQueueDefinition<T = unknown> = Omit<QueueDefinition<T, never>, 'eventSource' | 'consumer'>;

/** What a queue declares; `defineQueue` derives the rest. */
export interface QueueSettings<Name extends string = string, T = unknown, Grant extends string = string> {
  /** camelCase: `documentEvents`. */
  readonly name: Name;
  /** Its message contract: `jsonMessage(<name in log lines>, <compiled schema>)`. */
  readonly message: MessageContract<T>;
  readonly maximumMessageBytes: number;
  /** Default: four days. */
  readonly retentionPeriodSeconds?: number;
  /** Default: 6 x the consumers' timeout + the batching window (AWS's rule for a Lambda consumer). */
  readonly visibilityTimeoutSeconds?: number;
  /** Default: 5. */
  readonly maxReceiveCount?: number;
  /** With a consumer: how Lambda reads the queue. Partial batch responses (ReportBatchItemFailures) are always on. */
  readonly eventSource?: { readonly batchSize: number; readonly maximumConcurrency: number };
  /**
   * Its timeout is `consumerTimeoutSeconds`; its handler module is named after the queue, in its area's folder:
   * `functions/<area>/consume-<queue>.ts` (`functions/payments/consume-payments.ts`).
   */
  readonly consumer?: Omit<QueueConsumerDefinition<Grant>, 'timeoutSeconds' | 'handler'> & { readonly area: string };
}

/** `documentEvents` -> `DocumentEvents`, `document-events`, `DOCUMENT_EVENTS`. */
const wordsOf = (name: string): string[] => name.split(/(?=[A-Z])/).map((word) => word.toLowerCase());

/**
 * The environment variable a queue's send grant sets its URL in, from the grant's name alone:
 * `sendDocumentEvents` -> `DOCUMENT_EVENTS_QUEUE_URL`. `defineQueue` names `urlVariable` with it, and a function's
 * environment check (shared/operations/environment.ts) with it too, so that check needs no queue definition: a
 * definition carries its message's validator, and a function bundles only the queues it sends to or consumes.
 */
export const queueUrlVariableOf = (sendGrant: SendGrant): string => `${wordsOf(sendGrant.slice('send'.length)).join('_').toUpperCase()}_QUEUE_URL`;
const pascal = (words: readonly string[]) => words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');

const consumerOf = <Grant extends string>(
  { area, ...consumer }: NonNullable<QueueSettings<string, unknown, Grant>['consumer']>,
  localQueueName: string,
): QueueConsumerDefinition<Grant> => {
  if (!/^[a-z]+(-[a-z]+)*$/.test(area)) throw new Error(`An area's folder is kebab-case: ${area}`);
  return { ...consumer, handler: `functions/${area}/consume-${localQueueName}.ts`, timeoutSeconds: consumerTimeoutSeconds };
};

/** What a definition says of its name: the name itself and its send grant, as literal types. */
interface Named<Name extends string> {
  readonly name: Name;
  readonly sendGrant: SendGrant<Name>;
}

/**
 * A queue's full definition from its settings; with a consumer, its event source too. The consumer's grants are
 * typed as written (`Grant`) and checked against `ResourceGrant` by `consumedQueueDefinitions`' type below, since
 * the queues' own send grants are only known once every queue is defined.
 */
/* @__NO_SIDE_EFFECTS__ */
export function defineQueue<const Name extends string, T, const Grant extends string = never>(
  settings: QueueSettings<Name, T, Grant> & Required<Pick<QueueSettings<Name, T, Grant>, 'eventSource' | 'consumer'>>,
): ConsumedQueueDefinition<T, Grant> & Named<Name>;
export function defineQueue<const Name extends string, T>(settings: QueueSettings<Name, T, never>): UnconsumedQueueDefinition<T> & Named<Name>;
export function defineQueue<const Name extends string, T, Grant extends string>(
  settings: QueueSettings<Name, T, Grant>,
): QueueDefinition<T, Grant> & Named<Name> {
  if (!/^[a-z][a-zA-Z0-9]*$/.test(settings.name)) throw new Error(`A queue's name is camelCase: ${settings.name}`);
  if ((settings.eventSource === undefined) !== (settings.consumer === undefined)) {
    throw new Error(`${settings.name}: a consumed queue declares both its event source and its consumer`);
  }
  const words = wordsOf(settings.name);
  const logicalName = pascal(words);
  const localQueueName = words.join('-');
  const sendGrant: SendGrant<Name> = `send${logicalName}` as SendGrant<Name>;
  return {
    name: settings.name,
    message: settings.message,
    sendGrant,
    logicalName,
    localQueueName,
    urlVariable: queueUrlVariableOf(sendGrant),
    visibilityTimeoutSeconds: settings.visibilityTimeoutSeconds ?? lambdaVisibilityTimeoutSeconds,
    retentionPeriodSeconds: settings.retentionPeriodSeconds ?? fourDays,
    maximumMessageBytes: settings.maximumMessageBytes,
    deadLetterQueue: {
      logicalName: `${logicalName}Dlq`,
      localQueueName: `${localQueueName}-dlq`,
      maxReceiveCount: settings.maxReceiveCount ?? defaultMaxReceiveCount,
      retentionPeriodSeconds: fourteenDays,
    },
    ...(settings.eventSource && settings.consumer
      ? {
          eventSource: { ...settings.eventSource, maxBatchingWindowSeconds, reportBatchItemFailures: true },
          consumer: consumerOf(settings.consumer, localQueueName),
        }
      : {}),
  };
}

export const documentEventsQueue = /* @__PURE__ */ defineQueue({
  name: 'documentEvents',
  /** A verified provider event (shared/schemas/messages/document-events.ts). */
  message: /* @__PURE__ */ jsonMessage('document event', QueuedDocumentEvent),
  /** SQS's own message limit (256 KiB; a literal, as `256 * 1024` would keep this definition in every bundle: esbuild does not fold it before tree-shaking); the webhook answers 413 above it. */
  maximumMessageBytes: 262_144,
  eventSource: {
    /** Ten records per invoke: each record is one DynamoDB transaction, so a batch stays well inside the timeout. */
    batchSize: 10,
    /** Caps the consumer's concurrency so a burst of events cannot exhaust the table's or account's capacity. */
    maximumConcurrency: 10,
  },
  consumer: {
    name: 'documentEventsConsumer',
    description: 'SQS document-events consumer: applies each provider event to the document state, exactly once',
    area: 'document-events',
    // Query and UpdateItem: a repeat signed earlier than the delivery applied lowers the event's `t` and rebuilds the
    // state from the document's partition (shared/document-events/repository.ts `lowerTime`).
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
  },
});

/**
 * The payments queue: queued refunds (`IsQueue` / `IsSaveAutoQueue`) wait here, their amount already reserved on the
 * payment, until the consumer completes them. A refund that keeps failing is marked Failed (its reservation
 * released) on its last receive and then lands in the DLQ.
 */
export const paymentsQueue = /* @__PURE__ */ defineQueue({
  name: 'payments',
  /** A queued refund, by tenant and ID (shared/schemas/messages/payments.ts). */
  message: /* @__PURE__ */ jsonMessage('queued refund', QueuedRefund),
  /** A message names a refund (`{"tenantId":1,"refundId":8}`); anything near this size is not one. */
  maximumMessageBytes: 1024,
  eventSource: {
    batchSize: 10,
    /** Refunds of one payment contend for its item; a few consumers at once are plenty. */
    maximumConcurrency: 5,
  },
  consumer: {
    name: 'paymentsConsumer',
    description: 'SQS payments consumer: completes queued refunds; marks one Failed and releases its amount on its last receive',
    area: 'payments',
    /** Read the refund; settle it in one transaction (refund Put, link and payment Updates). */
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  },
});

/** The environment variable of the payments queue's URL (set with the `sendPayments` grant). */
export const paymentsQueueUrlVariable = /* @__PURE__ */ (() => paymentsQueue.urlVariable)(); // read in a pure call: a bare property read would keep the payments queue in every bundle

/**
 * Scheduled-task runs: the target of every task's EventBridge Scheduler schedule (and of the local scheduler
 * emulation). Each message is a `TaskRunMessage` (shared/scheduled-tasks/messages.ts); the consumer records the run
 * once and publishes the due work. The scheduler sends with its execution role; the one function that sends here is
 * the schedule-sync consumer, for a one-off task whose time passed before its schedule could be written.
 * Retention: four days (the default): a run older than one interval is a misfire anyway, but a weekly task's run
 * must survive a weekend.
 */
export const taskRunsQueue = /* @__PURE__ */ defineQueue({
  name: 'taskRuns',
  message: /* @__PURE__ */ jsonMessage('task run', TaskRunMessage),
  /** The scheduler's Input is a `TaskRunMessage` of about 100 bytes; a larger message is not one. */
  maximumMessageBytes: 1024,
  eventSource: {
    batchSize: 10,
    /** Runs of different tasks touch different partitions; ten at once drain a top-of-the-hour burst quickly. */
    maximumConcurrency: 10,
  },
  consumer: {
    name: 'scheduledTaskRunsConsumer',
    description: 'SQS task-runs consumer: records each scheduled run once, then publishes the due work to the task-work queue',
    area: 'scheduled-tasks',
    /** Read the task; write the run item once (conditional Put); advance the task (Update conditional on Version). */
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    grants: ['sendTaskWork'],
  },
});

/**
 * Due task work: one `TaskWorkMessage` per run, for the workers of each `TaskTypeID`. No worker exists in this API:
 * the queue and its message contract are the integration point. Its visibility timeout (the default) suits a Lambda
 * worker with the consumers' 30 s timeout; a worker that needs longer changes it here.
 */
export const taskWorkQueue = /* @__PURE__ */ defineQueue({
  name: 'taskWork',
  /** Consumed outside this API; its sender checks each message against it. */
  message: /* @__PURE__ */ jsonMessage('task work', TaskWorkMessage),
  /** A `TaskWorkMessage` is about 200 bytes. */
  maximumMessageBytes: 2048,
});

/**
 * Schedule retries: a save whose scheduler call failed (the task stored with `ScheduleState: Pending`) enqueues a
 * `ScheduleSyncMessage`; the consumer reads the task and brings its schedule in line, retrying with the visibility
 * timeout. Ten receives at about three minutes each ride out half an hour of scheduler trouble before the DLQ alarm.
 * The schedule reconciler's own schedule (shared/scheduled-tasks/reconciler.ts) sends a `ScheduleReconcileMessage`
 * here every few minutes; the consumer then syncs every task its sparse index lists.
 */
export const scheduleSyncQueue = /* @__PURE__ */ defineQueue({
  name: 'scheduleSync',
  /** One task's sync retry, or the reconciler's firing. */
  message: /* @__PURE__ */ jsonMessage('schedule-sync message', ScheduleSyncQueueMessage),
  maximumMessageBytes: 1024,
  maxReceiveCount: 10,
  eventSource: {
    batchSize: 10,
    /** Stays far below the scheduler's API rate quotas (CreateSchedule/UpdateSchedule: 50 per second by default). */
    maximumConcurrency: 2,
  },
  consumer: {
    name: 'scheduleSyncConsumer',
    description: 'SQS schedule-sync consumer: brings a task\'s EventBridge Scheduler schedule in line with the stored task; reconciles out-of-line tasks',
    area: 'scheduled-tasks',
    /** Read the task; record its ScheduleState (Update conditional on Version); the reconciler Queries its sparse index. */
    tableAccess: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
    tableIndexes: ['gsi6'],
    /**
     * Schedules; a one-off task's run whose time passed before its schedule could be written (`sendTaskRuns`); and a
     * delayed retry of its own (`sendScheduleSync`) for a newer version a failed reconciler step listed again, which
     * that version's own confirmation may take off the index before this step's late write lands.
     */
    grants: ['manageSchedules', 'sendTaskRuns', 'sendScheduleSync'],
  },
});

/**
 * Delivery-receipt completions too large for one transaction: the save moves the receipt to `Completing` and
 * enqueues one message; the consumer applies the stock effects chunk by chunk.
 */
export const receiptCompletionsQueue = /* @__PURE__ */ defineQueue({
  name: 'receiptCompletions',
  /** A chunked completion: `{"tenantId":1,"receiptId":8,"completionId":"<uuid>"}` (shared/schemas/messages/delivery-receipts.ts). */
  message: /* @__PURE__ */ jsonMessage('receipt completion message', CompletionMessage),
  /** A message names a receipt and its version. */
  maximumMessageBytes: 1024,
  eventSource: {
    /** One completion can be many transactions: small batches keep an invocation well inside its timeout. */
    batchSize: 1,
    /** Completions of one warehouse contend for its stock items. */
    maximumConcurrency: 2,
  },
  consumer: {
    name: 'receiptCompletionsConsumer',
    description: 'SQS receipt-completions consumer: applies a large delivery receipt\'s stock effects, chunk by chunk',
    area: 'delivery-receipts',
    /** Read the header and frozen lines; apply each chunk in a transaction (Put, Update, ConditionCheck). */
    tableAccess: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
    /** A pass out of time hands the remaining chunks to a fresh message on this queue (functions/delivery-receipts/consume-receipt-completions.ts). */
    grants: ['sendReceiptCompletions'],
  },
});

/** Every queue of the service, in a fixed order (CDK construct order, local provisioning order). */
export const queueDefinitions = [
  documentEventsQueue,
  paymentsQueue,
  taskRunsQueue,
  taskWorkQueue,
  scheduleSyncQueue,
  receiptCompletionsQueue,
] as const;

export type QueueName = (typeof queueDefinitions)[number]['name'];

/** The grants that allow sending to one of the queues. */
export type QueueSendGrant = (typeof queueDefinitions)[number]['sendGrant'];

/** Every grant a function may hold besides the table: a queue's send grant, or a service's (resource-grants.ts). */
export type ResourceGrant = QueueSendGrant | ServiceGrant;

/**
 * The queues this API consumes, each with its consumer. The type is the consumers' grants check: a consumer naming a
 * grant that is not a `ResourceGrant` fails to compile here.
 */
export const consumedQueueDefinitions: readonly ConsumedQueueDefinition[] = /* @__PURE__ */ queueDefinitions.filter(
  (definition) => 'consumer' in definition,
) as readonly Extract<(typeof queueDefinitions)[number], { readonly consumer: unknown }>[];

/** A queue definition by its name. */
export const queueDefinitionNamed = (name: QueueName): QueueDefinition => {
  const found = queueDefinitions.find((definition) => definition.name === name);
  if (!found) throw new Error(`No queue named ${name}`);
  return found;
};
