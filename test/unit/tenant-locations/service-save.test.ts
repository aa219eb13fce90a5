// Unit tests of the tenant-location service (shared/tenant-locations/service.ts): Save, over the in-memory store
// (test/stores/tenant-locations/memory-tenant-location-store.ts, held to the DynamoDB repository by the store's
// contract suite), each test in tenants of its own.
import { describe, expect, it } from '@jest/globals';
import { refusal, serviceOnStore, t0 } from './support';

const nameRequired = { status: 400, name: 'ValidationFailed', detail: 'The request is not valid; see errors for each field.', errors: [{ pointer: '/Name', detail: 'is required' }] };
const parentProblem = (detail: string) => ({
  status: 400,
  name: 'ValidationFailed',
  detail: 'The request is not valid; see errors for each field.',
  errors: [{ pointer: '/ParentID', detail }],
});

describe('tenant-location service: Save creates', () => {
  it.each([
    ['absent', {}],
    ['empty', { Name: '' }],
    ['blank', { Name: ' \t ' }],
  ])('requires a Name (refuses one that is %s) and writes nothing', async (_case, input) => {
    // Prepare
    const { service, repository, principal, writes } = serviceOnStore();

    // Act
    const outcome = await refusal(service.save(principal, { Description: 'No name', ...input }));

    // Assess: nothing was written and no ID was used up
    expect({ outcome, writes: writes.length, nextId: await repository.nextId(principal.tenantId) }).toEqual({
      outcome: nameRequired,
      writes: 0,
      nextId: 1,
    });
  });

  it('sets ID, TenantLocationID, tenancy, Version 1, audit fields, IsActive and IsDefault, and ignores server-owned input', async () => {
    const { service, repository, principal } = serviceOnStore();

    const outcome = await service.save(principal, {
      ID: 0,
      TenantLocationID: 77,
      Name: '  Main Office  ',
      Description: 'Head office',
      Address: { City: 'Nelson', LocationID: 99, IsDefaultBilling: true },
      Phone: '+64 3 000 0000',
      RowNumber: 12,
      Version: 5,
      CreatedDateTime_utc: '2020-01-01T00:00:00.000Z',
      ModifiedDateTime_utc: '2020-01-02T00:00:00.000Z',
      CreatedByUserID: 99,
      ModifiedByUserID: 98,
      ParentName: 'Made up',
    });

    const expected = {
      ID: 1,
      TenantLocationID: 1,
      Name: 'Main Office',
      Description: 'Head office',
      Address: { City: 'Nelson', LocationID: 1, IsDefaultBilling: true },
      Phone: '+64 3 000 0000',
      TenantID: principal.tenantId,
      WebsiteID: 1,
      UserID: 3,
      IsActive: true,
      IsDefault: false,
      Version: 1,
      CreatedDateTime_utc: t0,
      CreatedByUserID: 3,
      ModifiedDateTime_utc: t0,
      ModifiedByUserID: 3,
    };
    expect({ outcome, stored: await repository.get(principal.tenantId, 1) }).toStrictEqual({ outcome: { created: true, location: expected }, stored: expected });
  });

  it('numbers the locations of each tenant on their own', async () => {
    const { service, principal, otherTenant } = serviceOnStore();

    const ids = [
      (await service.save(principal, { Name: 'A' })).location.ID,
      (await service.save(principal, { Name: 'B' })).location.ID,
      (await service.save(otherTenant, { Name: 'A' })).location.ID,
    ];

    expect(ids).toEqual([1, 2, 1]);
  });

  it('refuses a name another active location of the tenant holds, whatever its case and spacing', async () => {
    const { service, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1, { Name: 'Main Office' }));

    const outcome = await refusal(service.save(principal, { Name: '  MAIN office ' }));

    expect(outcome).toEqual({
      status: 409,
      name: 'NameTaken',
      detail: 'Another record of this tenant already has this name.',
      errors: [{ pointer: '/Name', detail: 'already in use' }],
    });
  });

  it("accepts a name used by a deleted location, or by another tenant's location", async () => {
    const { service, principal, otherTenant, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1, { Name: 'Main', IsActive: false }));
    await seed(storedLocation(1, { Name: 'Depot', TenantID: otherTenant.tenantId }));

    const saved = [(await service.save(principal, { Name: 'Main' })).location.Name, (await service.save(principal, { Name: 'Depot' })).location.Name];

    expect(saved).toEqual(['Main', 'Depot']);
  });
});

