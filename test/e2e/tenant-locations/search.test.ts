// End to end: Search (PUT /TenantLocation/Search) over one tenant's known set of locations: filters, sorting,
// paging with LastRowNumber, and the count-only form. Rows are compared whole with what Get returns.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TenantLocation, TenantLocationInfo, TenantLocationSearchResult } from '../../../shared/schemas/tenant-location';
import { api, tokenFor } from '../../support/http';
import { successHeaders, viewOf } from '../../support/responses';
import { freshTenantId, openTenantTable } from '../../support/tenant-items';
import { create, get, remove, save, search } from './support';

const tenant = freshTenantId();
const table = openTenantTable();
let token: string;
/** Current records by name, refreshed after every write of the setup. */
const byName: Record<string, TenantLocation> = {};

const at = (name: string): TenantLocation => {
  const location = byName[name];
  if (!location) throw new Error(`No location named ${name}`);
  return location;
};

/** The Search answer for `names` in that order, one page starting after `start`. */
const page = (names: readonly string[], options: { total?: number; start?: number; maxResults?: number; hasMore?: boolean } = {}) => {
  const start = options.start ?? 0;
  return {
    Rows: names.map((name, index) => ({ ...at(name), RowNumber: start + index + 1 })),
    TotalCount: options.total ?? names.length,
    HasMore: options.hasMore ?? false,
    LastRowNumber: start + names.length,
    MaxResults: options.maxResults ?? 50,
  };
};

const rowNames = (result: TenantLocationSearchResult) => result.Rows.map((row) => row.Name);

beforeAll(async () => {
  token = await tokenFor({ tenant });
  const perth = await create(token, { Name: 'Perth Central', Description: 'Head office', CustomerID: 10, Address: { City: 'Perth' } });
  const bodies: TenantLocationInfo[] = [
    { Name: 'Fremantle', Description: 'Port store', CustomerID: 10, ParentID: perth.ID, Address: { City: 'Fremantle' } },
    { Name: 'Albany', Description: 'Southern', CustomerID: 20, Address: { City: 'Albany', StreetAddress: '1 Perth Rd' } },
    { Name: 'Broome', Description: 'North', ParentID: perth.ID },
    { Name: 'Bunbury', Description: 'Perth region, south' },
    { Name: 'Closed Perth', Description: 'Gone' },
    { Name: 'Geraldton' },
  ];
  for (const body of bodies) await create(token, body);
  await remove(token, (await search(token, { SearchString: 'Closed Perth', IsExactMatch: true })).json.Rows[0]?.ID as number);
  for (const location of (await search(token, { IncludeDeleted: true, MaxResults: 500 })).json.Rows) {
    const { RowNumber: _rowNumber, ...record } = location;
    byName[location.Name] = record;
  }
  expect(Object.keys(byName)).toHaveLength(7);
});
afterAll(() => table.close());

const active = ['Albany', 'Broome', 'Bunbury', 'Fremantle', 'Geraldton', 'Perth Central'];

describe('defaults', () => {
  test('an empty filter: active locations by name, numbered from 1, 50 per page', async () => {
    const response = await search(token, {});
    expect(viewOf(response)).toEqual({ status: 200, headers: successHeaders('application/json'), body: page(active) });
    for (const row of response.json.Rows) {
      const { RowNumber: _rowNumber, ...record } = row;
      expect((await get(token, row.ID)).json).toEqual(record);
    }
  });

  test('no body at all is an empty filter', async () => {
    const response = await api<TenantLocationSearchResult>('/TenantLocation/Search', { method: 'PUT', token });
    expect(viewOf(response)).toEqual({ status: 200, headers: successHeaders('application/json'), body: page(active) });
  });
});

describe('paging with LastRowNumber and MaxResults', () => {
  test('pages of 2 walk the whole list; HasMore is false on the last page', async () => {
    const pages: TenantLocationSearchResult[] = [];
    let lastRowNumber = 0;
    do {
      const response = await search(token, { MaxResults: 2, LastRowNumber: lastRowNumber });
      pages.push(response.json);
      lastRowNumber = response.json.LastRowNumber;
    } while (pages.at(-1)?.HasMore && pages.length < 10);
    expect(pages).toEqual([
      page(active.slice(0, 2), { maxResults: 2, total: 6, hasMore: true }),
      page(active.slice(2, 4), { maxResults: 2, total: 6, hasMore: true, start: 2 }),
      page(active.slice(4, 6), { maxResults: 2, total: 6, hasMore: false, start: 4 }),
    ]);
  });

  test('a page size that does not divide the total; past the end: no rows', async () => {
    expect((await search(token, { MaxResults: 4, LastRowNumber: 4 })).json).toEqual(
      page(active.slice(4), { maxResults: 4, total: 6, start: 4 }),
    );
    expect((await search(token, { MaxResults: 4, LastRowNumber: 6 })).json).toEqual(page([], { maxResults: 4, total: 6, start: 6 }));
    expect((await search(token, { LastRowNumber: 1000 })).json).toEqual(page([], { total: 6, start: 6 }));
  });

  test('MaxResults 1 and 500', async () => {
    expect((await search(token, { MaxResults: 1 })).json).toEqual(page(['Albany'], { maxResults: 1, total: 6, hasMore: true }));
    expect((await search(token, { MaxResults: 500 })).json).toEqual(page(active, { maxResults: 500 }));
  });

  test('paging follows the requested order', async () => {
    const first = await search(token, { SortField: 'Name', SortAsc: false, MaxResults: 4 });
    const second = await search(token, { SortField: 'Name', SortAsc: false, MaxResults: 4, LastRowNumber: 4 });
    expect([...rowNames(first.json), ...rowNames(second.json)]).toEqual([...active].reverse());
    expect(second.json.Rows.map((row) => row.RowNumber)).toEqual([5, 6]);
  });

  test('GetCountOnly: the count and no rows', async () => {
    expect((await search(token, { GetCountOnly: true })).json).toEqual({ Rows: [], TotalCount: 6, HasMore: true, LastRowNumber: 0, MaxResults: 50 });
    expect((await search(token, { GetCountOnly: true, SearchString: 'perth' })).json.TotalCount).toBe(3);
    expect((await search(token, { GetCountOnly: true, IncludeDeleted: true })).json.TotalCount).toBe(7);
  });
});

