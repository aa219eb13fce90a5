// Entry: POST /TenantLocation/GetByName: the active location whose name matches exactly or by prefix.
import { httpOperation } from '#shared/http/operation';
import { tenantLocationGetByName } from '#shared/compiled/operations/tenant-locations';
import { tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();

export const handler = httpOperation(tenantLocationGetByName).handler(({ principal, body }) =>
  locations.getByName(principal, body),
);
