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

/** How a write meets its fault: committed, then the process died (the call never settles) or the answer was lost. */
export type CommitFault = 'dies-after-commit' | 'throws-after-commit';

/** A function process that never answers: what a client sees of a process killed after its write was sent. */
const never = new Promise<never>(() => undefined);

/**
 * Wraps a store's `write` so that its next call (with `fault`) commits, then dies (never settles) or fails as a lost
 * answer (ECONNRESET); later calls pass through. `committed` settles once that write committed, so a test waits for
 * the commit, not for a time.
 */
export const faultAfterCommit = <A extends unknown[], R>(write: (...args: A) => Promise<R>, fault?: CommitFault) => {
  let armed = fault !== undefined;
  let signal: () => void = () => undefined;
  const committed = new Promise<void>((resolve) => {
    signal = resolve;
  });
  return {
    committed,
    write: async (...args: A): Promise<R> => {
      const result = await write(...args);
      if (!armed) return result;
      armed = false;
      signal();
      if (fault === 'dies-after-commit') return never;
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    },
  };
};
