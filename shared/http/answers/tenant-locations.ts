// HTTP: the answer of a tenant-location save. The area returns the saved location; this module answers it, and the
// Idempotency-Key's claim keeps it whole (a location's fields are the tenant's site data: none is marked personal).
import { tenantLocationGet } from '#shared/compiled/operations/tenant-locations';
import type { Answer } from '#shared/data/idempotency';
import type { SaveOutcome } from '#shared/tenant-locations/service';
import { locationOf } from '#shared/http/location';

/** The location: 201 with a Location for a create, 200 for an update. */
export const savedAnswer = ({ created, location }: SaveOutcome): Answer => ({
  status: created ? 201 : 200,
  body: location,
  headers: created ? { Location: locationOf(tenantLocationGet, { id: location.ID }) } : {},
});
