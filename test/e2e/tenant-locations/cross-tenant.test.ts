// End to end: another tenant's locations do not exist for the caller. Tenant B gets 404 (never 403, never data)
// for A's location ids, whatever the operation, and A's stored items are exactly as they were afterwards.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TenantLocation } from '#shared/schemas/tenant-location';
import { tokenFor } from '#test/support/http';
import { problem, problemHeaders, validationProblem, viewOf } from '#test/support/responses';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { create, get, getAll, getByName, getDefaultAddress, names, remove, save, search } from './support';

const tenantA = freshTenantId();
const tenantB = tenantA + 1;
const table = openTenantTable();
let tokenA: string;
let tokenB: string;
let locationsOfA: TenantLocation[];
let itemsOfA: Record<string, unknown>[];

const notFound = (id: number) => ({
  status: 404,
  headers: problemHeaders(),
  body: problem({ status: 404, title: 'Not Found', detail: `Tenant location ${id} does not exist.` }),
});

beforeAll(async () => {
  [tokenA, tokenB] = await Promise.all([tokenFor({ tenant: tenantA }), tokenFor({ tenant: tenantB })]);
  const address = { City: 'Perth', IsDefaultBilling: true, IsDefaultDeliverTo: true, IsDefaultServiceTo: true, IsPostalAddress: true };
  locationsOfA = [];
  for (const name of ['Alpha Main', 'Alpha Annex', 'Alpha Yard']) {
    locationsOfA.push(await create(tokenA, { Name: name, IsDefault: name === 'Alpha Main', Address: address, CustomerID: 5 }));
  }
  // A's third location is deleted, so B cannot reach a deleted record either.
  expect((await remove(tokenA, (locationsOfA[2] as TenantLocation).ID)).status).toBe(200);
  itemsOfA = await table.items(tenantA);
});

afterAll(() => table.close());

describe('before tenant B has any location', () => {
  test('Get, Delete, Save-update and GetDefaultAddress of each of A ids: 404, as for an id nobody uses', async () => {
    for (const { ID: id } of locationsOfA) {
      expect(viewOf(await get(tokenB, id))).toEqual(notFound(id));
      expect(viewOf(await remove(tokenB, id))).toEqual(notFound(id));
      expect(viewOf(await save(tokenB, { ID: id, Name: 'Taken over', Version: 1 }))).toEqual(notFound(id));
      expect(viewOf(await save(tokenB, { ID: id, Name: 'Taken over' }))).toEqual(notFound(id));
      for (const addressType of ['Billing', 'Delivery', 'Service', 'Postal']) {
        expect(viewOf(await getDefaultAddress(tokenB, id, addressType))).toEqual(notFound(id));
      }
    }
    expect(viewOf(await get(tokenB, 999_999))).toEqual(notFound(999_999));
    expect(await table.items(tenantB)).toEqual([]);
  });

  test('GetAll, Search (even with A ids and IncludeDeleted) and GetByName see nothing of A', async () => {
    expect(viewOf(await getAll(tokenB)).body).toEqual([]);
    const searched = await search(tokenB, { IDs: locationsOfA.map((location) => location.ID), IncludeDeleted: true });
    expect(searched.json).toEqual({ MoreToGet: false, LastRowNumber: 0, Count: 0, TotalRecordCount: 0, Value: [], IsSuccess: true, Messages: [] });
    expect((await search(tokenB, { IsActive: false })).json.TotalRecordCount).toBe(0);
    expect((await search(tokenB, { CustomerID: 5, IncludeDeleted: true })).json.TotalRecordCount).toBe(0);
    expect((await getByName(tokenB, { SearchString: 'Alpha Main', IsExactMatch: true })).status).toBe(404);
    expect((await getByName(tokenB, { SearchString: 'alpha' })).status).toBe(404);
  });

  test("A location of A cannot be B's parent", async () => {
    const response = await save(tokenB, { Name: 'Child', ParentID: (locationsOfA[0] as TenantLocation).ID });
    expect(viewOf(response)).toEqual({
      status: 400,
      headers: problemHeaders(),
      body: validationProblem([{ pointer: '/ParentID', detail: 'no location of this tenant has this ID' }]),
    });
    expect(await table.items(tenantB)).toEqual([]);
  });
});

describe('once tenant B has locations with the same ids and names', () => {
  let locationsOfB: TenantLocation[];

  beforeAll(async () => {
    locationsOfB = [];
    // Names are unique per tenant only: B may use A's names; ids come from B's own sequence, so they collide with A's.
    for (const name of ['Alpha Main', 'Beta Depot']) locationsOfB.push(await create(tokenB, { Name: name, IsDefault: true }));
    expect(locationsOfB.map((location) => location.ID)).toEqual(locationsOfA.slice(0, 2).map((location) => location.ID));
  });

  test("each tenant's id 1 is its own location", async () => {
    const [ofA, ofB] = [locationsOfA[0] as TenantLocation, locationsOfB[0] as TenantLocation];
    expect((await get(tokenA, ofA.ID)).json).toEqual(ofA);
    expect((await get(tokenB, ofB.ID)).json).toMatchObject({ ID: ofA.ID, TenantID: tenantB, Name: 'Alpha Main' });
  });

  test("GetAll and Search of B hold B's rows only; A still has its default", async () => {
    expect(names((await getAll(tokenB)).json)).toEqual(['Alpha Main', 'Beta Depot']);
    const rows = (await search(tokenB, { IncludeDeleted: true, SearchString: 'a' })).json.Value;
    expect(rows.map((row) => [row.TenantID, row.Name])).toEqual([
      [tenantB, 'Alpha Main'],
      [tenantB, 'Beta Depot'],
    ]);
    // B made two of its own locations default in turn; A's default is untouched.
    expect((await get(tokenA, (locationsOfA[0] as TenantLocation).ID)).json.IsDefault).toBe(true);
    expect((await getByName(tokenB, { SearchString: 'alpha annex', IsExactMatch: true })).status).toBe(404);
  });

  test("B's updates and deletes of its own id 1 never touch A's id 1", async () => {
    const ofB = (await get(tokenB, (locationsOfB[0] as TenantLocation).ID)).json;
    expect((await save(tokenB, { ID: ofB.ID, Name: 'Beta Main', Version: ofB.Version })).status).toBe(200);
    expect((await remove(tokenB, ofB.ID)).json).toMatchObject({ TenantID: tenantB, IsActive: false });
    expect((await get(tokenA, ofB.ID)).json).toEqual(locationsOfA[0]);
  });
});

describe('afterwards', () => {
  test("A's items (locations, name claims, default pointer, ID sequence) are exactly as before anything B did", async () => {
    expect(await table.items(tenantA)).toEqual(itemsOfA);
    expect(itemsOfA.map((item) => item.sk)).toEqual([
      'LOC#0000000001',
      'LOC#0000000002',
      'LOC#0000000003',
      'LOCDEFAULT',
      'LOCNAME#alpha annex',
      'LOCNAME#alpha main',
      'SEQ#LOC',
    ]);
  });
});
