// Entry: POST /TenantLocation/Save: creates (201 with Location) when ID is 0 or absent, otherwise updates (200).
// Once per Idempotency-Key: the key's claim is written in the location's own transaction (shared/data/idempotency.ts).
import { httpOperation, respond } from '#shared/http/operation';
import { tenantLocationSave } from '#shared/compiled/operations/tenant-locations';
import { savedAnswer } from '#shared/http/answers/tenant-locations';
import { idempotencyKeyHeader, tenantLocationIdempotency, tenantLocationService } from '#shared/tenant-locations/wiring';

const locations = tenantLocationService();
const idempotency = tenantLocationIdempotency(tenantLocationSave.operationId);

export const handler = httpOperation(tenantLocationSave).handler(async ({ principal, body, headers }) => {
  const answer = await idempotency.run({ tenantId: principal.tenantId, key: headers[idempotencyKeyHeader], request: { body } }, savedAnswer, (claim) =>
    locations.save(principal, body, claim),
  );
  return respond(answer.status, answer.body, { ...answer.headers });
});
