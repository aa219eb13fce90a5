// Integration: tenant-location reads that find candidates through the active-by-name index (eventually consistent on
// AWS; DynamoDB Local's is not, so the index's answers here come from a snapshot taken before the writes: the lag).
// A lookup by name prefix answers from the location itself, read strongly consistent: never a location deleted or
// renamed since, nor its old Version (found by a bad-day review: the stale entry was answered, active, and a save
// with its Version was a 409).
import { describe, expect, it } from '@jest/globals';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from '#shared/data/client';
import { activeLocationsByName } from '#shared/data/indexes';
import { activeLocationsPartition } from '#shared/tenant-locations/keys';
import { createTenantLocationRepository } from '#shared/tenant-locations/repository';
import { createTenantLocationService } from '#shared/tenant-locations/service';
import { openLocalTable } from '#test/integration/data/support';
import { freshTenantId } from '#test/support/tenant-items';

const table = openLocalTable();

/** The table, with the active-by-name index answering from a snapshot once `freeze` took one (the index's lag). */
const laggingIndex = () => {
  let frozen: Record<string, unknown>[] | undefined;
  const client = {
    send: async (command: unknown, ...rest: unknown[]) => {
      if (frozen && command instanceof QueryCommand && command.input.IndexName === activeLocationsByName.indexName) {
        // A Query of the snapshot, page by page as DynamoDB pages it (the sort key's order, Limit, ExclusiveStartKey).
        const sortKeyOf = (item: Record<string, unknown> | undefined) => String(item?.[activeLocationsByName.sortKey]);
        const prefix = command.input.ExpressionAttributeValues?.[':prefix'];
        const after = command.input.ExclusiveStartKey;
        const matching = frozen
          .filter((item) => typeof prefix !== 'string' || sortKeyOf(item).startsWith(prefix))
          .sort((left, right) => (sortKeyOf(left) < sortKeyOf(right) ? -1 : 1))
          .filter((item) => after === undefined || sortKeyOf(item) > sortKeyOf(after));
        const page = matching.slice(0, command.input.Limit ?? matching.length);
        return { Items: page, ...(page.length < matching.length ? { LastEvaluatedKey: page[page.length - 1] } : {}) };
      }
      return (table.client.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    },
  };
  return {
    table: { tableName: table.tableName, client } as unknown as TableContext,
    freeze: async (tenantId: number) => {
      const { Items = [] } = await table.client.send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: activeLocationsByName.indexName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': activeLocationsByName.partitionKey },
          ExpressionAttributeValues: { ':pk': activeLocationsPartition(tenantId) },
        }),
      );
      frozen = Items;
    },
  };
};

/** A fresh tenant, and the location service of the table whose index lags. */
const laggedService = () => {
  const lagging = laggingIndex();
  return {
    principal: { tenantId: freshTenantId(), websiteId: 1, userId: 3 },
    lagging,
    service: createTenantLocationService({ repository: createTenantLocationRepository(lagging.table) }),
  };
};

describe('a lookup by name prefix over a lagging index', () => {
  it('never answers a location deleted since the index was read; the next active match is answered instead', async () => {
    const { principal, lagging, service } = laggedService();
    const first = (await service.save(principal, { Name: 'Main Street' })).location;
    const second = (await service.save(principal, { Name: 'Main Wharf' })).location;
    await lagging.freeze(principal.tenantId);
    await service.delete(principal, first.ID);

    const found = await service.getByName(principal, { SearchString: 'Main', IsExactMatch: false });
    expect(found).toMatchObject({ ID: second.ID, Name: 'Main Wharf', IsActive: true, Version: second.Version });

    await service.delete(principal, second.ID);
    await expect(service.getByName(principal, { SearchString: 'Main', IsExactMatch: false })).rejects.toMatchObject({ name: 'NotFound' });
  });

  it('answers a location renamed since the index was read only while its new name still has the prefix, with its Version now', async () => {
    const { principal, lagging, service } = laggedService();
    const moved = (await service.save(principal, { Name: 'Main Street' })).location;
    const kept = (await service.save(principal, { Name: 'Mainland' })).location;
    await lagging.freeze(principal.tenantId);
    const renamed = (await service.save(principal, { ID: moved.ID, Name: 'Main Avenue' })).location;

    expect(await service.getByName(principal, { SearchString: 'Main ', IsExactMatch: false })).toMatchObject({ ID: moved.ID, Name: 'Main Avenue', Version: renamed.Version });
    await service.save(principal, { ID: moved.ID, Name: 'Harbour' });
    expect(await service.getByName(principal, { SearchString: 'Main', IsExactMatch: false })).toMatchObject({ ID: kept.ID, Name: 'Mainland' });
  });
});

describe('GetAll over a lagging index', () => {
  it('lists neither a location deleted since nor two active locations of one name; each as it is now, by its name now', async () => {
    const { principal, lagging, service } = laggedService();
    const main = (await service.save(principal, { Name: 'Main' })).location;
    const gone = (await service.save(principal, { Name: 'Annex' })).location;
    const kept = (await service.save(principal, { Name: 'Depot' })).location;
    await lagging.freeze(principal.tenantId);
    // Since the index was read: one deleted, one renamed away from "Main" (sorting after "Depot" now), which a new location took.
    await service.delete(principal, gone.ID);
    const renamed = (await service.save(principal, { ID: main.ID, Name: 'Old main' })).location;
    await service.save(principal, { Name: 'Main' });

    const listed = await service.getAll(principal);
    expect(listed.map((location) => [location.ID, location.Name, location.Version, location.IsActive])).toEqual([
      [kept.ID, 'Depot', kept.Version, true],
      [main.ID, 'Old main', renamed.Version, true],
    ]);
  });
});
