// Data layer: tenant locations in the single table, on the data kit. Each write is one transaction whose
// conditions carry the rules that must hold under concurrency: one active location per name (a name claim) and
// optimistic versions. The tenant's default is the pointer item alone: "make this the default" puts the pointer
// unconditionally (the last committed wins, and conflicts with nobody), and every read derives a location's
// IsDefault from the pointer read with it, so no location item carries a flag that could go stale. Reads never
// Scan: every read is a GetItem, a Query of the tenant's own partition, or a Query of the sparse index of active
// locations by name.
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, queryAll, type TableContext } from '#shared/data/client';
import { tableDefinition } from '#shared/data/table';
import { searchableText } from '#shared/data/visible-text';
import { claimChanges } from '#shared/data/claims';
import { defineCodec, fieldsOf } from '#shared/data/codec';
import { assertItemFits, keyValueFits } from '#shared/data/item-size';
import { nextValue, ValueInUse, withNextValue } from '#shared/data/sequence';
import { readSnapshot } from '#shared/data/snapshot';
import { transact, transactionActions } from '#shared/data/transaction';
import { versionedPut } from '#shared/data/versioned';
import { ConcurrentModification, NameTaken, VersionConflict } from '#shared/errors';
import { TenantLocation as tenantLocationSchema } from '#shared/compiled/schemas/tenant-location';
import type { TenantLocation } from '#shared/schemas/tenant-location';
import type { LocationFilter, LocationWrite, TenantLocationStore } from './store';
import {
  activeIndexKeys,
  activeLocationsByName,
  activeNameOrder,
  activeLocationsPartition,
  defaultPointerItem,
  defaultPointerKey,
  locationKey,
  locationKeyPrefix,
  locationName,
  locationSequence,
  normaliseName,
  tenantPartition,
} from './keys';

/**
 * The text Search's SearchString matches with `contains` (`searchableText`, as delivery receipts'). A location saved
 * before this form (NFKC and lower case only) keeps matching a search of plain text; it matches one with a dash, an
 * invisible character or a case-folded letter (ß) once saved again.
 */
export const searchTextOf = (location: TenantLocation): string =>
  searchableText([
    location.Name,
    location.Description,
    location.Address?.FullAddress,
    location.Address?.StreetAddress,
    location.Address?.City,
    location.Address?.State,
    location.Address?.PostCode,
    location.Address?.Country,
    location.Address?.AddressDescription,
  ]);

/** Stored with its name key, search text and (while active) the index keys; only its own fields come back. */
const locations = defineCodec<TenantLocation, keyof TenantLocation>({
  entity: 'TenantLocation',
  fields: fieldsOf<TenantLocation>(tenantLocationSchema),
  key: (location) => locationKey(location.TenantID, location.ID),
  internal: (location) => {
    const nameKey = normaliseName(location.Name);
    return {
      nameKey,
      searchText: searchTextOf(location),
      ...(location.IsActive ? activeIndexKeys(location.TenantID, nameKey, location.ID) : {}),
    };
  },
});

/**
 * The stored item of a location (exported for test/bench, which seeds other tenants with BatchWriteItem). IsDefault
 * is not stored: the tenant's default pointer decides it.
 */
export const toItem = (location: TenantLocation) => locations.toItem({ ...location, IsDefault: undefined } as unknown as TenantLocation);

/** Refuses (413) a location whose item DynamoDB would refuse (Save checks it before a create takes an ID). */
export const assertLocationFits = (location: TenantLocation): void => assertItemFits(toItem(location));

/** The one way every read turns an item into a location: IsDefault is "active, and the pointer names it". */
const fromItem = (item: Record<string, unknown>, defaultId: number | undefined): TenantLocation =>
  locations.fromItem({ ...item, IsDefault: item.IsActive === true && item.ID === defaultId }) as TenantLocation;

/** The default pointer moved while a save kept or dropped the default: read again (never a stale Version). */
export class DefaultMoved extends ConcurrentModification {
  override readonly name: string = 'DefaultMoved';
}

/** A location of the new parent's chain changed its parent (or went) while a save read it: read the chain again. */
export class HierarchyMoved extends ConcurrentModification {
  override readonly name: string = 'HierarchyMoved';
}

export type { LocationFilter, LocationWrite, ParentLink } from './store';

/** The location the tenant's default pointer item names, if any. */
const pointedId = (pointer: Record<string, unknown> | undefined): number | undefined => (typeof pointer?.LocationID === 'number' ? pointer.LocationID : undefined);

type Role = 'location' | 'claim' | 'claim-release' | 'pointer' | 'ancestor';

const isActiveDefault = (location: TenantLocation | undefined) => Boolean(location?.IsActive && location.IsDefault);

