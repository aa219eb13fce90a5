// Entry: the document-events queue's consumer. Each record is applied on its own; a record that fails is reported
// in the partial batch response (never failing its batch-mates), logged with its error's class, and, after
// maxReceiveCount receives, lands in the DLQ.
import type { DocumentEventsService } from '#shared/document-events/service';
import { documentStateService } from '#shared/document-events/wiring';
import { documentEventTypes, isKnownType } from '#shared/document-events/state';
import { documentEventsQueue } from '#shared/events/queues';
import { consumer } from '#shared/messaging/consumer';
import { describeError, logger } from '#shared/observability/logger';
import { countMetric } from '#shared/observability/metrics';

/** The consumer over any service that applies events (the real one; tests wrap it to make applying fail). */
export const createDocumentEventsConsumer = (documentEvents: Pick<DocumentEventsService, 'apply'>) =>
  consumer(documentEventsQueue, async (message, { messageId, receiveCount, lastReceive }) => {
    const type = message.event.type;
    const outcome = await documentEvents.apply(message).catch((error: unknown) => {
      const line = { messageId, eventId: message.eventId, type, receiveCount, ...describeError(error) };
      if (lastReceive) logger.error('document event not applied, for good: it goes to the dead-letter queue', line);
      else logger.warn('document event not applied; it will be retried', line);
      throw error;
    });
    if (outcome === 'applied') countMetric('documentEvents', isKnownType(type) ? documentEventTypes[type].state : 'Unknown');
    if (!isKnownType(type)) logger.warn('document event of an unknown type: kept in the history, state unchanged', { eventId: message.eventId, type });
    logger.info('document event', { messageId, eventId: message.eventId, type, outcome, receiveCount });
  });

export const handler = createDocumentEventsConsumer(documentStateService());
