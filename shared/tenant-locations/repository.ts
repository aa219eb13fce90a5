// Data layer: tenant locations in the single table, on the data kit. Each write is one transaction whose
// conditions carry the rules that must hold under concurrency: one active location per name (a name claim), one
// default location (a pointer item) and optimistic versions. Reads never Scan: every read is a GetItem, a Query of
// the tenant's own partition, or a Query of the sparse index of active locations by name.
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, type TableContext } from '../data/client';
import { claimChanges } from '../data/claims';
import { defineCodec, fieldsOf } from '../data/codec';
import { nextValue } from '../data/sequence';
import { transact, transactionActions } from '../data/transaction';
import { versionedPut } from '../data/versioned';
import { NameTaken } from '../errors';
import { TenantLocation } from '../schemas/tenant-location';
import {
  activeIndexKeys,
  activeLocationsByName,
  activeLocationsPartition,
  defaultPointerKey,
  locationKey,
  locationKeyPrefix,
  locationName,
  locationSequence,
  normaliseName,
  tenantPartition,
} from './keys';

/** The lower-cased text that Search's SearchString matches with `contains`. */
export const searchTextOf = (location: TenantLocation): string =>
  [
    location.Name,
    location.Description,
    location.Address?.FullAddress,
    location.Address?.StreetAddress,
    location.Address?.City,
    location.Address?.State,
    location.Address?.PostCode,
    location.Address?.Country,
    location.Address?.AddressDescription,
  ]
    .filter((part): part is string => typeof part === 'string' && part.length > 0)
    .join('\n')
    .normalize('NFKC')
    .toLowerCase();

/** Stored with its name key, search text and (while active) the index keys; only its own fields come back. */
const locations = defineCodec<TenantLocation, keyof TenantLocation>({
  entity: 'TenantLocation',
  fields: fieldsOf<TenantLocation>(TenantLocation),
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

/** The stored item of a location (exported for test/bench, which seeds other tenants with BatchWriteItem). */
export const toItem = (location: TenantLocation) => locations.toItem(location);
const fromItem = (item: Record<string, unknown>): TenantLocation => locations.fromItem(item) as TenantLocation;

export interface LocationFilter {
  readonly includeInactive: boolean;
  readonly isActive?: boolean;
  readonly customerId?: number;
  readonly parentId?: number;
  /** Lower-cased text to find with `contains`. */
  readonly search?: string;
  readonly searchNameOnly?: boolean;
}

export interface LocationWrite {
  readonly next: TenantLocation;
  /** The stored version this write replaces; absent for a create. */
  readonly previous?: TenantLocation;
  /** The tenant's default location read before the write, when `next` becomes the default. */
  readonly previousDefaultId?: number;
  readonly actorUserId: number;
  readonly now: string;
}

type Role = 'location' | 'claim' | 'claim-release' | 'old-default' | 'pointer';

const isActiveDefault = (location: TenantLocation | undefined) => Boolean(location?.IsActive && location.IsDefault);

export const createTenantLocationRepository = (table: TableContext) => {
  const { client, tableName } = table;
  return {
    async get(tenantId: number, id: number): Promise<TenantLocation | undefined> {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: locationKey(tenantId, id), ConsistentRead: true }));
      return Item ? fromItem(Item) : undefined;
    },

    /** Next ID of the tenant's sequence. A failed save leaves a gap, which IDs may have. */
    nextId: (tenantId: number): Promise<number> => nextValue(table, tenantId, locationSequence, 'location ID'),

    async defaultLocationId(tenantId: number): Promise<number | undefined> {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: defaultPointerKey(tenantId), ConsistentRead: true }));
      return typeof Item?.LocationID === 'number' ? Item.LocationID : undefined;
    },

    /** The active location holding this exact (normalised) name. */
    async findActiveByName(tenantId: number, name: string): Promise<TenantLocation | undefined> {
      const owner = await locationName.owner(table, tenantId, name);
      if (typeof owner !== 'number') return undefined;
      const location = await this.get(tenantId, owner);
      return location?.IsActive ? location : undefined;
    },

    /** The first active location, by name, whose name starts with `prefix`. */
    async findFirstActiveByNamePrefix(tenantId: number, prefix: string): Promise<TenantLocation | undefined> {
      const { Items } = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: activeLocationsByName.indexName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': activeLocationsByName.partitionKey, '#sk': activeLocationsByName.sortKey },
          ExpressionAttributeValues: { ':pk': activeLocationsPartition(tenantId), ':prefix': normaliseName(prefix) },
          Limit: 1,
        }),
      );
      const item = Items?.[0];
      return item ? fromItem(item) : undefined;
    },

    async listActiveByName(tenantId: number): Promise<TenantLocation[]> {
      const items = await queryAll(client, {
        TableName: tableName,
        IndexName: activeLocationsByName.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': activeLocationsByName.partitionKey },
        ExpressionAttributeValues: { ':pk': activeLocationsPartition(tenantId) },
      });
      return items.map(fromItem);
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
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      });
      return items.map(fromItem);
    },

    /** Writes a location and everything its rules touch, atomically. */
    async write({ next, previous, previousDefaultId, actorUserId, now }: LocationWrite): Promise<void> {
      const tenantId = next.TenantID;
      const { actions, add } = transactionActions<Role>();
      add('location', versionedPut(tableName, toItem(next), previous?.Version));

      const names = claimChanges(locationName, tableName, tenantId, next.ID, previous?.IsActive ? previous.Name : undefined, next.IsActive ? next.Name : undefined);
      if (names.release) add('claim-release', names.release);
      if (names.claim) add('claim', names.claim);

      const wasDefault = isActiveDefault(previous);
      const isDefault = isActiveDefault(next);
      if (isDefault && !wasDefault) {
        if (previousDefaultId !== undefined && previousDefaultId !== next.ID) {
          add('old-default', {
            Update: {
              TableName: tableName,
              Key: locationKey(tenantId, previousDefaultId),
              UpdateExpression: 'SET IsDefault = :false, Version = Version + :one, ModifiedDateTime_utc = :now, ModifiedByUserID = :actor',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':false': false, ':one': 1, ':now': now, ':actor': actorUserId },
            },
          });
        }
        add('pointer', {
          Put: {
            TableName: tableName,
            Item: { ...defaultPointerKey(tenantId), entity: 'TenantLocationDefault', LocationID: next.ID },
            ...(previousDefaultId === undefined
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : { ConditionExpression: 'LocationID = :previous', ExpressionAttributeValues: { ':previous': previousDefaultId } }),
          },
        });
      } else if (wasDefault && !isDefault) {
        add('pointer', {
          Delete: {
            TableName: tableName,
            Key: defaultPointerKey(tenantId),
            ConditionExpression: 'LocationID = :id',
            ExpressionAttributeValues: { ':id': next.ID },
          },
        });
      }

      await transact(table, actions, { errors: { claim: () => new NameTaken() } });
    },
  };
};

export type TenantLocationRepository = ReturnType<typeof createTenantLocationRepository>;
