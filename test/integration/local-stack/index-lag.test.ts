// Integration: the index-lag fault reads an index as a GSI lags on AWS (infra/local/index-lag.ts), on DynamoDB Local:
// for `ms` after a write, a Query of the index misses a new item, shows an updated item as it was (its old attributes
// and its old place in the index, a filter it no longer passes) and still shows a deleted one; then the index catches
// up. Turned off, the replica is gone and the table's stream is off again. A table of the test's own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { IndexLag, replicaTableName } from '#infra/local/index-lag';
import { localCredentials, localRegion } from '#infra/local/local-aws';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';

const tableName = `index-lag-${randomUUID().slice(0, 8)}`;
const lagMs = 1_500;
let client: DynamoDBClient;
let documents: DynamoDBDocumentClient;
const log: string[] = [];
let lag: IndexLag;

beforeAll(async () => {
  client = localDynamoDbClient();
  documents = DynamoDBDocumentClient.from(client);
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
      AttributeDefinitions: ['pk', 'sk', 'byName', 'name'].map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
      GlobalSecondaryIndexes: [
        { IndexName: 'byName', KeySchema: [{ AttributeName: 'byName', KeyType: 'HASH' }, { AttributeName: 'name', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
      ],
    }),
  );
  lag = new IndexLag({ endpoint: requireLocalEndpoints().dynamodbEndpoint, tables: [tableName], accessKeyId: localCredentials.accessKeyId, region: localRegion, log: (line) => log.push(line), pollMs: 20 });
});

afterAll(async () => {
  await lag.close();
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

const put = (id: string, name: string, status = 'Active') => documents.send(new PutCommand({ TableName: tableName, Item: { pk: id, sk: 'item', byName: 'all', name, status } }));

/** The index as a lagged Query reads it (on the replica, as the edge sends it), in the index's order: `name status`. */
const index = async (filter?: string): Promise<string[]> => {
  const replica = await lag.replicaOf(tableName);
  const { Items = [] } = await documents.send(
    new QueryCommand({
      TableName: replica ?? tableName,
      IndexName: 'byName',
      KeyConditionExpression: 'byName = :all',
      ...(filter ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {}),
      ExpressionAttributeValues: { ':all': 'all', ...(filter ? { ':status': filter } : {}) },
    }),
  );
  return Items.map((item) => `${String(item.name)} ${String(item.status)}`);
};

const eventually = async (expected: string[], timeoutMs = 10_000) => {
  const until = Date.now() + timeoutMs;
  let seen = await index();
  while (JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await index();
  }
  expect(seen).toEqual(expected);
};

describe('an index read under index lag', () => {
  it('is the table as it stood when the lag began, then each write shows ms later: new, updated, moved and deleted items', async () => {
    await put('a', 'Alpha');
    await put('b', 'Bravo');
    await put('c', 'Charlie');
    await lag.setLag(lagMs);
    expect(await lag.replicaOf(tableName)).toBe(replicaTableName(tableName));
    expect(await index()).toEqual(['Alpha Active', 'Bravo Active', 'Charlie Active']);

    const wroteAt = Date.now();
    await put('d', 'Delta');
    await documents.send(new UpdateCommand({ TableName: tableName, Key: { pk: 'a', sk: 'item' }, UpdateExpression: 'SET #name = :name', ExpressionAttributeNames: { '#name': 'name' }, ExpressionAttributeValues: { ':name': 'Zulu' } }));
    await documents.send(new UpdateCommand({ TableName: tableName, Key: { pk: 'b', sk: 'item' }, UpdateExpression: 'SET #status = :status', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':status': 'Deleted' } }));
    await documents.send(new DeleteCommand({ TableName: tableName, Key: { pk: 'c', sk: 'item' } }));

    // Within the lag: the index as it was (no Delta; Alpha at its old place; Bravo still passing the filter; Charlie there).
    const within = await index();
    const withinFiltered = await index('Active');
    if (Date.now() - wroteAt < lagMs) {
      expect(within).toEqual(['Alpha Active', 'Bravo Active', 'Charlie Active']);
      expect(withinFiltered).toEqual(['Alpha Active', 'Bravo Active', 'Charlie Active']);
    }

    // Then the index catches up, in the order of the writes.
    await eventually(['Bravo Deleted', 'Delta Active', 'Zulu Active']);
    expect(Date.now() - wroteAt).toBeGreaterThanOrEqual(lagMs);
    expect(await index('Active')).toEqual(['Delta Active', 'Zulu Active']);
  });

  it('keeps up while other tables are written: every stream read holds (DynamoDB Local numbers records across tables)', async () => {
    const other = `${tableName}-other`;
    await client.send(new CreateTableCommand({ TableName: other, BillingMode: 'PAY_PER_REQUEST', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }));
    try {
      let writing = true;
      const writers = Array.from({ length: 4 }, async (_, writer) => {
        for (let n = 0; writing; n += 1) await documents.send(new PutCommand({ TableName: other, Item: { pk: `${writer}-${n}` } }));
      });
      // Started again while the other table is written: the new stream's shard is read empty a while (its iterator
      // points at the next number, which the other table's writes keep taking).
      await lag.setLag(0);
      await lag.setLag(lagMs);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (let n = 0; n < 20; n += 1) {
        await put(`e${n}`, `Echo ${String(n).padStart(2, '0')}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await eventually(['Bravo Deleted', 'Delta Active', ...Array.from({ length: 20 }, (_, n) => `Echo ${String(n).padStart(2, '0')} Active`), 'Zulu Active']);
      writing = false;
      await Promise.all(writers);
    } finally {
      await client.send(new DeleteTableCommand({ TableName: other }));
    }
    expect(log.filter((line) => !/^\[index-lag\] (on|off):/.test(line))).toEqual([]);
  });

  it('turned off: the replica is deleted and the table\'s stream is off again', async () => {
    await lag.setLag(0);
    expect(await lag.replicaOf(tableName)).toBeUndefined();
    await expect(client.send(new DescribeTableCommand({ TableName: replicaTableName(tableName) }))).rejects.toThrow(/not found|non-existent|ResourceNotFound/i);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    expect(log).toEqual([
      expect.stringContaining('[index-lag] on:'),
      expect.stringContaining('[index-lag] off:'),
      expect.stringContaining('[index-lag] on:'),
      expect.stringContaining('[index-lag] off:'),
    ]);
  });
});