export const createTenantLocationRepository = (table: TableContext): TenantLocationStore => {
  const { client, tableName } = table;
  /** A location's item as stored (strongly consistent); its IsDefault comes from the pointer, read beside it. */
  const readLocationItem = async (tenantId: number, id: number) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: locationKey(tenantId, id), ConsistentRead: true }))).Item;
  return {
    assertFits: assertLocationFits,

    /**
     * A location with IsDefault from the pointer as of the same moment: one TransactGetItems of both (shared/data/
     * snapshot.ts). Every save and delete decides from this read what becomes of the pointer; read by two GetItems
     * at once, a "make this the default" committed between them showed the location at its new Version beside the
     * pointer as it was, and the delete that followed left the pointer naming a deleted location.
     */
    async get(tenantId: number, id: number): Promise<TenantLocation | undefined> {
      const [item, pointer] = await readSnapshot(table, [locationKey(tenantId, id), defaultPointerKey(tenantId)]);
      return item ? fromItem(item, pointedId(pointer)) : undefined;
    },

    /** Next ID of the tenant's sequence. A failed save leaves a gap, which IDs may have. */
    nextId: (tenantId: number): Promise<number> => nextValue(table, tenantId, locationSequence, 'location ID'),

    /** Runs a create with the next ID, given back if the create is refused with nothing written (a name taken). */
    withNextId: <T>(tenantId: number, create: (id: number) => Promise<T>): Promise<T> => withNextValue(table, tenantId, locationSequence, 'location ID', create),

    async defaultLocationId(tenantId: number): Promise<number | undefined> {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: defaultPointerKey(tenantId), ConsistentRead: true }));
      return pointedId(Item);
    },

    /**
     * The active location holding this exact (normalised) name: its owner and the pointer read at once, then the
     * location, answered only while it still holds the name. Renamed between the two reads, it released the name in
     * its rename's transaction: the name was free at that moment, and no location holds it as this request saw it
     * (before, the renamed location was answered under its new name).
     */
    async findActiveByName(tenantId: number, name: string): Promise<TenantLocation | undefined> {
      const [owner, defaultId] = await Promise.all([locationName.owner(table, tenantId, name), this.defaultLocationId(tenantId)]);
      if (typeof owner !== 'number') return undefined;
      const item = await readLocationItem(tenantId, owner);
      return item?.IsActive === true && item.nameKey === normaliseName(name) ? fromItem(item, defaultId) : undefined;
    },

    /**
     * The first active location, by name, whose name starts with `prefix`, other than `ignoreId`'s. The index finds
     * the candidates in name order; each is answered from the location itself, read strongly consistent, and only
     * while it is still active under a name with that prefix. The index is eventually consistent: an entry may be a
     * location deleted or renamed a moment ago, and answering the entry (as before) gave a deleted location as
     * active, with a Version whose save was a 409. A stale entry is passed over; the next candidate is read.
     */
    async findFirstActiveByNamePrefix(tenantId: number, prefix: string, ignoreId?: number): Promise<TenantLocation | undefined> {
      const namePrefix = normaliseName(prefix);
      // Longer than any stored name's key may be: no name starts with it.
      if (!keyValueFits(namePrefix, 'sort')) return undefined;
      const defaultId = this.defaultLocationId(tenantId);
      // Awaited below; handled now, so that a failed Query first leaves no unhandled rejection behind.
      defaultId.catch(() => undefined);
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      // The first page holds the answer unless entries are stale: one more when one location is left out (names are
      // unique, so it is at most one of the first two); later pages are larger.
      let Limit = ignoreId === undefined ? 1 : 2;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: activeLocationsByName.indexName,
            KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
            ExpressionAttributeNames: { '#pk': activeLocationsByName.partitionKey, '#sk': activeLocationsByName.sortKey },
            ExpressionAttributeValues: { ':pk': activeLocationsPartition(tenantId), ':prefix': namePrefix },
            Limit,
            ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
          }),
        );
        for (const candidate of page.Items ?? []) {
          if (candidate.ID === ignoreId || typeof candidate.ID !== 'number') continue;
          const item = await readLocationItem(tenantId, candidate.ID);
          if (item?.IsActive === true && typeof item.nameKey === 'string' && item.nameKey.startsWith(namePrefix)) return fromItem(item, await defaultId);
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
        Limit = 25;
      } while (ExclusiveStartKey);
      await defaultId;
      return undefined;
    },

    /**
     * The tenant's active locations by name. The index lists which they are (only their IDs are read from it); each
     * is then read from the location itself, strongly consistent, and kept only while it is still active, ordered by
     * its name now. The index is eventually consistent: answered from it (as before), a location deleted a moment
     * ago was listed active, and one renamed away from a name beside the location that took the name since made two
     * active locations of one name. A location created a moment ago may still be missing (the index's lag, no more).
     */
    async listActiveByName(tenantId: number): Promise<TenantLocation[]> {
      const [entries, defaultId] = await Promise.all([
        queryAll(client, {
          TableName: tableName,
          IndexName: activeLocationsByName.indexName,
          KeyConditionExpression: '#pk = :pk',
          // The table's key of each entry: what the reads below need (and what tells the index's items apart).
          ProjectionExpression: '#tablePk, #tableSk',
          ExpressionAttributeNames: { '#pk': activeLocationsByName.partitionKey, '#tablePk': tableDefinition.partitionKey, '#tableSk': tableDefinition.sortKey },
          ExpressionAttributeValues: { ':pk': activeLocationsPartition(tenantId) },
        }),
        this.defaultLocationId(tenantId),
      ]);
      const keys = entries.map((entry) => ({ [tableDefinition.partitionKey]: entry[tableDefinition.partitionKey], [tableDefinition.sortKey]: entry[tableDefinition.sortKey] }));
      const items = await batchGetAll(table, keys, { consistent: true });
      const byName = (item: Record<string, unknown>) => activeNameOrder(String(item.nameKey), item.ID as number);
      return items
        .filter((item) => item.IsActive === true)
        .sort((left, right) => (byName(left) < byName(right) ? -1 : byName(left) > byName(right) ? 1 : 0))
        .map((item) => fromItem(item, defaultId));
    },

    /** The tenant's locations in ID order, filtered in DynamoDB (the read costs the tenant's partition, no more). */
    async list(tenantId: number, filter: LocationFilter): Promise<TenantLocation[]> {
      const conditions: string[] = [];
      const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk' };
      const values: Record<string, unknown> = { ':pk': tenantPartition(tenantId), ':prefix': locationKeyPrefix };
      const equals = (attribute: string, value: unknown) => {
        names[`#${attribute}`] = attribute;
        values[`:${attribute}`] = value;
        conditions.push(`#${attribute} = :${attribute}`);
      };
      if (filter.isActive !== undefined) equals('IsActive', filter.isActive);
      else if (!filter.includeInactive) equals('IsActive', true);
      if (filter.customerId !== undefined) equals('CustomerID', filter.customerId);
      if (filter.parentId !== undefined) equals('ParentID', filter.parentId);
      if (filter.search) {
        const attribute = filter.searchNameOnly ? 'nameKey' : 'searchText';
        names['#text'] = attribute;
        values[':search'] = filter.search;
        conditions.push('contains(#text, :search)');
      }
      const [items, defaultId] = await Promise.all([
        queryAll(client, {
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          // Strongly consistent: a location as it is, never as it was before a rename or a delete of the last second.
          ConsistentRead: true,
          ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
        this.defaultLocationId(tenantId),
      ]);
      return items.map((item) => fromItem(item, defaultId));
    },

    /**
     * Writes a location and everything its rules touch, atomically. A failed version condition is VersionConflict,
     * a taken name NameTaken, a default pointer that moved meanwhile DefaultMoved, a parent chain that changed since
     * the save read it HierarchyMoved; all but NameTaken are retried.
     */
    async write({ next, previous, makesDefault, claim, lineage = [] }: LocationWrite): Promise<void> {
      const tenantId = next.TenantID;
      // A create whose ID is a location of its parent chain (a sequence behind) would name one item twice in the
      // transaction, which DynamoDB refuses outright (ValidationException), not as a condition: its ID is in use.
      if (!previous && lineage.some((link) => link.id === next.ID)) throw new ValueInUse('location ID', next.ID);
      const { actions, add } = transactionActions<Role>();
      add('location', versionedPut(tableName, toItem(next), previous?.Version));

      const names = claimChanges(locationName, tableName, tenantId, next.ID, previous?.IsActive ? previous.Name : undefined, next.IsActive ? next.Name : undefined);
      if (names.release) add('claim-release', names.release);
      if (names.claim) add('claim', names.claim);

      const pointsAtNext = { ConditionExpression: 'LocationID = :id', ExpressionAttributeValues: { ':id': next.ID } };
      if (isActiveDefault(next) && makesDefault) {
        add('pointer', { Put: { TableName: tableName, Item: defaultPointerItem(tenantId, next.ID) } });
      } else if (isActiveDefault(next)) {
        add('pointer', { ConditionCheck: { TableName: tableName, Key: defaultPointerKey(tenantId), ...pointsAtNext } });
      } else if (isActiveDefault(previous)) {
        add('pointer', { Delete: { TableName: tableName, Key: defaultPointerKey(tenantId), ...pointsAtNext } });
      }

      // Each location of the parent chain as read: still there, with the same parent.
      for (const link of lineage) {
        add('ancestor', {
          ConditionCheck: {
            TableName: tableName,
            Key: locationKey(tenantId, link.id),
            ...(link.parentId === undefined
              ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(ParentID)' }
              : { ConditionExpression: 'ParentID = :parent', ExpressionAttributeValues: { ':parent': link.parentId } }),
          },
        });
      }

      await transact(table, actions, {
        // A create's own item there: its ID is in use (the sequence behind), taken past by `withNextId`.
        errors: { location: () => (previous ? new VersionConflict() : new ValueInUse('location ID', next.ID)), claim: () => new NameTaken(), pointer: () => new DefaultMoved(), ancestor: () => new HierarchyMoved() },
        ...(claim ? { claim } : {}),
      });
    },
  };
};
