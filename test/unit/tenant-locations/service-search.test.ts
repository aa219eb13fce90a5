// Unit tests of the tenant-location service (shared/tenant-locations/service.ts): Search, over the in-memory store
// (test/stores/tenant-locations/memory-tenant-location-store.ts, held to the DynamoDB repository by the store's
// contract suite), each test in tenants of its own.
import { describe, expect, it } from '@jest/globals';
import type { TenantLocationFilter } from '#shared/schemas/search-filter';
import { refusal, serviceOnStore } from './support';

/** Six locations of the tenant (five active) and one of another tenant. By name: alpha shop, Bravo, charlie, Warehouse, Zulu. */
const seedOnce = async () => {
  const fixture = serviceOnStore();
  const { seed, storedLocation, otherTenant } = fixture;
  await seed(storedLocation(1, { Name: 'Warehouse', Description: 'Bulk storage', CustomerID: 5 }));
  await seed(storedLocation(2, { Name: 'alpha shop' }));
  await seed(storedLocation(3, { Name: 'Depot', IsActive: false }));
  await seed(storedLocation(4, { Name: 'Bravo', ParentID: 1, ParentName: 'Warehouse' }));
  await seed(storedLocation(5, { Name: 'charlie', Address: { City: 'Nelson', LocationID: 5 } }));
  await seed(storedLocation(6, { Name: 'Zulu', CustomerID: 5 }));
  await seed(storedLocation(7, { Name: 'Alpha of another tenant', TenantID: otherTenant.tenantId }));
  return fixture;
};
/** Search only reads: the file's tests share one seeded pair of tenants. */
let seeding: ReturnType<typeof seedOnce> | undefined;
const seeded = () => (seeding ??= seedOnce());

/** The IDs of a page's rows, with their row numbers. */
const rowsOf = async (filter: TenantLocationFilter) => {
  const { service, principal } = await seeded();
  const page = await service.search(principal, filter);
  return page.Value.map((row) => [row.RowNumber, row.ID]);
};

/** What the service throws for invalid search input. */
const validationRefusal = (errors: readonly object[]) => ({
  status: 400,
  name: 'ValidationFailed',
  detail: 'The request is not valid; see errors for each field.',
  errors,
});
const unknownSortField = { pointer: '/SortField', detail: 'must be Name, ID, Description, CreatedDateTime_utc or ModifiedDateTime_utc' };

