// Operations manifest: document events (the provider webhook and the document read endpoint).
import { documentEventsQueue } from '#shared/events/queues';
import { DocumentPath, DocumentStateView, WebhookAccepted, WebhookEventRequest } from '#shared/schemas/webhook';
import { defineOperation } from './operation';
export const providerWebhook = defineOperation({
  operationId: 'providerWebhook',
  summary: 'Receive one signed event from the document-analysis provider',
  description: 'Verifies the HMAC signature and queues the event; answers 202 only once the queue has accepted it.',
  area: 'document-events',
  method: 'POST',
  path: '/Platform/DocumentAnalyser/Provider/Webhook',
  module: 'webhook',
  auth: 'webhook-signature',
  media: 'json',
  requestBody: { schema: WebhookEventRequest, required: true },
  success: { status: 202, schema: WebhookAccepted, description: 'The event is verified and queued.' },
  problems: [400, 401, 406, 413, 415, 503],
  tableAccess: [],
  grants: ['sendDocumentEvents', 'readWebhookSecret'],
  maxBodyBytes: documentEventsQueue.maximumMessageBytes,
});

export const documentAnalyserGetDocument = defineOperation({
  operationId: 'documentAnalyserGetDocument',
  summary: "Get a document's tracked state and event history",
  description: "Beyond the spec: shows the state the webhook's events produced. Only to a token whose organisationId is the document's organisation; any other document answers 404.",
  area: 'document-events',
  method: 'GET',
  path: '/Platform/DocumentAnalyser/Documents/{documentId}',
  module: 'get-document',
  pathParameters: DocumentPath,
  success: { status: 200, schema: DocumentStateView, description: 'The document state, newest event first.' },
  problems: [400, 401, 404, 406],
  tableAccess: ['dynamodb:Query'],
});

export const documentEventOperations = [providerWebhook, documentAnalyserGetDocument] as const;
