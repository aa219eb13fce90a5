// Unit: the tenant-location store's contract suite (test/stores/tenant-locations/tenant-location-store-contract.ts)
// against the in-memory store the service's unit tests use; the integration tier runs the same suite against the
// DynamoDB repository.
import { describeTenantLocationStoreContract } from '#test/stores/tenant-locations/tenant-location-store-contract';
import { createMemoryTenantLocationStore } from '#test/stores/tenant-locations/memory-tenant-location-store';

describeTenantLocationStoreContract('in-memory store', () => ({ store: createMemoryTenantLocationStore(), tableName: 'memory' }));
