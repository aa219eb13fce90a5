// Test support for the tenant-location store and service tests, in any tier: stored fixtures, the service over a
// store (the in-memory one in the unit tier, the DynamoDB repository in the integration tier) with a clock the test
// moves, in tenants of the test's own, and a reader of the errors the service throws.
import type { Principal } from '#shared/auth/principal';
import { ApiError } from '#shared/errors';
import type { TenantLocation } from '#shared/schemas/tenant-location';
import { createTenantLocationService } from '#shared/tenant-locations/service';
import type { LocationWrite, TenantLocationStore } from '#shared/tenant-locations/store';
import { freshTenantId } from '#test/support/tenant-items';

export const t0 = '2026-03-01T10:00:00.000Z';

/** Two callers of fresh tenants: the one a test acts as, and another whose data must stay apart. */
export const freshPrincipals = (): { principal: Principal; otherTenant: Principal } => ({
  principal: { tenantId: freshTenantId(), websiteId: 1, userId: 3 },
  otherTenant: { tenantId: freshTenantId(), websiteId: 2, userId: 30 },
});

/** A stored location of `tenantId` as an earlier save would have left it. */
export const locationOf =
  (tenantId: number) =>
  (id: number, overrides: Partial<TenantLocation> = {}): TenantLocation => ({
    ID: id,
    TenantLocationID: id,
    Name: `Location ${id}`,
    TenantID: tenantId,
    WebsiteID: 1,
    UserID: 3,
    IsActive: true,
    IsDefault: false,
    Version: 1,
    CreatedDateTime_utc: '2026-01-01T00:00:00.000Z',
    CreatedByUserID: 2,
    ModifiedDateTime_utc: '2026-01-01T00:00:00.000Z',
    ModifiedByUserID: 2,
    ...overrides,
  });

/**
 * Stores a location through the repository, as an earlier request would have (name claim and default pointer
 * included), replacing whatever version is stored, and moves the tenant's ID sequence past its id.
 */
export const seedLocation = async (repository: TenantLocationStore, location: TenantLocation): Promise<void> => {
  const previous = await repository.get(location.TenantID, location.ID);
  await repository.write({ next: location, previous, makesDefault: location.IsActive && location.IsDefault });
  if (!previous) while ((await repository.nextId(location.TenantID)) < location.ID);
};

/** The service over `store` in fresh tenants, with a clock that only moves when the test says so. */
export const serviceOver = (store: TenantLocationStore) => {
  const writes: LocationWrite[] = [];
  const interferences: (() => Promise<void>)[] = [];
  // The service's store: `store`, recording each write the service asks for, and letting a test play a concurrent
  // writer just before the next one.
  const recording: TenantLocationStore = {
    ...store,
    async write(request) {
      writes.push(structuredClone(request));
      await interferences.shift()?.();
      return store.write(request);
    },
  };
  let current = Date.parse(t0);
  const service = createTenantLocationService({ repository: recording, clock: () => new Date(current) });
  const { principal, otherTenant } = freshPrincipals();
  return {
    service,
    repository: store,
    principal,
    otherTenant,
    /** A stored location of the principal's tenant. */
    storedLocation: locationOf(principal.tenantId),
    seed: (location: TenantLocation) => seedLocation(store, location),
    writes,
    beforeNextWrite: (action: () => Promise<void>) => void interferences.push(action),
    /** Moves the clock and returns the new time as the service writes it. */
    advance: (seconds: number) => {
      current += seconds * 1000;
      return new Date(current).toISOString();
    },
  };
};

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
