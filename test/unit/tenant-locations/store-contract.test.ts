// Unit: the tenant-location store's contract suite (test/stores/tenant-locations/contract.ts) against the in-memory
// store the service's unit tests use; the integration tier runs the same suite against the DynamoDB repository.
import { describeTenantLocationStoreContract } from '#test/stores/tenant-locations/contract';
import { createMemoryTenantLocationStore } from '#test/stores/tenant-locations/memory-store';

describeTenantLocationStoreContract('in-memory store', () => ({ store: createMemoryTenantLocationStore(), tableName: 'memory' }));
