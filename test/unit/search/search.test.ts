// Unit tests of shared/search/search.ts: the one search mechanism. Which filter members a search applies, how it
// sorts (a Map of comparators: names of Object.prototype are unknown names, not 500s), pages, counts, and answers
// PagedActionResults.
import { describe, expect, it } from '@jest/globals';
import { ValidationFailed } from '#shared/errors';
import { defineSearch, pageBudgetBytes, type SearchControls } from '#shared/search/search';

interface Row {
  readonly ID: number;
  readonly Name: string;
}

const rows: Row[] = [
  { ID: 3, Name: 'b' },
  { ID: 1, Name: 'c' },
  { ID: 2, Name: 'a' },
  { ID: 4, Name: 'b' },
];

const search = defineSearch<Row>({
  subject: 'widgets',
  filterFields: ['SearchString', 'Statuses', 'SortField', 'SortAsc', 'LastRowNumber', 'MaxResults', 'GetCountOnly', 'TenantID', 'WebsiteID', 'UserID'],
  supports: ['SearchString'],
  sortFields: [
    ['Name', (a, b) => a.Name.localeCompare(b.Name)],
    ['ID', (a, b) => a.ID - b.ID],
  ],
  tieBreak: (a, b) => a.ID - b.ID,
});

const answer = (filter: SearchControls & Record<string, unknown>) => search.page(search.plan(filter), rows);
const order = (filter: SearchControls & Record<string, unknown>) => answer(filter).Value.map((row) => [row.RowNumber, row.ID]);

