// Integration (bad-day review): GetByName with an exact name reads the name's claim, then the location it names. A
// rename that commits between the two reads moves the location off the name (and releases the claim in its own
// transaction), so the location read is no longer the name's: it was answered under its new name. The reads here see
// what that interleaving saw: the claim of "Main" naming location 1, and location 1 already named "North".
import { describe, expect, it } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { composeKey, tenantKey } from '#shared/data/partition';
import { normaliseName } from '#shared/tenant-locations/keys';
import { createTenantLocationRepository, toItem } from '#shared/tenant-locations/repository';
import { freshTenantId, openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
const repository = createTenantLocationRepository(table);

describe('an exact name whose location was renamed between the claim read and the location read', () => {
  it('is answered as free, never with the renamed location', async () => {
    const tenantId = freshTenantId();
    const now = new Date().toISOString();
    const renamed = { ID: 1, TenantLocationID: 1, Name: 'North', TenantID: tenantId, WebsiteID: 1, UserID: 3, IsActive: true, IsDefault: false, Version: 2, CreatedDateTime_utc: now, CreatedByUserID: 3, ModifiedDateTime_utc: now, ModifiedByUserID: 3 };
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: toItem(renamed as never) }));
    const claim = (name: string) => ({ ...tenantKey(tenantId, composeKey('LOCNAME', normaliseName(name))), entity: 'TenantLocationName', LocationID: 1 });
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: claim('Main') }));
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: claim('North') }));

    expect(await repository.findActiveByName(tenantId, 'Main')).toBeUndefined();
    expect((await repository.findActiveByName(tenantId, 'north'))?.Name).toBe('North');
  });
});
