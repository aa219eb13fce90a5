// Entry: GET /TenantLocation/GetDefaultAddress/{id}?addressType=...: the location's address of that type.
import { httpOperation } from '#shared/http/operation';
import { tenantLocationGetDefaultAddress } from '#shared/compiled/operations/tenant-locations';
import { tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();

export const handler = httpOperation(tenantLocationGetDefaultAddress).handler(({ principal, path, query }) =>
  locations.getDefaultAddress(principal, path.id, query.addressType),
);
