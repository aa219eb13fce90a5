// OpenAPI examples: document events. The webhook's example is signed with the local stack's development secret at a
// fixed time, so as written it is stale and answers 401 (the signature's time must be within the tolerance of the
// server's clock): `npm run sign-event` signs it afresh (202), and the local stack's reference page has it signed
// afresh by the stack when it sends it (infra/local/webhook-signing.ts), so from the page it answers 202.
// The document read answers 200 once an event for `doc-1` of the token's organisation has been applied.
import { eventIdOf, localWebhookSecret, signEvent } from '#shared/schemas/webhook-signature';
import type { AreaExamples } from './types';

/** The provider's event, as infra/local/examples/document-uploaded.json has it. */
export const event = { type: 'document.uploaded', userId: 'u1', organisationId: 'org_1', data: { object: { id: 'doc-1' } } };
/** 2026-03-02T01:15:00Z. */
const signedAt = 1_772_414_100;
const eventId = eventIdOf(event);
const at = new Date(signedAt * 1000).toISOString();

export const documentEventExamples: AreaExamples = {
  operations: {
    providerWebhook: {
      requests: {
        uploaded: {
          summary: 'A document was uploaded (signed at a past time; the local reference page signs it now)',
          body: { ...event, signature: signEvent(event, localWebhookSecret, signedAt) },
        },
      },
      responses: { 202: { eventId, status: 'queued' } },
    },
    documentAnalyserGetDocument: {
      parameters: { documentId: 'doc-1' },
      responses: {
        200: {
          OrganisationID: 'org_1',
          DocumentID: 'doc-1',
          State: 'Uploaded',
          StateEventType: 'document.uploaded',
          StateEventID: eventId,
          UserID: 'u1',
          Object: { id: 'doc-1' },
          FirstEventDateTime_utc: at,
          LastEventDateTime_utc: at,
          EventCount: 1,
          Version: 1,
          Events: [{ EventID: eventId, Type: 'document.uploaded', Timestamp: signedAt, DateTime_utc: at, ReceivedDateTime_utc: at }],
        },
      },
    },
  },
  run: [
    {
      operationId: 'providerWebhook',
      request: 'uploaded',
      status: 401,
      pageStatus: 202,
      note: 'the example was signed at a past time; `npm run --silent sign-event -- infra/local/examples/document-uploaded.json` signs it now (202), as the local reference page does when it sends it',
    },
    {
      operationId: 'documentAnalyserGetDocument',
      status: 200,
      note: "needs an event for doc-1 of the token's organisation, signed and posted first (404 before)",
    },
  ],
};
