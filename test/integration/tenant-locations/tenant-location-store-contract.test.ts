// Integration: the tenant-location store's contract suite (test/stores/tenant-locations/
// tenant-location-store-contract.ts) against the DynamoDB repository on DynamoDB Local; the unit tier runs the same
// suite against the in-memory store.
import { createTenantLocationRepository } from '#shared/tenant-locations/repository';
import { describeTenantLocationStoreContract } from '#test/stores/tenant-locations/tenant-location-store-contract';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
describeTenantLocationStoreContract('DynamoDB repository (DynamoDB Local)', () => ({ store: createTenantLocationRepository(table), tableName: table.tableName }));
