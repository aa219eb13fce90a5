// Domain wiring (tenant locations): the service over the function's table and the store (repository.ts), created
// once per process (cold start).
import { defaultTable } from '#shared/data/client';
import { createTenantLocationRepository } from './repository';
import { createTenantLocationService, type TenantLocationService } from './service';

let service: TenantLocationService | undefined;

export const tenantLocationService = (): TenantLocationService => {
  service ??= createTenantLocationService({ repository: createTenantLocationRepository(defaultTable()) });
  return service;
};
