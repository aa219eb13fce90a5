// Data layer: key composition of the tenant-location entities, on the data kit. Every item of a tenant shares the
// partition `T#<tenant>`, so no query can ever reach another tenant's items.
import { defineClaim, normaliseClaimValue } from '#shared/data/claims';
import { composeKey, padNumber, tenantKey, tenantPartition } from '#shared/data/partition';
import { activeLocationsByName } from '#shared/data/indexes';

export { activeLocationsByName, tenantPartition };

/** The per-tenant sequence of location IDs (`SEQ#LOC`). */
export const locationSequence = 'LOC';

export const locationKeyPrefix = 'LOC#';
export const locationKey = (tenantId: number, id: number) => tenantKey(tenantId, `${locationKeyPrefix}${padNumber(id)}`);

/** The name held by one active location (`LOCNAME#<normalised name>`): the unit of the per-tenant uniqueness rule. */
export const locationName = defineClaim({ prefix: 'LOCNAME', entity: 'TenantLocationName', ownerAttribute: 'LocationID' });

/** Points at the tenant's one default location: the only record of which location is the default. */
export const defaultPointerKey = (tenantId: number) => tenantKey(tenantId, 'LOCDEFAULT');
export const defaultPointerItem = (tenantId: number, locationId: number) => ({
  ...defaultPointerKey(tenantId),
  entity: 'TenantLocationDefault',
  LocationID: locationId,
});

/** The partition of the active-locations-by-name index for a tenant. */
export const activeLocationsPartition = (tenantId: number) => composeKey(tenantPartition(tenantId), 'LOC');

/**
 * Between the name and the id in the index sort key: U+0001 sorts below every character a name can hold (text
 * fields refuse control characters but tab, LF and CR), so "main" comes before "main street" and "main!". With
 * `#` (U+0023), names continuing with a space, `!` or `"` sorted before the shorter name.
 */
const nameIdSeparator = '\u0001';

/** Where an active location sorts among the tenant's: by normalised name, a name before the longer names it begins, then by ID (the index's sort key). */
export const activeNameOrder = (nameKey: string, id: number): string => `${nameKey}${nameIdSeparator}${padNumber(id)}`;

/** Sparse index keys: present only while the location is active, so the index holds active locations only. */
export const activeIndexKeys = (tenantId: number, nameKey: string, id: number) => ({
  [activeLocationsByName.partitionKey]: activeLocationsPartition(tenantId),
  [activeLocationsByName.sortKey]: activeNameOrder(nameKey, id),
});

/** Case-insensitive identity of a name: Unicode-normalised, trimmed, lower-cased (the claims' rule). */
export const normaliseName = normaliseClaimValue;
