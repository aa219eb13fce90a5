// Test support for the data-kit integration tests: a table context on DynamoDB Local (after the loopback check), a
// tenant of the test's own, and strongly consistent reads of what the table holds.
import { afterAll } from '@jest/globals';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { tenantPartition, type ItemKey } from '#shared/data/partition';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';

export { freshTenantId } from '#test/support/tenant-items';

/** The local table, closed after the file's tests. */
export const openLocalTable = (): TableContext => {
  const { tableName } = requireLocalEndpoints();
  const raw = localDynamoDbClient();
  afterAll(() => raw.destroy());
  return { client: createDocumentClient(raw), tableName };
};

export const storedItem = async ({ client, tableName }: TableContext, key: ItemKey) =>
  (await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

/** Every item of the tenant's partition, by sort key. */
export const tenantItems = async ({ client, tableName }: TableContext, tenantId: number) =>
  (
    await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': tenantPartition(tenantId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

/** What a rejected call threw: its class name, status and detail. */
export const failureOf = async (pending: Promise<unknown>) => {
  try {
    await pending;
  } catch (error) {
    const { name, status, detail } = error as { name: string; status?: number; detail?: string };
    return { name, ...(status !== undefined ? { status } : {}), ...(detail !== undefined ? { detail } : {}) };
  }
  throw new Error('expected the call to fail, but it succeeded');
};
