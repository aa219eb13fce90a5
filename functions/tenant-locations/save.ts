// Entry: POST /TenantLocation/Save: creates (201 with Location) when ID is 0 or absent, otherwise updates (200).
import { httpOperation, respond } from '#shared/http/operation';
import { locationOf } from '#shared/http/location';
import { tenantLocationGet, tenantLocationSave } from '#shared/compiled/operations/tenant-locations';
import { tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();

export const handler = httpOperation(tenantLocationSave).handler(async ({ principal, body }) => {
  const { created, location } = await locations.save(principal, body);
  return created
    ? respond(201, location, { Location: locationOf(tenantLocationGet, { id: location.ID }) })
    : respond(200, location);
});
