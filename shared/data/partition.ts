// Data layer: the tenant partition and the composition of key values. Every item of a tenant lives in the
// partition `T#<tenant>`, so a Query of one tenant can never reach another tenant's items, and another tenant's
// data never changes what a request costs.

/** The primary key of an item: generic attribute names, composed values. */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/** Separates the parts of a composed key value. */
export const keySeparator = '#';

/** Joins the parts of a key value: `composeKey('LOC', '0000000007')` is `LOC#0000000007`. */
export const composeKey = (...parts: readonly (string | number)[]): string => parts.join(keySeparator);

/** Zero-padded to 10 digits, so numeric ids (up to 2^31 - 1) sort as numbers within a sort key. */
export const padNumber = (value: number): string => value.toString().padStart(10, '0');

/** The one partition of a tenant. */
export const tenantPartition = (tenantId: number): string => composeKey('T', tenantId);

/** An item of the tenant's partition. */
export const tenantKey = (tenantId: number, sk: string): ItemKey => ({ pk: tenantPartition(tenantId), sk });
