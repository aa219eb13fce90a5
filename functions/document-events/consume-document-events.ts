// Entry: the document-events queue's consumer. Each record is applied on its own; a record that fails is reported
// in the partial batch response (never failing its batch-mates) and, after maxReceiveCount receives, lands in the DLQ.
import { documentStateService } from '#shared/document-events/wiring';
import { documentEventTypes, isKnownType } from '#shared/document-events/state';
import { documentEventsQueue } from '#shared/events/queues';
import { consumer } from '#shared/messaging/consumer';
import { logger } from '#shared/observability/logger';
import { countMetric } from '#shared/observability/metrics';

const documentEvents = documentStateService();

export const handler = consumer(documentEventsQueue, async (message, { messageId, receiveCount }) => {
  const outcome = await documentEvents.apply(message);
  const type = message.event.type;
  if (outcome === 'applied') countMetric('documentEvents', isKnownType(type) ? documentEventTypes[type].state : 'Unknown');
  if (!isKnownType(type)) logger.warn('document event of an unknown type: kept in the history, state unchanged', { eventId: message.eventId, type });
  logger.info('document event', { messageId, eventId: message.eventId, type, outcome, receiveCount });
});
