// Entry: GET /Platform/DocumentAnalyser/Documents/{documentId}: the tracked state of one of the caller's documents.
import { documentAnalyserGetDocument } from '#shared/compiled/operations/document-events';
import { httpOperation } from '#shared/http/operation';
import { documentStateService } from '#shared/document-events/wiring';

const documentEvents = documentStateService();

export const handler = httpOperation(documentAnalyserGetDocument).handler(({ principal, path }) =>
  documentEvents.get(principal, path.documentId),
);