describe('tenant-location service: Save updates', () => {
  it('keeps ID, creation and absent fields; bumps Version and the modification fields', async () => {
    const { service, repository, principal, storedLocation, seed, advance } = serviceOnStore();
    await seed(storedLocation(4, { Version: 2, Description: 'Old', Phone: '111', UtcOffset: 720 }));
    const later = advance(60);

    const outcome = await service.save(principal, { ID: 4, Name: 'Renamed', Version: 2, Description: 'New', CreatedByUserID: 99 });

    const expected = storedLocation(4, {
      Name: 'Renamed',
      Description: 'New',
      Phone: '111',
      UtcOffset: 720,
      Version: 3,
      ModifiedDateTime_utc: later,
      ModifiedByUserID: 3,
    });
    expect({ outcome, stored: await repository.get(principal.tenantId, 4) }).toStrictEqual({ outcome: { created: false, location: expected }, stored: expected });
  });

  it('clears a field sent explicitly empty', async () => {
    const { service, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(4, { Description: 'Old', Address: { City: 'Nelson', LocationID: 4 } }));

    const { location } = await service.save(principal, { ID: 4, Name: 'Location 4', Description: '', Address: {} });

    expect([location.Description, location.Address]).toEqual([undefined, undefined]);
  });

  it('refuses a stale Version with 409 and writes nothing', async () => {
    const { service, repository, principal, storedLocation, seed, writes } = serviceOnStore();
    await seed(storedLocation(4, { Version: 3 }));

    const outcome = await refusal(service.save(principal, { ID: 4, Name: 'Renamed', Version: 2 }));

    expect({ outcome, writes: writes.length, stored: (await repository.get(principal.tenantId, 4))?.Name }).toEqual({
      outcome: {
        status: 409,
        name: 'StaleVersion',
        detail: 'The record was changed by someone else; fetch it again and retry.',
        errors: [{ pointer: '/Version', detail: 'stale' }],
      },
      writes: 0,
      stored: 'Location 4',
    });
  });

  it('answers 404 for an ID the tenant does not have, even when another tenant has it', async () => {
    const { service, principal, otherTenant, storedLocation, seed, writes } = serviceOnStore();
    await seed(storedLocation(9, { TenantID: otherTenant.tenantId }));

    const outcomes = [await refusal(service.save(principal, { ID: 99, Name: 'X' })), await refusal(service.save(principal, { ID: 9, Name: 'X' }))];

    expect({ outcomes, writes: writes.length }).toEqual({
      outcomes: [
        { status: 404, name: 'NotFound', detail: 'Tenant location 99 does not exist.' },
        { status: 404, name: 'NotFound', detail: 'Tenant location 9 does not exist.' },
      ],
      writes: 0,
    });
  });

  it('retries when another writer got in first and the client sent no Version', async () => {
    const { service, principal, storedLocation, seed, writes, beforeNextWrite } = serviceOnStore();
    await seed(storedLocation(4, { Version: 1 }));
    beforeNextWrite(() => seed(storedLocation(4, { Version: 2, Phone: 'theirs' })));

    const { location } = await service.save(principal, { ID: 4, Name: 'Mine' });

    expect({ name: location.Name, version: location.Version, phone: location.Phone, writes: writes.length }).toEqual({
      name: 'Mine',
      version: 3,
      phone: 'theirs',
      writes: 2,
    });
  });

  it('answers 409 StaleVersion when another writer got in first and the client named the Version it edited', async () => {
    const { service, principal, storedLocation, seed, beforeNextWrite } = serviceOnStore();
    await seed(storedLocation(4, { Version: 1 }));
    beforeNextWrite(() => seed(storedLocation(4, { Version: 2 })));

    const outcome = await refusal(service.save(principal, { ID: 4, Name: 'Mine', Version: 1 }));

    expect(outcome).toEqual(expect.objectContaining({ status: 409, name: 'StaleVersion' }));
  });
});

