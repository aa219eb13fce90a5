// Test support for the tenant-location service tests: a service over the in-memory repository with a clock the test
// moves, stored-location fixtures, and a reader of the errors the service throws.
import type { Principal } from '../../../shared/auth/principal';
import { ApiError } from '../../../shared/errors';
import type { TenantLocation } from '../../../shared/schemas/tenant-location';
import { createTenantLocationService } from '../../../shared/tenant-locations/service';
import { createFakeRepository } from './fake-repository';

export const principal: Principal = { tenantId: 7, websiteId: 1, userId: 3 };
export const otherTenant: Principal = { tenantId: 8, websiteId: 2, userId: 30 };

export const t0 = '2026-03-01T10:00:00.000Z';

/** A service over a fresh in-memory repository, with a clock that only moves when the test says so. */
export const serviceWithFakes = () => {
  const repository = createFakeRepository();
  let current = Date.parse(t0);
  const service = createTenantLocationService({ repository, clock: () => new Date(current) });
  return {
    service,
    repository,
    /** Moves the clock and returns the new time as the service writes it. */
    advance: (seconds: number) => {
      current += seconds * 1000;
      return new Date(current).toISOString();
    },
  };
};

/** A stored location as an earlier save would have left it. */
export const storedLocation = (id: number, overrides: Partial<TenantLocation> = {}): TenantLocation => ({
  ID: id,
  TenantLocationID: id,
  Name: `Location ${id}`,
  TenantID: principal.tenantId,
  WebsiteID: principal.websiteId,
  UserID: principal.userId,
  IsActive: true,
  IsDefault: false,
  Version: 1,
  CreatedDateTime_utc: '2026-01-01T00:00:00.000Z',
  CreatedByUserID: 2,
  ModifiedDateTime_utc: '2026-01-01T00:00:00.000Z',
  ModifiedByUserID: 2,
  ...overrides,
});

/** What a rejected call threw, as a client would see it (status, detail, errors[]). */
export const refusal = async (pending: Promise<unknown>) => {
  try {
    await pending;
  } catch (error) {
    if (error instanceof ApiError) {
      return {
        status: error.status,
        name: error.name,
        detail: error.detail,
        ...(error.errors ? { errors: error.errors } : {}),
      };
    }
    throw error;
  }
  throw new Error('expected the call to be refused, but it succeeded');
};
