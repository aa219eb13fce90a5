// Data layer: key composition of the tenant-location entities. Every item of a tenant shares the partition
// `T#<tenant>`, so no query can ever reach another tenant's items.
import { globalIndex } from '../data/table';

/** Access pattern "a tenant's active locations by name", served by the generic index gsi1. */
export const activeLocationsByName = globalIndex('gsi1');

const pad = (id: number) => id.toString().padStart(10, '0');

export const tenantPartition = (tenantId: number) => `T#${tenantId}`;

export const locationKeyPrefix = 'LOC#';
export const locationKey = (tenantId: number, id: number) => ({ pk: tenantPartition(tenantId), sk: `${locationKeyPrefix}${pad(id)}` });

/** Holds a (normalised) name for one active location: the unit of the per-tenant uniqueness rule. */
export const nameClaimKey = (tenantId: number, nameKey: string) => ({ pk: tenantPartition(tenantId), sk: `LOCNAME#${nameKey}` });

/** Points at the tenant's one default location. */
export const defaultPointerKey = (tenantId: number) => ({ pk: tenantPartition(tenantId), sk: 'LOCDEFAULT' });

/** Per-tenant ID sequence: one small item per tenant, never a global hot counter. */
export const idCounterKey = (tenantId: number) => ({ pk: tenantPartition(tenantId), sk: 'SEQ#LOC' });

/**
 * Between the name and the id in the index sort key: U+0001 sorts below every character a name can hold (text
 * fields refuse control characters but tab, LF and CR), so "main" comes before "main street" and "main!". With
 * `#` (U+0023), names continuing with a space, `!` or `"` sorted before the shorter name.
 */
const nameIdSeparator = '\u0001';

/** Sparse index keys: present only while the location is active, so the index holds active locations only. */
export const activeIndexKeys = (tenantId: number, nameKey: string, id: number) => ({
  [activeLocationsByName.partitionKey]: `${tenantPartition(tenantId)}#LOC`,
  [activeLocationsByName.sortKey]: `${nameKey}${nameIdSeparator}${pad(id)}`,
});

/** Case-insensitive identity of a name: Unicode-normalised, trimmed, lower-cased. */
export const normaliseName = (name: string): string => name.normalize('NFKC').trim().toLowerCase();
