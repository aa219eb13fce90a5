// Unit: a search filter's text (shared/search/search.ts `searchTextOf`): SearchString, or Search when SearchString is
// absent or blank, normalised as names are compared; both given and different is a 400 (found by a hostile client:
// Search was silently ignored, and the answer depended on which member held the name).
import { describe, expect, it } from '@jest/globals';
import { ValidationFailed } from '#shared/errors';
import { searchTextOf } from '#shared/search/search';

describe('searchTextOf', () => {
  it.each([
    [{}, undefined],
    [{ SearchString: 'Main Office' }, 'main office'],
    [{ Search: 'Main Office' }, 'main office'],
    [{ SearchString: '  ', Search: 'Depot' }, 'depot'],
    [{ SearchString: 'Depot', Search: '' }, 'depot'],
    [{ SearchString: 'DEPOT', Search: ' depot ' }, 'depot'],
  ])('reads %j as %j', (filter, text) => {
    expect(searchTextOf(filter)).toBe(text);
  });

  it('refuses two different texts at /Search, whichever member holds which', () => {
    for (const filter of [{ SearchString: 'Main Office', Search: 'zzz' }, { SearchString: 'zzz', Search: 'Main Office' }]) {
      let thrown: unknown;
      try {
        searchTextOf(filter);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ValidationFailed);
      expect((thrown as ValidationFailed).errors).toEqual([{ pointer: '/Search', detail: 'differs from SearchString: send one of them (they are one member under two names)' }]);
    }
  });
});
