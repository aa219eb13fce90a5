// Messaging: the one definition of the document-events queue, its dead-letter queue and the consumer's event
// source mapping. The CDK stack and the local stack (SQS server + emulated event source mapping) both read it.

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
