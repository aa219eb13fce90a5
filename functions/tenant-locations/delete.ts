// Entry: DELETE /TenantLocation/Delete/{id}[?Version=n]: soft delete (a compare-and-set with Version); returns the
// deleted location (again, when repeated).
import { httpOperation } from '#shared/http/operation';
import { tenantLocationDelete } from '#shared/compiled/operations/tenant-locations';
import { tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();

export const handler = httpOperation(tenantLocationDelete).handler(({ principal, path, query }) => locations.delete(principal, path.id, query.Version));
