// Entry: the document-events queue's consumer. Each record is applied on its own; a record that fails is reported
// in the partial batch response (never failing its batch-mates) and, after maxReceiveCount receives, lands in the DLQ.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { documentStateService } from '../../shared/document-events';
import { QueuedDocumentEvent as queuedDocumentEvent } from '../../shared/compiled/document-events/message';
import type { QueuedDocumentEvent } from '../../shared/document-events/message';
import { documentEventTypes, isKnownType } from '../../shared/document-events/state';
import { describeError, logger } from '../../shared/observability/logger';
import { countMetric } from '../../shared/observability/metrics';

const documentEvents = documentStateService();

const applyRecord = async (record: SQSRecord): Promise<void> => {
  let message: QueuedDocumentEvent;
  try {
    message = queuedDocumentEvent.parse(JSON.parse(record.body));
  } catch (error) {
    // A message the webhook did not write: it can never succeed, so it goes to the DLQ after its receives.
    logger.error('unreadable document event', { messageId: record.messageId, ...describeError(error) });
    throw new Error('unreadable document event');
  }
  const outcome = await documentEvents.apply(message);
  const type = message.event.type;
  if (outcome === 'applied') countMetric('documentEvents', isKnownType(type) ? documentEventTypes[type].state : 'Unknown');
  if (!isKnownType(type)) {
    logger.warn('document event of an unknown type: kept in the history, state unchanged', { eventId: message.eventId, type: message.event.type });
  }
  logger.info('document event', {
    messageId: record.messageId,
    eventId: message.eventId,
    type: message.event.type,
    outcome,
    receiveCount: Number(record.attributes.ApproximateReceiveCount),
  });
};

export const handler = async (event: SQSEvent, context: Context) => {
  logger.addContext(context);
  // A processor per invocation: it holds the batch's records and failures, so a module-level one would mix the
  // reports of invocations that overlap in one process (the local event source mapping runs ten at once).
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(event, applyRecord, processor, { context, throwOnFullBatchFailure: false });
};
