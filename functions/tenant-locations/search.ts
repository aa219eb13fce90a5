// Entry: PUT /TenantLocation/Search: one page of the tenant's locations matching the filter.
import { httpOperation } from '#shared/http/operation';
import { tenantLocationSearch } from '#shared/compiled/operations/tenant-locations';
import { tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();

export const handler = httpOperation(tenantLocationSearch).handler(({ principal, body }) =>
  locations.search(principal, body ?? {}),
);
