// Test support: what an end-to-end test needs to see of the table itself: a tenant id of its own (files run in
// parallel against one shared table) and every stored item of that tenant, to prove a request changed nothing.
import { randomInt } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { locationKey, tenantPartition } from '#shared/tenant-locations/keys';
import { localDynamoDbClient, requireLocalEndpoints } from './local-endpoints';

/** A tenant id no other test file uses (well above any fixed id a test might pick). */
export const freshTenantId = (): number => randomInt(100_000, 2_000_000_000);

export interface TenantTable {
  /** Every item of the tenant's partition `T#<tenant>` (locations, name claims, default pointer, ID sequence), by sort key. */
  items(tenantId: number): Promise<Record<string, unknown>[]>;
  /** The stored item of one location, keys and index attributes included. */
  location(tenantId: number, id: number): Promise<Record<string, unknown> | undefined>;
  close(): void;
}

/** Reads the local stack's table (strongly consistent). Call `close()` in afterAll. */
export const openTenantTable = (): TenantTable => {
  const { tableName } = requireLocalEndpoints();
  const raw = localDynamoDbClient();
  const client = DynamoDBDocumentClient.from(raw);
  return {
    async items(tenantId) {
      const items: Record<string, unknown>[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': tenantPartition(tenantId) },
            ConsistentRead: true,
            ExclusiveStartKey,
          }),
        );
        items.push(...((page.Items ?? []) as Record<string, unknown>[]));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return items;
    },
    async location(tenantId, id) {
      const { Item } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: locationKey(tenantId, id),
          ConsistentRead: true,
        }),
      );
      return Item as Record<string, unknown> | undefined;
    },
    close: () => raw.destroy(),
  };
};
