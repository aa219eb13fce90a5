// Integration: the transaction helper (shared/data/transaction.ts) against DynamoDB Local: roles decide the error
// of a failed condition, one action is a single-item write, a ClientRequestToken makes a transaction idempotent.
import { describe, expect, it } from '@jest/globals';
import { tenantKey } from '#shared/data/partition';
import { withOptimisticRetry } from '#shared/data/retry';
import { chunkActions, transact, transactionActions, type TransactionItem } from '#shared/data/transaction';
import { NameTaken, StaleVersion } from '#shared/errors';
import { failureOf, freshTenantId, openLocalTable, tenantItems } from './support';

const table = openLocalTable();
type Role = 'record' | 'claim' | 'check';
const errors = { record: () => new StaleVersion(), claim: () => new NameTaken() };

const putNew = (tenantId: number, sk: string, extra: Record<string, unknown> = {}): TransactionItem => ({
  Put: { TableName: table.tableName, Item: { ...tenantKey(tenantId, sk), ...extra }, ConditionExpression: 'attribute_not_exists(pk)' },
});
const exists = (tenantId: number, sk: string): TransactionItem => ({
  ConditionCheck: { TableName: table.tableName, Key: tenantKey(tenantId, sk), ConditionExpression: 'attribute_exists(pk)' },
});

describe('transact', () => {
  it('writes every action, or none', async () => {
    const tenant = freshTenantId();
    await transact<Role>(table, [{ role: 'record', item: putNew(tenant, 'A') }]);

    const refused = await failureOf(
      transact<Role>(table, [{ role: 'record', item: putNew(tenant, 'B') }, { role: 'claim', item: putNew(tenant, 'A') }], { errors }),
    );

    expect({ refused: refused.name, items: (await tenantItems(table, tenant)).map((item) => item.sk) }).toEqual({ refused: 'NameTaken', items: ['A'] });
  });

  it.each([
    ['the record', ['A', 'X'], 'StaleVersion'],
    ['the claim', ['X', 'A'], 'NameTaken'],
    ['both: the first in order decides', ['A', 'A2'], 'StaleVersion'],
  ])('a failed condition of %s becomes that role’s error', async (_case, [recordKey, claimKey], expected) => {
    const tenant = freshTenantId();
    await transact<Role>(table, [{ role: 'record', item: putNew(tenant, 'A') }]);
    await transact<Role>(table, [{ role: 'record', item: putNew(tenant, 'A2') }]);

    const failure = await failureOf(
      transact<Role>(
        table,
        [
          { role: 'record', item: putNew(tenant, recordKey as string) },
          { role: 'claim', item: putNew(tenant, claimKey as string) },
        ],
        { errors },
      ),
    );

    expect(failure.name).toBe(expected);
  });

  it('a role without an error of its own becomes ConcurrentModification (409, retryable)', async () => {
    const tenant = freshTenantId();

    const failure = await failureOf(
      transact<Role>(table, [{ role: 'record', item: putNew(tenant, 'A') }, { role: 'check', item: exists(tenant, 'missing') }], { errors }),
    );

    expect(failure).toEqual({ name: 'ConcurrentModification', status: 409, detail: 'The record changed while this request was saving it; retry.' });
  });

  it('one action is a single-item write, mapped the same way', async () => {
    const tenant = freshTenantId();
    await transact<Role>(table, [{ role: 'claim', item: putNew(tenant, 'A') }], { errors });

    const failure = await failureOf(transact<Role>(table, [{ role: 'claim', item: putNew(tenant, 'A') }], { errors }));

    expect(failure.name).toBe('NameTaken');
  });

  it('with a ClientRequestToken, a repeat of the same transaction succeeds without writing again', async () => {
    const tenant = freshTenantId();
    const actions = [
      { role: 'record' as const, item: putNew(tenant, 'LINE#1', { Amount: 5 }) },
      { role: 'record' as const, item: putNew(tenant, 'LINE#2', { Amount: 7 }) },
    ];
    const token = `receipt-${tenant}-chunk-1`;

    await transact<Role>(table, actions, { errors, clientRequestToken: token });
    const before = await tenantItems(table, tenant);
    await transact<Role>(table, actions, { errors, clientRequestToken: token });
    const withoutToken = await failureOf(transact<Role>(table, actions, { errors }));

    expect({ after: await tenantItems(table, tenant), withoutToken: withoutToken.name }).toEqual({ after: before, withoutToken: 'StaleVersion' });
  });

  it('concurrent transactions over one item either commit or fail as ConcurrentModification, and all commit under the retry policy', async () => {
    const tenant = freshTenantId();
    const bump = (writer: number): TransactionItem => ({
      Update: {
        TableName: table.tableName,
        Key: tenantKey(tenant, 'SHARED'),
        UpdateExpression: 'ADD #count :one SET #last = :writer',
        ExpressionAttributeNames: { '#count': 'Count', '#last': 'LastWriter' },
        ExpressionAttributeValues: { ':one': 1, ':writer': writer },
      },
    });
    const writers = Array.from({ length: 15 }, (_, writer) => writer);

    await Promise.all(
      writers.map((writer) =>
        withOptimisticRetry(() =>
          transact<Role>(table, [
            { role: 'record', item: bump(writer) },
            { role: 'record', item: putNew(tenant, `W#${writer}`) },
          ]),
        ),
      ),
    );

    const items = await tenantItems(table, tenant);
    expect(items.find((item) => item.sk === 'SHARED')).toMatchObject({ Count: 15 });
    expect(items.filter((item) => String(item.sk).startsWith('W#'))).toHaveLength(15);
  });
});

describe('chunkActions', () => {
  it('cuts actions into transactions of at most 100', () => {
    const actions = Array.from({ length: 250 }, (_, index) => index);

    expect(chunkActions(actions).map((chunk) => [chunk[0], chunk.length])).toEqual([
      [0, 100],
      [100, 100],
      [200, 50],
    ]);
  });

  it('builds the actions in order with their roles', () => {
    const { actions, add } = transactionActions<Role>();
    add('record', exists(1, 'A'));
    add('claim', exists(1, 'B'));

    expect(actions.map((action) => action.role)).toEqual(['record', 'claim']);
  });
});