describe('sorting', () => {
  const idsOf = (names: readonly string[]) => names.map((name) => at(name).ID);
  /** In creation order, which is ID order (checked below). */
  const byId = ['Perth Central', 'Fremantle', 'Albany', 'Broome', 'Bunbury', 'Geraldton'];

  test('the setup created the locations in this order', () => {
    expect(idsOf(byId)).toEqual([1, 2, 3, 4, 5, 7]);
  });

  test.each([
    ['Name ascending', { SortField: 'Name' }, active],
    ['Name descending', { SortField: 'Name', SortAsc: false }, [...active].reverse()],
    ['name, case-insensitively', { SortField: ' name ' }, active],
    ['ID ascending', { SortField: 'ID' }, byId],
    ['ID descending', { SortField: 'id', SortAsc: false }, [...byId].reverse()],
    ['Description (none first)', { SortField: 'Description' }, ['Geraldton', 'Perth Central', 'Broome', 'Bunbury', 'Fremantle', 'Albany']],
    ['CreatedDateTime_utc (ties by ID)', { SortField: 'CreatedDateTime_utc' }, byId],
  ] as const)('%s', async (_name, filter, expected) => {
    const result = (await search(token, filter)).json;
    expect(result.Rows.map((row) => row.ID)).toEqual(idsOf(expected));
    expect(result.Rows.map((row) => row.RowNumber)).toEqual(expected.map((_, index) => index + 1));
  });

  test('ModifiedDateTime_utc: the location written last comes last', async () => {
    const albany = at('Albany');
    const updated = (await save(token, { ID: albany.ID, Name: 'Albany', Version: albany.Version, EmailAddress: 'albany@example.com' })).json;
    byName.Albany = updated;
    const rows = (await search(token, { SortField: 'ModifiedDateTime_utc' })).json.Rows;
    expect(rows.at(-1)).toEqual({ ...updated, RowNumber: 6 });
    const descending = (await search(token, { SortField: 'ModifiedDateTime_utc', SortAsc: false })).json.Rows;
    expect(descending[0]).toEqual({ ...updated, RowNumber: 1 });
  });
});

describe('filters', () => {
  test.each([
    ['SearchString in name, description or address', { SearchString: 'PERTH' }, ['Albany', 'Bunbury', 'Perth Central']],
    ['Search (the other spelling)', { Search: 'perth' }, ['Albany', 'Bunbury', 'Perth Central']],
    ['SearchString, deleted included', { SearchString: 'perth', IncludeDeleted: true }, ['Albany', 'Bunbury', 'Closed Perth', 'Perth Central']],
    ['SearchNameOnly', { SearchString: 'perth', SearchNameOnly: true }, ['Perth Central']],
    ['IsExactMatch', { SearchString: ' perth central ', IsExactMatch: true }, ['Perth Central']],
    ['IsExactMatch with no such name', { SearchString: 'perth', IsExactMatch: true }, []],
    ['address text', { SearchString: 'fremantle', SearchNameOnly: false }, ['Fremantle']],
    ['IncludeDeleted', { IncludeDeleted: true }, ['Albany', 'Broome', 'Bunbury', 'Closed Perth', 'Fremantle', 'Geraldton', 'Perth Central']],
    ['IsActive false: deleted only', { IsActive: false }, ['Closed Perth']],
    ['IsActive true: active only, even with IncludeDeleted', { IsActive: true, IncludeDeleted: true }, active],
    ['CustomerID', { CustomerID: 10 }, ['Fremantle', 'Perth Central']],
    ['CustomerID with no match', { CustomerID: 99 }, []],
    ['CustomerID 0 means none', { CustomerID: 0 }, active],
    ['ParentID', { ParentID: 1 }, ['Broome', 'Fremantle']],
    ['IDs', { IDs: [3, 5, 6] }, ['Albany', 'Bunbury']],
    ['IDs with deleted', { IDs: [3, 5, 6], IncludeDeleted: true }, ['Albany', 'Bunbury', 'Closed Perth']],
    ['an empty IDs list means any', { IDs: [] }, active],
    ['ID', { ID: 4 }, ['Broome']],
    ['IgnoreID', { IgnoreID: 4 }, ['Albany', 'Bunbury', 'Fremantle', 'Geraldton', 'Perth Central']],
    ['several at once', { CustomerID: 10, SearchString: 'o', ParentID: 1 }, ['Fremantle']],
  ] as const)('%s', async (_name, filter, expected) => {
    // The setup created Perth Central first, so ParentID 1 and the IDs above name the locations of this tenant.
    expect(at('Perth Central').ID).toBe(1);
    const response = await search(token, filter);
    expect(viewOf(response)).toEqual({ status: 200, headers: successHeaders('application/json'), body: page(expected) });
  });
});
