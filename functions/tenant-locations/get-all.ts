// Entry: GET /TenantLocation/GetAll: the tenant's active locations ordered by name.
import { httpOperation } from '#shared/http/operation';
import { tenantLocationGetAll } from '#shared/compiled/operations/tenant-locations';
import { tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();

export const handler = httpOperation(tenantLocationGetAll).handler(({ principal }) => locations.getAll(principal));
