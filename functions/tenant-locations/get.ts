// Entry: GET /TenantLocation/Get/{id}: one location of the caller's tenant (404 for any other tenant's).
import { httpOperation } from '#shared/http/operation';
import { tenantLocationGet } from '#shared/compiled/operations/tenant-locations';
import { tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();

export const handler = httpOperation(tenantLocationGet).handler(({ principal, path }) => locations.get(principal, path.id));
