// Test support: what an end-to-end test needs to see of the table itself: a tenant id of its own (files run in
// parallel against one shared table) and every stored item of that tenant, to prove a request changed nothing.
import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '#shared/data/client';
import { sequenceKey } from '#shared/data/sequence';
import { stockOnHandPartition } from '#shared/data/stock-on-hand-keys';
import { lineSortKeyPrefix, receiptPartition, receiptSequence } from '#shared/delivery-receipts/keys';
import { taskPartition, taskSequence } from '#shared/scheduled-tasks/keys';
import { locationKey, tenantPartition } from '#shared/tenant-locations/keys';
import { localDynamoDbClient, requireLocalEndpoints } from './local-endpoints';
import { scanAll } from './table-scan';

/** A tenant id no other test file uses (well above any fixed id a test might pick). */
/**
 * A tenant's Scan and its Queries (`query`) read at one moment: the stack keeps writing (a quarter-hourly task's run
 * lands at :00, :15, ...), so the Scan counts only when Queries just before and just after it read the same items; a
 * tenant that changed meanwhile is read again. Compare the two it returns.
 */
export const scanBetweenQueries = async <T>(scan: () => Promise<T>, query: () => Promise<T>): Promise<{ readonly scanned: T; readonly queried: T }> => {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const before = await query();
    const scanned = await scan();
    const queried = await query();
    if (isDeepStrictEqual(before, queried)) return { scanned, queried };
  }
  throw new Error('the tenant kept changing while its items were read');
};

export const freshTenantId = (): number => randomInt(100_000, 2_000_000_000);

type Item = Record<string, unknown>;

export interface TenantTable {
  /** Every item of the tenant's partition `T#<tenant>` (locations, name claims, default pointer, ID sequence), by sort key. */
  items(tenantId: number): Promise<Item[]>;
  /**
   * Every item of the tenant in every partition its keys can name, read with one Query per partition (no Scan of the
   * shared table), sorted by `pk` then `sk`: `T#<tenant>` (sequences, Idempotency-Key claims, payments, locations,
   * claims), each receipt `T#<tenant>#DR#<id>` and task `T#<tenant>#TASK#<id>` partition from 1 to one past its
   * sequence's last value (a refused create gives its value back, so what it wrote would sit there), and the
   * stock-on-hand partition `T#<tenant>#SOH#<item>` of every item the tenant's receipt lines name and of
   * `inventoryIds`. `scanned` proves, once per file, that nothing of the tenant lies outside these.
   */
  everything(tenantId: number, options?: { inventoryIds?: readonly number[] }): Promise<Item[]>;
  /** Every item of the tenant found by a Scan of the whole table (`T#<tenant>` and `T#<tenant>#...`), sorted as `everything`. Slow on a full table: once per file. */
  scanned(tenantId: number): Promise<Item[]>;
  /** The stored item of one location, keys and index attributes included. */
  location(tenantId: number, id: number): Promise<Item | undefined>;
  close(): void;
}

const byKey = (a: Item, b: Item) => `${String(a.pk)} ${String(a.sk)}`.localeCompare(`${String(b.pk)} ${String(b.sk)}`);
const upTo = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

/** Reads the local stack's table (strongly consistent). Call `close()` in afterAll. */
export const openTenantTable = (): TenantTable => {
  const { tableName } = requireLocalEndpoints();
  const raw = localDynamoDbClient();
  const client = DynamoDBDocumentClient.from(raw);
  const partition = (pk: string) =>
    queryAll(client, { TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true });
  const items = (tenantId: number) => partition(tenantPartition(tenantId));
  return {
    items,
    async everything(tenantId, { inventoryIds = [] } = {}) {
      const own = await items(tenantId);
      const lastValue = (name: string) => Number(own.find((item) => item.sk === sequenceKey(tenantId, name).sk)?.value ?? 0);
      const receipts = (await Promise.all(upTo(lastValue(receiptSequence) + 1).map((id) => partition(receiptPartition(tenantId, id))))).flat();
      const tasks = (await Promise.all(upTo(lastValue(taskSequence) + 1).map((id) => partition(taskPartition(tenantId, id))))).flat();
      const named = receipts.filter((item) => String(item.sk).startsWith(lineSortKeyPrefix)).map((line) => line.InventoryID);
      const stockItems = [...new Set([...named, ...inventoryIds])].filter((id): id is number => typeof id === 'number');
      const stock = (await Promise.all(stockItems.map((id) => partition(stockOnHandPartition(tenantId, id))))).flat();
      return [...own, ...receipts, ...tasks, ...stock].sort(byKey);
    },
    async scanned(tenantId) {
      const found = await scanAll(client, {
        TableName: tableName,
        FilterExpression: 'pk = :tenant OR begins_with(pk, :below)',
        ExpressionAttributeValues: { ':tenant': tenantPartition(tenantId), ':below': `${tenantPartition(tenantId)}#` },
      });
      return found.sort(byKey);
    },
    async location(tenantId, id) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: locationKey(tenantId, id), ConsistentRead: true }));
      return Item as Item | undefined;
    },
    close: () => raw.destroy(),
  };
};
