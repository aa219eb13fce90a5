// Messaging: the one definition of each queue (document events, payments), its dead-letter queue and its
// consumer's event source mapping. The CDK stack and the local stack (SQS server + emulated event source mapping)
// both read it.

import type { TableAction } from '../data/table';

export const consumerTimeoutSeconds = 30;
const maxBatchingWindowSeconds = 1;

export const documentEventsQueue = {
  logicalName: 'DocumentEvents',
  localQueueName: 'document-events',
  /** Six times the consumer's timeout plus the batching window: AWS's rule for Lambda event sources. */
  visibilityTimeoutSeconds: consumerTimeoutSeconds * 6 + maxBatchingWindowSeconds,
  /** Four days: covers a weekend outage of the consumer with margin. */
  retentionPeriodSeconds: 4 * 24 * 60 * 60,
  /** SQS's own message limit; the webhook answers 413 above it. */
  maximumMessageBytes: 256 * 1024,
  deadLetterQueue: {
    logicalName: 'DocumentEventsDlq',
    localQueueName: 'document-events-dlq',
    maxReceiveCount: 5,
    retentionPeriodSeconds: 14 * 24 * 60 * 60,
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
  /** The function the event source mapping invokes (a module exporting `handler`), and its table actions. */
  consumer: {
    name: 'documentEventsConsumer',
    handler: 'functions/document-events/consume.ts',
    timeoutSeconds: consumerTimeoutSeconds,
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem'] as readonly TableAction[],
  },
} as const;

/** The environment variable of the payments queue's URL (set with the `sendPayments` grant). */
export const paymentsQueueUrlVariable = 'PAYMENTS_QUEUE_URL';

/**
 * The payments queue: queued refunds (`IsQueue` / `IsSaveAutoQueue`) wait here, their amount already reserved on the
 * payment, until the consumer completes them. A refund that keeps failing is marked Failed (its reservation
 * released) on its last receive and then lands in the DLQ.
 */
export const paymentsQueue = {
  logicalName: 'Payments',
  localQueueName: 'payments',
  visibilityTimeoutSeconds: consumerTimeoutSeconds * 6 + maxBatchingWindowSeconds,
  retentionPeriodSeconds: 4 * 24 * 60 * 60,
  /** A message names a refund (`{"tenantId":1,"refundId":8}`); anything near this size is not one. */
  maximumMessageBytes: 1024,
  deadLetterQueue: {
    logicalName: 'PaymentsDlq',
    localQueueName: 'payments-dlq',
    maxReceiveCount: 5,
    retentionPeriodSeconds: 14 * 24 * 60 * 60,
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
    handler: 'functions/payment/consume-refunds.ts',
    timeoutSeconds: consumerTimeoutSeconds,
    /** Read the refund; settle it in one transaction (refund Put, link and payment Updates). */
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as readonly TableAction[],
  },
} as const;
