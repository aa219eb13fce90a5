// Data layer (document events): where documents live in the single table. One partition per document
// (`ORG#<organisation>#DOC#<document>`) holds the state item (`STATE`) and one item per event (`EVENT#<event id>`).
import { composeKey, type ItemKey } from '#shared/data/partition';

export const documentPartition = (organisationId: string, documentId: string) => composeKey('ORG', organisationId, 'DOC', documentId);

export const stateSortKey = 'STATE';

export const stateKey = (organisationId: string, documentId: string): ItemKey => ({ pk: documentPartition(organisationId, documentId), sk: stateSortKey });

export const eventKey = (organisationId: string, documentId: string, eventId: string): ItemKey => ({
  pk: documentPartition(organisationId, documentId),
  sk: composeKey('EVENT', eventId),
});
