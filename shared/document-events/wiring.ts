// Wiring: builds the document-events area's parts once per cold start (the table's client, the repository, the
// queue publisher, the secrets source, the service) from the function's environment. The only file of the area a
// handler imports besides the state rules and the webhook's metrics. Each entry gets only what it uses: the webhook a
// publisher and secrets, the consumer and the read the store.
import { defaultTable } from '#shared/data/client';
import { createEventPublisher } from './publisher';
import { createDocumentRepository } from './repository';
import { webhookSecretsFromEnvironment } from './secrets';
import { createDocumentEventsService, type DocumentEventsService } from './service';

let webhook: DocumentEventsService | undefined;
/** The webhook's service: verifies with the active secrets and enqueues on the document-events queue. */
export const webhookService = (): DocumentEventsService =>
  (webhook ??= createDocumentEventsService({
    publisher: createEventPublisher(),
    secrets: webhookSecretsFromEnvironment(),
  }));

let documentState: DocumentEventsService | undefined;
/** The service of the queue's consumer and of the read: the document store on the function's table. */
export const documentStateService = (): DocumentEventsService =>
  (documentState ??= createDocumentEventsService({ store: createDocumentRepository(defaultTable()) }));
