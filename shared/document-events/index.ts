// Domain wiring: the document-events service of each function, built once per process from its environment.
// Each entry gets only what it uses: the webhook a publisher and secrets, the consumer and reader the table.
import { defaultTable, requireEnv } from '../data/client';
import { createEventPublisher } from './publisher';
import { createDocumentRepository } from './repository';
import { webhookSecretsFromEnv } from './secrets';
import { createDocumentEventsService, type DocumentEventsService } from './service';

export const webhookService = (): DocumentEventsService =>
  createDocumentEventsService({
    publisher: createEventPublisher(requireEnv('DOCUMENT_EVENTS_QUEUE_URL')),
    secrets: webhookSecretsFromEnv(),
  });

export const documentStateService = (): DocumentEventsService =>
  createDocumentEventsService({ repository: createDocumentRepository(defaultTable()) });