describe('tenant-location service: the default location', () => {
  it('makes a location the default: the previous default reads false, and its record is not written', async () => {
    const { service, repository, principal, storedLocation, seed, writes } = serviceOnStore();
    await seed(storedLocation(1, { IsDefault: true, Version: 4 }));

    const { location } = await service.save(principal, { Name: 'New default', IsDefault: true });

    expect({
      isDefault: location.IsDefault,
      makesDefault: writes.map((write) => write.makesDefault),
      oldDefault: await repository.get(principal.tenantId, 1),
      pointer: await repository.defaultLocationId(principal.tenantId),
    }).toEqual({
      isDefault: true,
      makesDefault: [true],
      oldDefault: storedLocation(1, { IsDefault: false, Version: 4 }),
      pointer: location.ID,
    });
  });

  it('makes the first default', async () => {
    const { service, repository, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1));

    const { location } = await service.save(principal, { ID: 1, Name: 'Location 1', IsDefault: true });

    expect({ location, pointer: await repository.defaultLocationId(principal.tenantId) }).toEqual({
      location: storedLocation(1, { IsDefault: true, Version: 2, ModifiedDateTime_utc: t0, ModifiedByUserID: 3 }),
      pointer: 1,
    });
  });

  it('"make this the default" never conflicts: it wins over a default another writer set meanwhile', async () => {
    const { service, repository, principal, storedLocation, seed, beforeNextWrite } = serviceOnStore();
    await seed(storedLocation(1));
    await seed(storedLocation(2));
    beforeNextWrite(() => seed(storedLocation(2, { IsDefault: true, Version: 2 })));

    const { location } = await service.save(principal, { ID: 1, Name: 'Location 1', IsDefault: true });

    expect({
      saved: location.IsDefault,
      pointer: await repository.defaultLocationId(principal.tenantId),
      defaults: (await repository.listActiveByName(principal.tenantId)).filter((candidate) => candidate.IsDefault).map((candidate) => candidate.ID),
    }).toEqual({ saved: true, pointer: 1, defaults: [1] });
  });

  it('a save that only keeps the default, when another location became the default meanwhile, reads again and answers IsDefault false', async () => {
    const { service, repository, principal, storedLocation, seed, writes, beforeNextWrite } = serviceOnStore();
    await seed(storedLocation(1, { IsDefault: true }));
    await seed(storedLocation(2));
    beforeNextWrite(() => seed(storedLocation(2, { IsDefault: true, Version: 2 })));

    const { location } = await service.save(principal, { ID: 1, Name: 'Location 1', Description: 'edited', Version: 1 });

    expect({ location, writes: writes.length, pointer: await repository.defaultLocationId(principal.tenantId) }).toEqual({
      location: storedLocation(1, { Description: 'edited', IsDefault: false, Version: 2, ModifiedDateTime_utc: t0, ModifiedByUserID: 3 }),
      writes: 2,
      pointer: 2,
    });
  });

  it('keeps the default when an update does not mention IsDefault, and drops it when the location is deactivated', async () => {
    const { service, repository, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1, { IsDefault: true }));

    const kept = (await service.save(principal, { ID: 1, Name: 'Location 1', Description: 'x' })).location.IsDefault;
    const deactivated = (await service.save(principal, { ID: 1, Name: 'Location 1', IsActive: false })).location;

    expect({ kept, deactivated: [deactivated.IsActive, deactivated.IsDefault], pointer: await repository.defaultLocationId(principal.tenantId) }).toEqual({
      kept: true,
      deactivated: [false, false],
      pointer: undefined,
    });
  });

  it('never makes an inactive location the default: asked to, the save is refused (400 at /IsDefault) and writes nothing', async () => {
    const { service, repository, principal, storedLocation, seed, writes } = serviceOnStore();
    await seed(storedLocation(4, { IsActive: false }));
    const refused = {
      status: 400,
      name: 'ValidationFailed',
      detail: 'The request is not valid; see errors for each field.',
      errors: [{ pointer: '/IsDefault', detail: 'cannot be true for an inactive (deleted) location: send IsActive true with it to restore it as the default' }],
    };

    // A create that is inactive and the default at once; an update of a stored inactive location without IsActive.
    const outcomes = [await refusal(service.save(principal, { Name: 'Closed', IsActive: false, IsDefault: true })), await refusal(service.save(principal, { ID: 4, Name: 'Location 4', IsDefault: true }))];

    expect({ outcomes, writes: writes.length, nextId: await repository.nextId(principal.tenantId) }).toEqual({ outcomes: [refused, refused], writes: 0, nextId: 5 });
    // Restored with it, it is the default.
    expect((await service.save(principal, { ID: 4, Name: 'Location 4', IsActive: true, IsDefault: true })).location).toMatchObject({ IsActive: true, IsDefault: true });
  });
});

