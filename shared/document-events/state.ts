// Domain: the state of a document as a pure function of the set of its events. The state is that of the
// highest-ranked event; equal ranks are ordered by the signed timestamp `t`, then by event id. Every other field is
// a min, max or count over the set, so any arrival order, with any duplicates, ends in the same state. An event's `t`
// is the earliest of its deliveries' (a provider's retry is signed anew, later): a retry applied before its original
// has the state rebuilt from the set when the original comes (`stateOfEvents`).

export const documentEventTypes = {
  'document.uploaded': { state: 'Uploaded', rank: 1 },
  'document.processing': { state: 'Processing', rank: 2 },
  'document.processed': { state: 'Processed', rank: 3 },
  'document.failed': { state: 'Failed', rank: 3 },
} as const satisfies Record<string, { state: string; rank: number }>;

export type DocumentStateName = (typeof documentEventTypes)[keyof typeof documentEventTypes]['state'];

export interface DocumentEvent {
  readonly eventId: string;
  readonly type: string;
  /** The signed timestamp (unix seconds). */
  readonly t: number;
  readonly userId: string;
  readonly organisationId: string;
  readonly documentId: string;
  /** `data.object` as canonical JSON. */
  readonly objectJson: string;
}

/** Position of an event in the total order that decides the state: rank, then t, then event id. */
interface EventOrder {
  readonly rank: number;
  readonly t: number;
  readonly eventId: string;
}

export interface DocumentState {
  readonly organisationId: string;
  readonly documentId: string;
  /** Absent while only events of unknown types have arrived. */
  readonly state?: DocumentStateName;
  readonly stateEvent?: EventOrder & { readonly type: string };
  readonly objectJson?: string;
  readonly userId: string;
  readonly first: { readonly t: number; readonly eventId: string };
  readonly last: { readonly t: number; readonly eventId: string };
  readonly eventCount: number;
  readonly version: number;
}

export const rankOf = (type: string): number =>
  Object.hasOwn(documentEventTypes, type) ? documentEventTypes[type as keyof typeof documentEventTypes].rank : 0;

const compare = (a: { t: number; eventId: string }, b: { t: number; eventId: string }): number =>
  a.t !== b.t ? a.t - b.t : a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;

const compareOrder = (a: EventOrder, b: EventOrder): number => (a.rank !== b.rank ? a.rank - b.rank : compare(a, b));

export const isKnownType = (type: string): type is keyof typeof documentEventTypes => rankOf(type) > 0;

/** Applies one new (never seen) event to a document's state. */
export const applyEvent = (current: DocumentState | undefined, event: DocumentEvent): DocumentState => {
  const order = { rank: rankOf(event.type), t: event.t, eventId: event.eventId };
  const point = { t: event.t, eventId: event.eventId };
  const setsState = isKnownType(event.type) && (!current?.stateEvent || compareOrder(order, current.stateEvent) > 0);
  const isFirst = !current || compare(point, current.first) < 0;

  const base = {
    organisationId: event.organisationId,
    documentId: event.documentId,
    first: isFirst ? point : (current as DocumentState).first,
    last: !current || compare(point, current.last) > 0 ? point : current.last,
    eventCount: (current?.eventCount ?? 0) + 1,
    version: (current?.version ?? 0) + 1,
  };
  if (setsState) {
    return {
      ...base,
      state: documentEventTypes[event.type as keyof typeof documentEventTypes].state,
      stateEvent: { ...order, type: event.type },
      objectJson: event.objectJson,
      userId: event.userId,
    };
  }
  // The user is that of the state-setting event, or of the earliest event while no state is known.
  const userId = current?.stateEvent || (current && !isFirst) ? (current as DocumentState).userId : event.userId;
  return {
    ...base,
    ...(current?.state ? { state: current.state, stateEvent: current.stateEvent, objectJson: current.objectJson } : {}),
    userId,
  };
};

/**
 * The state of a set of distinct events (any order: `applyEvent` does not depend on it) at `version`: what an event's
 * earlier `t`, learnt from a delivery that came after a later one, gives the document.
 */
export const stateOfEvents = (events: readonly DocumentEvent[], version: number): DocumentState | undefined => {
  const folded = events.reduce<DocumentState | undefined>((state, event) => applyEvent(state, event), undefined);
  return folded && { ...folded, version };
};