describe('tenant-location service: Search', () => {
  it('matches SearchString in the text as it matches names: case folded (ß as ss), dashes folded, invisible characters ignored', async () => {
    const { service, principal, seed, storedLocation } = serviceOnStore();
    await seed(storedLocation(1, { Name: 'Main\u2013Store', Address: { StreetAddress: 'Hauptstraße 5', LocationID: 1 } }));
    await seed(storedLocation(2, { Name: 'Soft\u00adware depot' }));
    const ids = async (SearchString: string) => (await service.search(principal, { SearchString })).Value.map((row) => row.ID);
    expect(await ids('Hauptstraße')).toEqual([1]);
    expect(await ids('HAUPTSTRASSE')).toEqual([1]);
    expect(await ids('main-store')).toEqual([1]);
    expect(await ids('main\u2014store')).toEqual([1]);
    expect(await ids('software')).toEqual([2]);
  });

  it("by default lists the tenant's active locations by name, numbered from 1, 50 to a page: PagedActionResults", async () => {
    const { service, principal, storedLocation } = await seeded();

    const page = await service.search(principal, {});

    expect(page).toStrictEqual({
      MoreToGet: false,
      LastRowNumber: 5,
      Count: 5,
      TotalRecordCount: 5,
      Value: [
        { ...storedLocation(2, { Name: 'alpha shop' }), RowNumber: 1 },
        { ...storedLocation(4, { Name: 'Bravo', ParentID: 1, ParentName: 'Warehouse' }), RowNumber: 2 },
        { ...storedLocation(5, { Name: 'charlie', Address: { City: 'Nelson', LocationID: 5 } }), RowNumber: 3 },
        { ...storedLocation(1, { Name: 'Warehouse', Description: 'Bulk storage', CustomerID: 5 }), RowNumber: 4 },
        { ...storedLocation(6, { Name: 'Zulu', CustomerID: 5 }), RowNumber: 5 },
      ],
      IsSuccess: true,
      Messages: [],
    });
  });

  it.each([
    ['Name descending', { SortAsc: false }, [6, 1, 5, 4, 2]],
    ['Name, spelled in any case and padded', { SortField: ' nAmE ' }, [2, 4, 5, 1, 6]],
    ['Name when SortField is empty', { SortField: '  ' }, [2, 4, 5, 1, 6]],
    ['ID ascending', { SortField: 'ID' }, [1, 2, 4, 5, 6]],
    ['ID descending', { SortField: 'id', SortAsc: false }, [6, 5, 4, 2, 1]],
    ['Description (absent sorts first), ties by ID', { SortField: 'Description' }, [2, 4, 5, 6, 1]],
  ] as const)('sorts by %s', async (_case, filter, ids) => {
    expect(await rowsOf(filter)).toEqual(ids.map((id, index) => [index + 1, id]));
  });

  it('refuses an unknown SortField', async () => {
    const { service, principal } = await seeded();

    expect(await refusal(service.search(principal, { SortField: 'City' }))).toEqual({
      status: 400,
      name: 'ValidationFailed',
      detail: 'The request is not valid; see errors for each field.',
      errors: [{ pointer: '/SortField', detail: 'must be Name, ID, Description, CreatedDateTime_utc or ModifiedDateTime_utc' }],
    });
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'])(
    'refuses SortField %s (a name of Object.prototype is just an unknown sort field)',
    async (sortField) => {
      const { service, principal } = await seeded();

      expect(await refusal(service.search(principal, { SortField: sortField }))).toEqual(validationRefusal([unknownSortField]));
    },
  );

  it('refuses, all at once, a filter that does not apply, an unknown SortField and paging out of range', async () => {
    const { service, principal } = await seeded();

    expect(await refusal(service.search(principal, { IsHidden: true, SortField: 'City', LastRowNumber: -1, MaxResults: 501 }))).toEqual(
      validationRefusal([
        { pointer: '/IsHidden', detail: 'does not apply to tenant locations' },
        unknownSortField,
        { pointer: '/LastRowNumber', detail: 'must be a whole number, 0 or more' },
        { pointer: '/MaxResults', detail: 'must be a whole number from 1 to 500' },
      ]),
    );
  });

  it('refuses every filter that does not apply to locations, each with its pointer', async () => {
    const { service, principal } = await seeded();

    const outcome = await refusal(
      service.search(principal, {
        GroupBy: 'City',
        Statuses: [1],
        StartDate: '2026-01-01T00:00:00Z',
        IsHidden: false,
        BrandIDs: [],
        SearchString: 'fine',
      }),
    );

    expect(outcome).toEqual({
      status: 400,
      name: 'ValidationFailed',
      detail: 'The request is not valid; see errors for each field.',
      errors: [
        { pointer: '/Statuses', detail: 'does not apply to tenant locations' },
        { pointer: '/StartDate', detail: 'does not apply to tenant locations' },
        { pointer: '/BrandIDs', detail: 'does not apply to tenant locations' },
        { pointer: '/IsHidden', detail: 'does not apply to tenant locations' },
        { pointer: '/GroupBy', detail: 'does not apply to tenant locations' },
      ],
    });
  });

  it('pages with LastRowNumber and MaxResults, continuing the numbering', async () => {
    const { service, principal } = await seeded();

    const pages = [
      await service.search(principal, { MaxResults: 2 }),
      await service.search(principal, { MaxResults: 2, LastRowNumber: 2 }),
      await service.search(principal, { MaxResults: 2, LastRowNumber: 4 }),
      await service.search(principal, { MaxResults: 2, LastRowNumber: 40 }),
    ];

    const outcome = { IsSuccess: true, Messages: [] };
    expect(pages.map((page) => ({ ...page, Value: page.Value.map((row) => [row.RowNumber, row.ID]) }))).toEqual([
      { MoreToGet: true, LastRowNumber: 2, Count: 2, TotalRecordCount: 5, Value: [[1, 2], [2, 4]], ...outcome },
      { MoreToGet: true, LastRowNumber: 4, Count: 2, TotalRecordCount: 5, Value: [[3, 5], [4, 1]], ...outcome },
      { MoreToGet: false, LastRowNumber: 5, Count: 1, TotalRecordCount: 5, Value: [[5, 6]], ...outcome },
      { MoreToGet: false, LastRowNumber: 5, Count: 0, TotalRecordCount: 5, Value: [], ...outcome },
    ]);
  });

  it('counts without rows for GetCountOnly', async () => {
    const { service, principal } = await seeded();

    const page = await service.search(principal, { GetCountOnly: true, IDs: [1, 2] });

    expect(page).toStrictEqual({ MoreToGet: true, LastRowNumber: 0, Count: 0, TotalRecordCount: 2, Value: [], IsSuccess: true, Messages: [] });
  });

  it.each([
    ['IDs', { IDs: [6, 1, 99] }, [1, 6]],
    ['an empty IDs list (no filter)', { IDs: [] }, [2, 4, 5, 1, 6]],
    ['ID', { ID: 4 }, [4]],
    ['IgnoreID', { IgnoreID: 2 }, [4, 5, 1, 6]],
    ['CustomerID', { CustomerID: 5 }, [1, 6]],
    ['ParentID', { ParentID: 1 }, [4]],
    ['SearchString in the name, any case', { SearchString: 'ALPHA' }, [2]],
    ['SearchString in the address and description', { SearchString: 'nelson' }, [5]],
    ['Search (the other spelling)', { Search: 'bulk' }, [1]],
    ['SearchNameOnly', { SearchString: 'nelson', SearchNameOnly: true }, []],
    ['IsExactMatch on the whole name, any case', { SearchString: ' BRAVO ', IsExactMatch: true }, [4]],
    ['IsExactMatch with part of a name', { SearchString: 'bra', IsExactMatch: true }, []],
    ['IncludeDeleted', { IncludeDeleted: true }, [2, 4, 5, 3, 1, 6]],
    ['IsActive false (deleted only)', { IsActive: false }, [3]],
    ['IsActive true', { IsActive: true, IncludeDeleted: true }, [2, 4, 5, 1, 6]],
  ] as const)('filters by %s', async (_case, filter, ids) => {
    expect(await rowsOf(filter as TenantLocationFilter)).toEqual(ids.map((id, index) => [index + 1, id]));
  });

  it("never returns another tenant's locations", async () => {
    const { service, otherTenant } = await seeded();

    const page = await service.search(otherTenant, { IncludeDeleted: true });

    expect(page.Value.map((row) => [row.ID, row.TenantID])).toEqual([[7, otherTenant.tenantId]]);
  });
});
