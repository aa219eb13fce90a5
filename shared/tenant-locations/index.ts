// Domain wiring: the tenant-location service over the function's table, created once per process.
import { defaultTable } from '../data/client';
import { createTenantLocationRepository } from './repository';
import { createTenantLocationService, type TenantLocationService } from './service';

let service: TenantLocationService | undefined;

export const tenantLocationService = (): TenantLocationService => {
  service ??= createTenantLocationService({ repository: createTenantLocationRepository(defaultTable()) });
  return service;
};
