// Entry: POST /Platform/DocumentAnalyser/Provider/Webhook: verify the provider's signature, enqueue, answer 202.
// No bearer token (authenticity is the signature); JSON only; bodies over the SQS message limit are refused (413).
import { providerWebhook } from '../../shared/compiled/operations/document-events';
import { httpOperation, respond } from '../../shared/http/operation';
import { webhookService } from '../../shared/document-events';

const documentEvents = webhookService();

export const handler = httpOperation(providerWebhook).handler(async ({ body }) => {
  const { eventId } = await documentEvents.accept(body);
  return respond(202, { eventId, status: 'queued' });
});
