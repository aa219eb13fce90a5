// Integration: the item-size guard (shared/data/item-size.ts, run by transact) against DynamoDB Local. An item the
// guard passes is stored; one it refuses is one DynamoDB itself refuses (so the guard fires first, never after a
// ValidationException became a 500); the guard's count matches DynamoDB's at the boundary for strings, lists and maps.
import { describe, expect, it } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemBytes, maxItemBytes } from '#shared/data/item-size';
import { composeKey, tenantKey } from '#shared/data/partition';
import { transact } from '#shared/data/transaction';
import { failureOf, freshTenantId, openLocalTable, storedItem, tenantItems } from './support';

const table = openLocalTable();

/** An item of exactly `bytes` by the guard's count, its weight in one string attribute. */
const flatItem = (tenantId: number, bytes: number) => {
  const key = tenantKey(tenantId, composeKey('BIG', 'flat'));
  const base = itemBytes({ ...key, big: '' });
  return { ...key, big: 'x'.repeat(bytes - base) };
};

/** The same weight spread over a list of maps and strings (3 bytes per list or map, 1 per element, names counted). */
const nestedItem = (tenantId: number, bytes: number) => {
  const key = tenantKey(tenantId, composeKey('BIG', 'nested'));
  const rows = Array.from({ length: 90 }, (_, index) => ({ Summary: 'y'.repeat(4_000), Index: `${index}`, Flag: true }));
  const base = itemBytes({ ...key, rows, pad: '' });
  return { ...key, rows, pad: 'z'.repeat(bytes - base) };
};

/** Numbers of every shape (integers, fractions, negatives, tiny and huge magnitudes) with the rest in a string. */
const numbersItem = (tenantId: number, bytes: number) => {
  const key = tenantKey(tenantId, composeKey('BIG', 'numbers'));
  const numbers = Array.from({ length: 2_000 }, (_, index) => [index, -index * 1.25, 1e-130 * (index + 1), 123456789.123456 + index, -9.007e15][index % 5]);
  const base = itemBytes({ ...key, numbers, pad: '' });
  return { ...key, numbers, pad: 'n'.repeat(bytes - base) };
};

const rawPut = (item: Record<string, unknown>) => table.client.send(new PutCommand({ TableName: table.tableName, Item: item }));

describe.each([
  ['a flat item', flatItem],
  ['a nested item', nestedItem],
  ['an item of numbers', numbersItem],
])('the item-size guard, %s', (_name, build) => {
  it('stores an item of exactly 400 KB through transact', async () => {
    const tenant = freshTenantId();
    const item = build(tenant, maxItemBytes);
    expect(itemBytes(item)).toBe(409_600);

    await transact(table, [{ role: 'record', item: { Put: { TableName: table.tableName, Item: item } } }]);

    expect(itemBytes((await storedItem(table, { pk: item.pk, sk: item.sk })) ?? {})).toBe(409_600);
  });

  it('refuses one byte more with 413 before DynamoDB sees it, and DynamoDB would have refused it too', async () => {
    const tenant = freshTenantId();
    const item = build(tenant, maxItemBytes + 1);

    const refused = await failureOf(transact(table, [{ role: 'record', item: { Put: { TableName: table.tableName, Item: item } } }]));
    const direct = await failureOf(rawPut(item));

    expect(refused).toMatchObject({ name: 'ItemTooLarge', status: 413, detail: expect.stringContaining('409601 bytes') });
    expect(direct).toMatchObject({ name: 'ValidationException' });
    expect(await tenantItems(table, tenant)).toEqual([]);
  });

  it('refuses it in a transaction of several items, writing none of them', async () => {
    const tenant = freshTenantId();
    const small = { ...tenantKey(tenant, 'SMALL'), value: 1 };
    const refused = await failureOf(
      transact(table, [
        { role: 'small', item: { Put: { TableName: table.tableName, Item: small } } },
        { role: 'record', item: { Put: { TableName: table.tableName, Item: build(tenant, maxItemBytes + 1) } } },
      ]),
    );

    expect(refused).toMatchObject({ name: 'ItemTooLarge', status: 413 });
    expect(await tenantItems(table, tenant)).toEqual([]);
  });
});