describe('tenant-location service: ParentID', () => {
  it('accepts an existing parent and records its name', async () => {
    const { service, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1, { Name: 'Region' }));

    const { location } = await service.save(principal, { Name: 'Branch', ParentID: 1 });

    expect([location.ParentID, location.ParentName]).toEqual([1, 'Region']);
  });

  it('keeps the parent and its name when an update does not mention ParentID', async () => {
    const { service, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1, { Name: 'Region' }));
    await seed(storedLocation(2, { Name: 'Branch', ParentID: 1, ParentName: 'Region' }));

    const { location } = await service.save(principal, { ID: 2, Name: 'Branch renamed' });

    expect([location.ParentID, location.ParentName]).toEqual([1, 'Region']);
  });

  it('refuses a location as its own parent', async () => {
    const { service, principal, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(1));

    expect(await refusal(service.save(principal, { ID: 1, Name: 'Location 1', ParentID: 1 }))).toEqual(
      parentProblem('a location cannot be its own parent'),
    );
  });

  it("refuses an unknown parent, including another tenant's location", async () => {
    const { service, principal, otherTenant, storedLocation, seed } = serviceOnStore();
    await seed(storedLocation(5, { TenantID: otherTenant.tenantId }));

    const outcomes = [await refusal(service.save(principal, { Name: 'A', ParentID: 42 })), await refusal(service.save(principal, { Name: 'A', ParentID: 5 }))];

    expect(outcomes).toEqual([parentProblem('no location of this tenant has this ID'), parentProblem('no location of this tenant has this ID')]);
  });

  it('refuses a parent that would make the hierarchy a loop', async () => {
    // Prepare: 1 <- 2 <- 3 (3's parent is 2, whose parent is 1)
    const { service, principal, storedLocation, seed, writes } = serviceOnStore();
    await seed(storedLocation(1));
    await seed(storedLocation(2, { ParentID: 1 }));
    await seed(storedLocation(3, { ParentID: 2 }));

    // Act: make 1 a child of 3
    const outcome = await refusal(service.save(principal, { ID: 1, Name: 'Location 1', ParentID: 3 }));

    // Assess
    expect({ outcome, writes: writes.length }).toEqual({
      outcome: parentProblem('this parent would make the hierarchy a loop'),
      writes: 0,
    });
  });

  it('refuses the second of two saves that would together make a loop (the write is conditional on the parent chain it read)', async () => {
    // Prepare: 1 <- 2, and 3 on its own. The save below reads 3 (no parent); before it writes, another save commits
    // 3 under 2: together they would make 2 <- 3 <- 2.
    const { service, principal, storedLocation, seed, writes, beforeNextWrite } = serviceOnStore();
    for (const location of [storedLocation(1), storedLocation(2, { ParentID: 1 }), storedLocation(3)]) await seed(location);
    beforeNextWrite(() => seed(storedLocation(3, { ParentID: 2, Version: 2 })));

    // Act: 2 under 3
    const outcome = await refusal(service.save(principal, { ID: 2, Name: 'Location 2', ParentID: 3 }));

    // Assess: its one write was refused for the chain that moved; read again, the loop was refused; 2 kept its parent
    expect({ outcome, writeAttempts: writes.length, stored: (await service.get(principal, 2)).ParentID }).toEqual({
      outcome: parentProblem('this parent would make the hierarchy a loop'),
      writeAttempts: 1,
      stored: 1,
    });
  });

  it("writes once the chain is read again, when an ancestor's parent changed without making a loop", async () => {
    const { service, principal, storedLocation, seed, writes, beforeNextWrite } = serviceOnStore();
    for (const location of [storedLocation(1), storedLocation(2), storedLocation(3, { ParentID: 1 })]) await seed(location);
    // Before the save's first write, 3 moves from under 1 to under 2.
    beforeNextWrite(() => seed(storedLocation(3, { ParentID: 2, Version: 2 })));

    const { location } = await service.save(principal, { Name: 'Branch', ParentID: 3 });

    // The first write was refused (3's parent is not the one read), the second made.
    expect([location.ParentID, writes.length, writes[1]?.lineage]).toEqual([3, 2, [{ id: 3, parentId: 2 }, { id: 2, parentId: undefined }]]);
  });

  it('holds no chain in the transaction of a save that sends back the parent it has, and holds it when the parent changes', async () => {
    const { service, principal, storedLocation, seed, writes } = serviceOnStore();
    for (const location of [storedLocation(1), storedLocation(2, { ParentID: 1 }), storedLocation(3, { ParentID: 2 }), storedLocation(4)]) await seed(location);

    await service.save(principal, { ID: 3, Name: 'Renamed, same parent', ParentID: 2 });
    await service.save(principal, { ID: 3, Name: 'Moved', ParentID: 4 });

    expect(writes.map((write) => write.lineage)).toEqual([[], [{ id: 4, parentId: undefined }]]);
  });

  it('refuses a parent that would put the location more than 16 levels below the top, and accepts one at 16', async () => {
    // Prepare: a chain 1 <- 2 <- ... <- 17 (each location's parent is the one before it)
    const { service, repository, principal, storedLocation, seed, writes } = serviceOnStore();
    for (let id = 1; id <= 17; id += 1) await seed(storedLocation(id, id === 1 ? {} : { ParentID: id - 1 }));
    const nextId = await repository.nextId(principal.tenantId);

    const tooDeep = await refusal(service.save(principal, { Name: 'Too deep', ParentID: 17 }));
    const deepest = await service.save(principal, { Name: 'Deepest', ParentID: 16 });

    expect({ tooDeep, writes: writes.length, deepest: deepest.location.ParentID, id: deepest.location.ID }).toEqual({
      tooDeep: parentProblem('this parent would put the location more than 16 levels below the top of its hierarchy'),
      writes: 1,
      deepest: 16,
      // The refused save took no ID.
      id: nextId + 1,
    });
  });
});
