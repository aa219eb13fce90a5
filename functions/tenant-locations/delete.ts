// Entry: DELETE /TenantLocation/Delete/{id}: soft delete; returns the deleted location (again, when repeated).
import { httpOperation } from '#shared/http/operation';
import { tenantLocationDelete } from '#shared/compiled/operations/tenant-locations';
import { tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();

export const handler = httpOperation(tenantLocationDelete).handler(({ principal, path }) => locations.delete(principal, path.id));
