// Data layer: tenant locations in the single table. Each write is one DynamoDB transaction whose conditions carry
// the rules that must hold under concurrency: one active location per name (a claim item), one default location
// (a pointer item) and optimistic versions. Reads never Scan: every read is a GetItem, a Query of the tenant's own
// partition, or a Query of the sparse activeLocationsByName index.
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { queryAll, type TableContext } from '../data/client';
import { ConcurrentModification, Conflict, NameTaken } from '../errors';
import { TenantLocation as tenantLocationSchema } from '../compiled/schemas/tenant-location';
import type { TenantLocation } from '../schemas/tenant-location';
import {
  activeIndexKeys,
  activeLocationsByName,
  defaultPointerKey,
  idCounterKey,
  locationKey,
  locationKeyPrefix,
  nameClaimKey,
  normaliseName,
  tenantPartition,
} from './keys';

const locationFields = Object.keys(tenantLocationSchema.shape) as (keyof TenantLocation)[];
const maxInt32 = 2 ** 31 - 1;

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

/** The stored item of a location (exported for test/bench, which seeds other tenants with BatchWriteItem). */
export const toItem = (location: TenantLocation) => {
  const nameKey = normaliseName(location.Name);
  return {
    ...locationKey(location.TenantID, location.ID),
    entity: 'TenantLocation',
    ...location,
    nameKey,
    searchText: searchTextOf(location),
    ...(location.IsActive ? activeIndexKeys(location.TenantID, nameKey, location.ID) : {}),
  };
};

/** Only the record's own fields leave the data layer: never keys, index attributes or search text. */
const fromItem = (item: Record<string, unknown>): TenantLocation => {
  const location: Record<string, unknown> = {};
  for (const field of locationFields) if (item[field] !== undefined) location[field] = item[field];
  return location as TenantLocation;
};

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

type Role = 'location' | 'claim-put' | 'claim-release' | 'old-default' | 'pointer';

const isActiveDefault = (location: TenantLocation | undefined) => Boolean(location?.IsActive && location.IsDefault);

export const createTenantLocationRepository = ({ client, tableName }: TableContext) => {
  return {
    async get(tenantId: number, id: number): Promise<TenantLocation | undefined> {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: locationKey(tenantId, id), ConsistentRead: true }));
      return Item ? fromItem(Item) : undefined;
    },

    /** Next ID of the tenant's sequence. A failed save leaves a gap, which IDs may have. */
    async nextId(tenantId: number): Promise<number> {
      const { Attributes } = await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: idCounterKey(tenantId),
          UpdateExpression: 'ADD #value :one',
          ExpressionAttributeNames: { '#value': 'value' },
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const id = Number(Attributes?.value);
      if (!Number.isInteger(id) || id > maxInt32) throw new Conflict('This tenant has used every location ID.');
      return id;
    },

    async defaultLocationId(tenantId: number): Promise<number | undefined> {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: defaultPointerKey(tenantId), ConsistentRead: true }));
      return typeof Item?.LocationID === 'number' ? Item.LocationID : undefined;
    },

    /** The active location holding this exact (normalised) name. */
    async findActiveByName(tenantId: number, name: string): Promise<TenantLocation | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: nameClaimKey(tenantId, normaliseName(name)), ConsistentRead: true }),
      );
      if (typeof Item?.LocationID !== 'number') return undefined;
      const location = await this.get(tenantId, Item.LocationID);
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
          ExpressionAttributeValues: { ':pk': `${tenantPartition(tenantId)}#LOC`, ':prefix': normaliseName(prefix) },
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
        ExpressionAttributeValues: { ':pk': `${tenantPartition(tenantId)}#LOC` },
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
      const roles: Role[] = [];
      const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [];
      const add = (role: Role, item: (typeof items)[number]) => {
        roles.push(role);
        items.push(item);
      };

      add('location', {
        Put: {
          TableName: tableName,
          Item: toItem(next),
          ...(previous
            ? {
                ConditionExpression: '#version = :expected',
                ExpressionAttributeNames: { '#version': 'Version' },
                ExpressionAttributeValues: { ':expected': previous.Version },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      });

      const previousClaim = previous?.IsActive ? normaliseName(previous.Name) : undefined;
      const nextClaim = next.IsActive ? normaliseName(next.Name) : undefined;
      if (previousClaim !== nextClaim) {
        if (previousClaim !== undefined) {
          add('claim-release', {
            Delete: {
              TableName: tableName,
              Key: nameClaimKey(tenantId, previousClaim),
              ConditionExpression: 'LocationID = :id',
              ExpressionAttributeValues: { ':id': next.ID },
            },
          });
        }
        if (nextClaim !== undefined) {
          add('claim-put', {
            Put: {
              TableName: tableName,
              Item: { ...nameClaimKey(tenantId, nextClaim), entity: 'TenantLocationName', LocationID: next.ID },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          });
        }
      }

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

      try {
        await client.send(new TransactWriteCommand({ TransactItems: items }));
      } catch (error) {
        if ((error as Error).name !== 'TransactionCanceledException') throw error;
        const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
        const failed = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
        if (roles[failed] === 'claim-put') throw new NameTaken();
        throw new ConcurrentModification();
      }
    },
  };
};

export type TenantLocationRepository = ReturnType<typeof createTenantLocationRepository>;
