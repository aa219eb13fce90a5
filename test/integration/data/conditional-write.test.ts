// Integration: writes the SDK may send twice (their answer lost, the request sent again), against DynamoDB Local.
// A create of `transact` alone goes as a transaction of one (its ClientRequestToken answers the resend as the first);
// an update sent on its own carries a mark of its call (shared/data/conditional-write.ts), so its resend is taken as
// the call's own write, while another writer's write from the same state is still refused.
import { describe, expect, it } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { markedWrite, sendMarkedPut, sendMarkedUpdate, writeMarkAttribute } from '#shared/data/conditional-write';
import { tenantKey } from '#shared/data/partition';
import { transact, type TransactionItem } from '#shared/data/transaction';
import { localRegion, localCredentials } from '#infra/local/local-aws';
import { requireLocalEndpoints } from '#test/support/local-endpoints';
import { failureOf, freshTenantId, openLocalTable } from './support';

const table = openLocalTable();

/** A table context whose client records the name of every command it sends. */
const recordingTable = (): { table: TableContext; sent: string[]; close: () => void } => {
  const sent: string[] = [];
  const raw = new DynamoDBClient({ region: localRegion, credentials: localCredentials, endpoint: requireLocalEndpoints().dynamodbEndpoint });
  raw.middlewareStack.add((next, context) => (args) => {
    sent.push(context.commandName ?? 'unknown');
    return next(args);
  });
  return { table: { client: createDocumentClient(raw), tableName: table.tableName }, sent, close: () => raw.destroy() };
};

describe('transact with one action', () => {
  it('sends a create as a transaction of one (its resend is answered as the first), any other write on its own', async () => {
    const recording = recordingTable();
    const tenant = freshTenantId();
    const create: TransactionItem = { Put: { TableName: table.tableName, Item: { ...tenantKey(tenant, 'A'), Version: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } };
    const edit: TransactionItem = {
      Put: { TableName: table.tableName, Item: { ...tenantKey(tenant, 'A'), Version: 2 }, ConditionExpression: '#version = :read', ExpressionAttributeNames: { '#version': 'Version' }, ExpressionAttributeValues: { ':read': 1 } },
    };
    const plain: TransactionItem = { Put: { TableName: table.tableName, Item: { ...tenantKey(tenant, 'B'), Version: 1 } } };
    await transact(recording.table, [{ role: 'record', item: create }]);
    await transact(recording.table, [{ role: 'record', item: edit }]);
    await transact(recording.table, [{ role: 'record', item: plain }]);
    recording.close();
    expect(recording.sent).toEqual(['TransactWriteItemsCommand', 'PutItemCommand', 'PutItemCommand']);
  });
});

const lease = (tenantId: number, theirs: string, mine: string): UpdateCommandInput => ({
  TableName: table.tableName,
  Key: tenantKey(tenantId, 'RUN'),
  UpdateExpression: 'SET Lease = :mine',
  ConditionExpression: 'Lease = :theirs',
  ExpressionAttributeValues: { ':mine': mine, ':theirs': theirs },
});

describe('sendMarkedUpdate', () => {
  it("a resend refused by the call's own mark resolves as written; another caller's refusal throws", async () => {
    const tenant = freshTenantId();
    await transact(table, [{ role: 'record', item: { Put: { TableName: table.tableName, Item: { ...tenantKey(tenant, 'RUN'), Lease: 'nobody' } } } }]);
    const mine = lease(tenant, 'nobody', 'lease-a');
    expect(await sendMarkedUpdate(table.client, mine, { attribute: 'Lease', value: 'lease-a' })).toMatchObject({ repeated: false });
    // The same request again, as the SDK resends it: refused by its own result, found by its mark.
    expect(await sendMarkedUpdate(table.client, mine, { attribute: 'Lease', value: 'lease-a' })).toMatchObject({ repeated: true, attributes: { Lease: 'lease-a' } });
    // Another caller taking it from the same state is refused.
    const other = await failureOf(sendMarkedUpdate(table.client, lease(tenant, 'nobody', 'lease-b'), { attribute: 'Lease', value: 'lease-b' }));
    expect(other.name).toBe('ConditionalCheckFailedException');
  });
});

describe('an edit marked with its call (markedWrite, sendMarkedPut)', () => {
  it("a resend refused by the edit's own Version resolves; the same edit from another call (another mark) is refused", async () => {
    const tenant = freshTenantId();
    await transact(table, [{ role: 'record', item: { Put: { TableName: table.tableName, Item: { ...tenantKey(tenant, 'A'), Version: 1, Name: 'Old' } } } }]);
    const edit = (mark: string) =>
      markedWrite(
        { Put: { TableName: table.tableName, Item: { ...tenantKey(tenant, 'A'), Version: 2, Name: 'New' }, ConditionExpression: 'Version = :read', ExpressionAttributeValues: { ':read': 1 } } },
        mark,
      ).Put;
    await sendMarkedPut(table.client, edit('call-1'), 'call-1');
    await expect(sendMarkedPut(table.client, edit('call-1'), 'call-1')).resolves.toBeUndefined();
    expect((await failureOf(sendMarkedPut(table.client, edit('call-2'), 'call-2'))).name).toBe('ConditionalCheckFailedException');
  });

  it('marks an Update in its SET clause, or adds one', () => {
    const update = (UpdateExpression: string) => markedWrite({ Update: { TableName: 't', Key: { pk: 'p', sk: 's' }, UpdateExpression } }, 'm').Update;
    expect(update('SET #a = :a REMOVE #b')).toMatchObject({
      UpdateExpression: 'SET #writeMark = :writeMark, #a = :a REMOVE #b',
      ExpressionAttributeNames: { '#writeMark': writeMarkAttribute },
      ExpressionAttributeValues: { ':writeMark': 'm' },
    });
    expect(update('REMOVE #b')?.UpdateExpression).toBe('SET #writeMark = :writeMark REMOVE #b');
  });
});
