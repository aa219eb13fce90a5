// Test support for the tenant-location service's unit tests: the service over the in-memory store, which passes the
// store port's contract suite as the DynamoDB repository does (test/stores/tenant-locations/).
import { serviceOver } from '#test/stores/tenant-locations/tenant-location-fixtures';
import { createMemoryTenantLocationStore } from '#test/stores/tenant-locations/memory-tenant-location-store';

export { refusal, t0 } from '#test/stores/tenant-locations/tenant-location-fixtures';

/** The service over a fresh in-memory store, in fresh tenants, with a clock the test moves. */
export const serviceOnStore = () => serviceOver(createMemoryTenantLocationStore());
