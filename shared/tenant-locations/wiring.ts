// Domain wiring (tenant locations): the service over the function's table and the store (repository.ts), created
// once per process (cold start), and the save's Idempotency-Key handling.
import { defaultTable } from '#shared/data/client';
import { createIdempotency, type Idempotency } from '#shared/data/idempotency';
import { createTenantLocationRepository } from './repository';
import { createTenantLocationService, type TenantLocationService } from './service';

export { idempotencyKeyHeader } from '#shared/data/idempotency';

let service: TenantLocationService | undefined;

export const tenantLocationService = (): TenantLocationService => {
  service ??= createTenantLocationService({ repository: createTenantLocationRepository(defaultTable()) });
  return service;
};

/** Idempotency-Key handling of the save: the key's claim is written in the location's own transaction. */
export const tenantLocationIdempotency = (operationId: string): Idempotency => createIdempotency(defaultTable(), operationId);
