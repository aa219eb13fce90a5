import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { applyEvent, type DocumentEvent, type DocumentState } from '#shared/document-events/state';

const event = (type: string, t: number, eventId: string, userId = 'u1'): DocumentEvent => ({
  eventId,
  type,
  t,
  userId,
  organisationId: 'org',
  documentId: 'doc',
  objectJson: JSON.stringify({ id: 'doc', type }),
});

/** What the consumer does: skip ids already applied (the history condition), apply the rest. */
const replay = (events: readonly DocumentEvent[]): DocumentState | undefined => {
  const seen = new Set<string>();
  let state: DocumentState | undefined;
  for (const next of events) {
    if (seen.has(next.eventId)) continue;
    seen.add(next.eventId);
    state = applyEvent(state, next);
  }
  return state;
};

describe('document state machine', () => {
  it('follows the lifecycle in order', () => {
    const states = [
      event('document.uploaded', 10, 'a'),
      event('document.processing', 11, 'b'),
      event('document.processed', 12, 'c'),
    ].reduce<DocumentState[]>((all, next) => [...all, applyEvent(all.at(-1), next)], []);
    expect(states.map((state) => state.state)).toEqual(['Uploaded', 'Processing', 'Processed']);
    expect(states.at(-1)).toMatchObject({ eventCount: 3, version: 3, first: { t: 10 }, last: { t: 12 } });
  });

  it('never moves back to a lower rank', () => {
    const state = replay([event('document.processed', 12, 'c'), event('document.uploaded', 10, 'a'), event('document.processing', 11, 'b')]);
    expect(state?.state).toBe('Processed');
    expect(state?.objectJson).toContain('document.processed');
  });

  it('decides equal ranks by t, then by event id', () => {
    expect(replay([event('document.failed', 20, 'x'), event('document.processed', 19, 'y')])?.state).toBe('Failed');
    expect(replay([event('document.processed', 19, 'y'), event('document.failed', 20, 'x')])?.state).toBe('Failed');
    expect(replay([event('document.failed', 20, 'a'), event('document.processed', 20, 'b')])?.state).toBe('Processed');
  });

  it('keeps unknown types in the count but never lets them change the state', () => {
    const state = replay([event('document.uploaded', 10, 'a'), event('document.archived', 30, 'z', 'u9')]);
    expect(state).toMatchObject({ state: 'Uploaded', eventCount: 2, userId: 'u1', last: { t: 30 } });
    expect(replay([event('something.else', 5, 'q')])).toMatchObject({ eventCount: 1, userId: 'u1' });
    expect(replay([event('something.else', 5, 'q')])?.state).toBeUndefined();
  });

  const types = ['document.uploaded', 'document.processing', 'document.processed', 'document.failed', 'document.unknown'];
  const eventsArbitrary = fc
    .uniqueArray(
      fc.record({
        type: fc.constantFrom(...types),
        t: fc.integer({ min: 1_700_000_000, max: 1_700_000_050 }),
        eventId: fc.stringMatching(/^[0-9a-f]{8}$/),
        userId: fc.constantFrom('u1', 'u2', 'u3'),
      }),
      { minLength: 1, maxLength: 12, selector: (e) => e.eventId },
    )
    .map((records) => records.map((r) => event(r.type, r.t, r.eventId, r.userId)));

  it('ends in the in-order state for every arrival order, with any duplicates', () => {
    fc.assert(
      fc.property(
        eventsArbitrary,
        fc.infiniteStream(fc.nat()),
        fc.array(fc.nat(), { maxLength: 10 }),
        (events, shuffleSeed, duplicatePicks) => {
          const inOrder = [...events].sort((a, b) => a.t - b.t || (a.eventId < b.eventId ? -1 : 1));
          const duplicated = [...events, ...duplicatePicks.map((pick) => events[pick % events.length] as DocumentEvent)];
          const keys = [...shuffleSeed.take(duplicated.length)];
          const shuffled = duplicated.map((item, index) => ({ item, key: keys[index] ?? 0 })).sort((a, b) => a.key - b.key).map((x) => x.item);
          expect(replay(shuffled)).toEqual(replay(inOrder));
        },
      ),
      { numRuns: 500 },
    );
  });
});
