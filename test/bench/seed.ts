// Benchmark: test data. The measured tenants are filled through the tenant-location service (the same code path as
// Save: ID sequence, name claims, default pointer, transactions). Bulk data (copies of a measured tenant, the
// other tenants) is written with BatchWriteItem, using the repository's own item builder (`toItem`) and the key
// builders of shared/tenant-locations/keys.ts, so every item has exactly the shape Save writes.
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/principal';
import type { TableContext } from '#shared/data/client';
import type { TenantLocation, TenantLocationInfo } from '#shared/schemas/tenant-location';
import { sequenceKey } from '#shared/data/sequence';
import { defaultPointerItem, locationName, locationSequence } from '#shared/tenant-locations/keys';
import { createTenantLocationRepository, toItem } from '#shared/tenant-locations/repository';
import { createTenantLocationService } from '#shared/tenant-locations/service';

const places = [
  ['Perth', 'WA', '6000'],
  ['Fremantle', 'WA', '6160'],
  ['Bunbury', 'WA', '6230'],
  ['Sydney', 'NSW', '2000'],
  ['Newcastle', 'NSW', '2300'],
  ['Melbourne', 'VIC', '3000'],
  ['Geelong', 'VIC', '3220'],
  ['Brisbane', 'QLD', '4000'],
  ['Cairns', 'QLD', '4870'],
  ['Adelaide', 'SA', '5000'],
  ['Hobart', 'TAS', '7000'],
  ['Darwin', 'NT', '0800'],
] as const;
const kinds = ['Store', 'Warehouse', 'Depot', 'Service Centre', 'Office', 'Showroom'] as const;

const place = (index: number) => places[index % places.length] as (typeof places)[number];

/** A realistic Save body: name, description, a full address, contact details. The first one is the default. */
export const locationInput = (index: number, prefix: string): TenantLocationInfo => {
  const [city, state, postCode] = place(index);
  const kind = kinds[index % kinds.length] as string;
  return {
    Name: `${prefix} ${kind} ${String(index).padStart(5, '0')}`,
    Description: `${kind} in ${city}: opening hours 8-6 weekdays, 9-1 Saturdays; loading dock at the rear.`,
    Address: {
      StreetAddress: `${100 + (index % 900)} ${['Hay', 'Murray', 'George', 'Collins', 'Queen'][index % 5]} Street`,
      City: city,
      State: state,
      PostCode: postCode,
      Country: 'Australia',
      FullAddress: `${100 + (index % 900)} Main Street, ${city} ${state} ${postCode}, Australia`,
      AddressType: 1 + (index % 4),
      IsDefaultBilling: index === 1,
      IsOfficeOrShop: true,
    },
    EmailAddress: `location${index}@example.com`,
    Phone: `+61 8 9${String(index).padStart(3, '0').slice(-3)} ${String(1000 + (index % 9000))}`,
    UtcOffset: 480,
    IsDefault: index === 1,
  };
};

/** Runs `work` over `items` with at most `concurrency` in flight. */
export const inPool = async <T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
};

export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

/** `count` locations created through the service, as Save creates them (location 1 is the tenant's default). */
export const seedThroughService = async (
  table: TableContext,
  principal: Principal,
  count: number,
  prefix: string,
  concurrency = 6,
  onProgress?: (done: number) => void,
): Promise<void> => {
  const service = createTenantLocationService({ repository: createTenantLocationRepository(table) });
  if (count === 0) return;
  await service.save(principal, locationInput(1, prefix));
  let done = 1;
  await inPool(range(2, count), concurrency, async (index) => {
    await service.save(principal, locationInput(index, prefix));
    done += 1;
    if (done % 250 === 0) onProgress?.(done);
  });
};

/** Every item Save would have written for these locations: location, name claim, default pointer, ID sequence. */
export const tenantItems = (locations: readonly TenantLocation[]): Record<string, unknown>[] => {
  const items: Record<string, unknown>[] = [];
  const maxIdByTenant = new Map<number, number>();
  for (const location of locations) {
    items.push(toItem(location));
    if (location.IsActive) {
      items.push(locationName.item(location.TenantID, location.Name, location.ID));
    }
    if (location.IsActive && location.IsDefault) {
      items.push(defaultPointerItem(location.TenantID, location.ID));
    }
    maxIdByTenant.set(location.TenantID, Math.max(maxIdByTenant.get(location.TenantID) ?? 0, location.ID));
  }
  for (const [tenantId, maxId] of maxIdByTenant) items.push({ ...sequenceKey(tenantId, locationSequence), value: maxId });
  return items;
};

/** A stored location as the service would build it from `locationInput` (for bulk tenants, without the service). */
export const syntheticLocation = (tenantId: number, id: number, prefix: string, timestamp: string): TenantLocation => {
  const input = locationInput(id, prefix);
  return {
    Description: input.Description,
    Address: { ...input.Address, LocationID: id },
    EmailAddress: input.EmailAddress,
    Phone: input.Phone,
    UtcOffset: input.UtcOffset,
    ID: id,
    TenantLocationID: id,
    Name: input.Name as string,
    TenantID: tenantId,
    WebsiteID: 1,
    UserID: 1,
    IsActive: true,
    IsDefault: id === 1,
    Version: 1,
    CreatedDateTime_utc: timestamp,
    CreatedByUserID: 1,
    ModifiedDateTime_utc: timestamp,
    ModifiedByUserID: 1,
  };
};

/** The locations of one tenant re-homed to another tenant (same records, other TenantID). */
export const copyLocations = (locations: readonly TenantLocation[], tenantId: number): TenantLocation[] =>
  locations.map((location) => ({ ...location, TenantID: tenantId }));

/** BatchWriteItem in chunks of 25, `concurrency` requests in flight, unprocessed items retried with back-off. */
export const batchWriteAll = async (
  table: TableContext,
  items: readonly Record<string, unknown>[],
  concurrency = 6,
  onProgress?: (written: number) => void,
): Promise<void> => {
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < items.length; start += 25) chunks.push(items.slice(start, start + 25));
  let written = 0;
  let reported = 0;
  await inPool(chunks, concurrency, async (chunk) => {
    let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 8) throw new Error(`BatchWriteItem: ${pending.length} item(s) still unprocessed after ${attempt} attempts`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
      const { UnprocessedItems } = await table.client.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
      pending = (UnprocessedItems?.[table.tableName] ?? []) as typeof pending;
    }
    written += chunk.length;
    if (onProgress && written - reported >= 5000) {
      reported = written;
      onProgress(written);
    }
  });
};
