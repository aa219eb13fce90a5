// Integration (bad-day review): a location saved before 1ed1007 changed the names' normal form (dashes folded, case
// and invisible characters) holds its name claim under the old key, and no migration moved stored claims. Its delete
// released the claim under the new key, conditional on its owner: the item is not there, and the delete was a
// conflict for ever (10 retries, then 409). A claim that is not there is given back already (shared/data/claims.ts).
import { describe, expect, it } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { composeKey, tenantKey } from '#shared/data/partition';
import { createTenantLocationRepository, toItem } from '#shared/tenant-locations/repository';
import { createTenantLocationService } from '#shared/tenant-locations/service';
import { freshTenantId, openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
const service = createTenantLocationService({ repository: createTenantLocationRepository(table) });
/** The normal form of names before 1ed1007. */
const earlierNormalForm = (value: string) => value.normalize('NFKC').trim().toLowerCase();

describe('a location whose name claim is stored under an earlier normal form', () => {
  it('is deleted, and renamed, as any other', async () => {
    const principal = { tenantId: freshTenantId(), websiteId: 1, userId: 3 };
    const now = new Date().toISOString();
    const stored = (id: number, name: string) => ({ ID: id, TenantLocationID: id, Name: name, TenantID: principal.tenantId, WebsiteID: 1, UserID: 3, IsActive: true, IsDefault: false, Version: 1, CreatedDateTime_utc: now, CreatedByUserID: 3, ModifiedDateTime_utc: now, ModifiedByUserID: 3 });
    const seed = async (id: number, name: string) => {
      await table.client.send(new PutCommand({ TableName: table.tableName, Item: toItem(stored(id, name) as never) }));
      await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...tenantKey(principal.tenantId, composeKey('LOCNAME', earlierNormalForm(name))), entity: 'TenantLocationName', LocationID: id } }));
    };
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...tenantKey(principal.tenantId, 'SEQ#LOC'), value: 2 } }));
    await seed(1, 'Main\u2013Store');
    await seed(2, 'North\u2013Depot');

    expect((await service.delete(principal, 1)).IsActive).toBe(false);
    expect((await service.save(principal, { ID: 2, Version: 1, Name: 'North Depot' })).location.Name).toBe('North Depot');
  });
});