/** The field errors of a refused plan. */
const refusedFields = (filter: object) => {
  try {
    search.plan(filter);
  } catch (error) {
    if (error instanceof ValidationFailed) return error.errors;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('sorting', () => {
  it('sorts by the first sort field by default, ties by the tie-break, rows numbered from 1', () => {
    expect(order({})).toEqual([[1, 2], [2, 3], [3, 4], [4, 1]]);
  });

  it('takes the sort field in any case, trimmed; blank means the default; SortAsc false reverses ties too', () => {
    expect(order({ SortField: ' id ' })).toEqual([[1, 1], [2, 2], [3, 3], [4, 4]]);
    expect(order({ SortField: '   ' })).toEqual(order({}));
    expect(order({ SortAsc: false })).toEqual([[1, 1], [2, 4], [3, 3], [4, 2]]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'City'])(
    'refuses SortField %s, listing the sort fields',
    (sortField) => {
      expect(refusedFields({ SortField: sortField })).toEqual([{ pointer: '/SortField', detail: 'must be Name or ID' }]);
    },
  );
});

describe('filter members', () => {
  it('refuses a member the search does not apply when it is set (any value, false and [] included)', () => {
    expect(refusedFields({ Statuses: [] })).toEqual([{ pointer: '/Statuses', detail: 'does not apply to widgets' }]);
    expect(refusedFields({ Statuses: [1], SearchString: 'x' })).toEqual([{ pointer: '/Statuses', detail: 'does not apply to widgets' }]);
  });

  it('takes a member left undefined as absent, and the common members of every filter', () => {
    expect(() => search.plan({ Statuses: undefined, TenantID: 1, WebsiteID: 1, UserID: 1, GetCountOnly: false } as SearchControls)).not.toThrow();
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('refuses %s as a member name (an own key, as JSON.parse makes it)', (name) => {
    const filter = JSON.parse(`{"${name}": 1}`) as object;
    expect(refusedFields(filter)).toEqual([{ pointer: `/${name}`, detail: 'is not a known field (names are case-sensitive)' }]);
  });

  it('refuses at definition a supported member the filter does not have, and a search without sort fields', () => {
    const definition = { subject: 'things', filterFields: ['SortField'], supports: [], sortFields: [], tieBreak: () => 0 };
    expect(() => defineSearch(definition)).toThrow('Search of things: the filter has no member SortAsc');
    expect(() => defineSearch({ ...definition, filterFields: ['SortField', 'SortAsc', 'LastRowNumber', 'MaxResults', 'GetCountOnly', 'TenantID', 'WebsiteID', 'UserID'] })).toThrow(
      'Search of things has no sort field',
    );
  });
});

describe('paging and counting', () => {
  it('answers PagedActionResults: a page after LastRowNumber, MoreToGet while rows remain', () => {
    expect(answer({ MaxResults: 2, LastRowNumber: 1 })).toStrictEqual({
      MoreToGet: true,
      LastRowNumber: 3,
      Count: 2,
      TotalRecordCount: 4,
      Value: [
        { ID: 3, Name: 'b', RowNumber: 2 },
        { ID: 4, Name: 'b', RowNumber: 3 },
      ],
      IsSuccess: true,
      Messages: [],
    });
    expect(answer({ MaxResults: 2, LastRowNumber: 3 })).toMatchObject({ MoreToGet: false, LastRowNumber: 4, Count: 1 });
  });

  it('past the end: no rows, LastRowNumber the last row there is', () => {
    expect(answer({ LastRowNumber: 40 })).toMatchObject({ MoreToGet: false, LastRowNumber: 4, Count: 0, TotalRecordCount: 4, Value: [] });
  });

  it('GetCountOnly: the count, no rows; MoreToGet says whether rows lie after LastRowNumber', () => {
    expect(answer({ GetCountOnly: true })).toStrictEqual({
      MoreToGet: true,
      LastRowNumber: 0,
      Count: 0,
      TotalRecordCount: 4,
      Value: [],
      IsSuccess: true,
      Messages: [],
    });
    expect(answer({ GetCountOnly: true, LastRowNumber: 4 }).MoreToGet).toBe(false);
  });

  it('ends a page early when its rows would pass 1 MB of JSON (an answer must stay under 6 MB, in XML too); the next page goes on after it', () => {
    const large = Array.from({ length: 500 }, (_, index) => ({ ID: index + 1, Name: `${String(index).padStart(3, '0')}${'x'.repeat(16_000)}` }));
    const first = search.page(search.plan({ MaxResults: 500 }), large);
    expect(first.Value.length).toBeGreaterThan(1);
    expect(first.Value.length).toBeLessThan(500);
    expect(Buffer.byteLength(JSON.stringify(first.Value))).toBeLessThanOrEqual(pageBudgetBytes + 1_000);
    expect({ MoreToGet: first.MoreToGet, LastRowNumber: first.LastRowNumber, TotalRecordCount: first.TotalRecordCount }).toEqual({ MoreToGet: true, LastRowNumber: first.Value.length, TotalRecordCount: 500 });
    const next = search.page(search.plan({ MaxResults: 500, LastRowNumber: first.LastRowNumber }), large);
    expect(next.Value[0]).toMatchObject({ ID: first.Value.length + 1, RowNumber: first.Value.length + 1 });
    // One row larger than the budget is still answered, alone.
    const huge = [{ ID: 1, Name: 'y'.repeat(pageBudgetBytes + 10) }, { ID: 2, Name: 'z' }];
    expect(search.page(search.plan({}), huge).Value.map((row) => row.ID)).toEqual([1]);
  });

  it('pages of 50 by default, 1 to 500', () => {
    expect(search.plan({}).maxResults).toBe(50);
    expect(search.plan({ MaxResults: 1 }).maxResults).toBe(1);
    expect(search.plan({ MaxResults: 500 }).maxResults).toBe(500);
  });

  it.each([
    [{ MaxResults: 0 }, '/MaxResults', 'must be a whole number from 1 to 500'],
    [{ MaxResults: 501 }, '/MaxResults', 'must be a whole number from 1 to 500'],
    [{ MaxResults: 2.5 }, '/MaxResults', 'must be a whole number from 1 to 500'],
    [{ LastRowNumber: -1 }, '/LastRowNumber', 'must be a whole number, 0 or more'],
    [{ LastRowNumber: 2 ** 53 }, '/LastRowNumber', 'must be a whole number, 0 or more'],
  ])('refuses %j', (filter, pointer, detail) => {
    expect(refusedFields(filter)).toEqual([{ pointer, detail }]);
  });
});
