// Integration: the Idempotency-Key mechanism (shared/data/idempotency.ts) on DynamoDB Local: the key's claim is
// written in the same transaction as the write's effect, so a repeat replays the first answer without a second
// effect, another request under the same key is 422, a twin in flight ends with one effect and both answers equal,
// keys are per tenant and per operation, and claims expire through the table's TTL attribute after 24 hours.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createIdempotency, idempotencyWindowSeconds, KeyAlreadyClaimed, type Answer, type WriteClaim } from '#shared/data/idempotency';
import { tenantKey, tenantPartition } from '#shared/data/partition';
import { transact } from '#shared/data/transaction';
import { savedAnswer } from '#shared/http/answers/payments';
import { paymentAnswerStorage } from '#shared/payments/answer-storage';
import { failureOf, freshPrincipal, openPayments, tenantItems, testCard } from './support';

const { table, repository, service } = openPayments();
const idempotency = createIdempotency(table, 'paymentPost', paymentAnswerStorage(repository));

const answer = (n: number): Answer => ({ status: 201, body: { n, Nested: { list: [1, 2] } }, headers: { Location: `/api/Payment/${n}` } });

/**
 * A write whose effect is one item `EFFECT#<n>#<uuid>`, written in one transaction with the key's claim as the data
 * kit's writes do; it reads the claim first, as a write does with its first reads.
 */
const effectOf = (tenantId: number, n: number, gate?: Promise<void>) => async (claim: WriteClaim<number> | undefined) => {
  const prior = await claim?.read();
  if (prior) throw new KeyAlreadyClaimed(prior);
  await gate;
  const item = { Put: { TableName: table.tableName, Item: { ...tenantKey(tenantId, `EFFECT#${n}#${randomUUID()}`), entity: 'Effect' } } };
  await transact(table, [{ role: 'effect', item }], claim ? { claim: claim.item(n) } : {});
  return n;
};

const effects = async (tenantId: number) => (await tenantItems(table, tenantId)).filter((item) => item.entity === 'Effect');

describe('Idempotency-Key', () => {
  it('replays the first answer (status, body, headers) with one effect', async () => {
    const { tenantId } = freshPrincipal();
    const first = await idempotency.run({ tenantId, key: 'key-1', request: { body: { a: 1 } } }, answer, effectOf(tenantId, 1));
    const again = await idempotency.run({ tenantId, key: 'key-1', request: { body: { a: 1 } } }, answer, effectOf(tenantId, 2));
    expect(first).toEqual(answer(1));
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(await effects(tenantId)).toHaveLength(1);
  });

  it('answers 422 to the same key with another request, and keeps the first answer', async () => {
    const { tenantId } = freshPrincipal();
    await idempotency.run({ tenantId, key: 'key-2', request: { body: { a: 1 } } }, answer, effectOf(tenantId, 1));
    expect(await failureOf(idempotency.run({ tenantId, key: 'key-2', request: { body: { a: 2 } } }, answer, effectOf(tenantId, 2)))).toMatchObject({
      name: 'IdempotencyKeyReused',
      status: 422,
    });
    expect(await idempotency.run({ tenantId, key: 'key-2', request: { body: { a: 1 } } }, answer, effectOf(tenantId, 3))).toEqual(answer(1));
    expect(await effects(tenantId)).toHaveLength(1);
  });

  it('takes the same request with its members in another order for the same request; a list in another order is another', async () => {
    const { tenantId } = freshPrincipal();
    const request = { body: { a: 1, b: { c: 'x', d: [1, { e: 2, f: 3 }] } }, query: { z: 1, y: 2 } };
    const reordered = { query: { y: 2, z: 1 }, body: { b: { d: [1, { f: 3, e: 2 }], c: 'x' }, a: 1 } };
    const first = await idempotency.run({ tenantId, key: 'key-order', request }, answer, effectOf(tenantId, 1));
    expect(await idempotency.run({ tenantId, key: 'key-order', request: reordered }, answer, effectOf(tenantId, 2))).toEqual(first);
    const listReordered = { body: { a: 1, b: { c: 'x', d: [{ e: 2, f: 3 }, 1] } }, query: { z: 1, y: 2 } };
    expect(await failureOf(idempotency.run({ tenantId, key: 'key-order', request: listReordered }, answer, effectOf(tenantId, 3)))).toMatchObject({
      name: 'IdempotencyKeyReused',
    });
    expect(await effects(tenantId)).toHaveLength(1);
  });

  it('a twin in flight: both read no claim, one commits, the other is cancelled by the claim and replays it', async () => {
    const { tenantId } = freshPrincipal();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = idempotency.run({ tenantId, key: 'key-3', request: {} }, answer, effectOf(tenantId, 1, gate));
    const twin = await idempotency.run({ tenantId, key: 'key-3', request: {} }, answer, effectOf(tenantId, 2));
    release();
    expect(twin).toEqual(answer(2));
    expect(await held).toEqual(answer(2));
    expect(await effects(tenantId)).toHaveLength(1);
  });

  it('scopes a key to its tenant and its operation', async () => {
    const a = freshPrincipal().tenantId;
    const b = freshPrincipal().tenantId;
    const refunds = createIdempotency(table, 'paymentPostRefund');
    expect(await idempotency.run({ tenantId: a, key: 'shared', request: {} }, answer, effectOf(a, 1))).toEqual(answer(1));
    expect(await idempotency.run({ tenantId: b, key: 'shared', request: {} }, answer, effectOf(b, 2))).toEqual(answer(2));
    expect(await refunds.run({ tenantId: a, key: 'shared', request: {} }, answer, effectOf(a, 3))).toEqual(answer(3));
  });

  it("keeps its claim in the tenant's partition, expiring through the table's TTL attribute after 24 hours", async () => {
    const { tenantId } = freshPrincipal();
    const before = Math.floor(Date.now() / 1000);
    await idempotency.run({ tenantId, key: 'key-ttl', request: {} }, answer, effectOf(tenantId, 1));
    const [claim] = (await tenantItems(table, tenantId)).filter((item) => String(item.sk).startsWith('IDEMPOTENCY#paymentPost#'));
    expect(claim).toMatchObject({ pk: tenantPartition(tenantId), entity: 'IdempotencyKey', answer: JSON.stringify(answer(1)) });
    expect(Number(claim?.expiresAt)).toBeGreaterThanOrEqual(before + idempotencyWindowSeconds);
    expect(Number(claim?.expiresAt)).toBeLessThanOrEqual(before + idempotencyWindowSeconds + 5);
    expect(String(claim?.sk)).not.toContain('key-ttl');
  });

  it('forgets a request that was refused (it wrote nothing), so it can be sent again with its key', async () => {
    const { tenantId } = freshPrincipal();
    const refused = idempotency.run({ tenantId, key: 'key-4', request: {} }, answer, async () => {
      throw new Error('refused');
    });
    expect(await failureOf(refused)).toMatchObject({ name: 'Error' });
    expect(await idempotency.run({ tenantId, key: 'key-4', request: {} }, answer, effectOf(tenantId, 2))).toEqual(answer(2));
  });

  it('writes no claim for a request without a key', async () => {
    const { tenantId } = freshPrincipal();
    expect(await idempotency.run({ tenantId, key: undefined, request: {} }, answer, effectOf(tenantId, 1))).toEqual(answer(1));
    expect((await tenantItems(table, tenantId)).map((item) => item.entity)).toEqual(['Effect']);
  });

  it.each([[''], ['has space'], ['x'.repeat(256)], ['naïve']])('refuses the key %j with 400', async (key) => {
    expect(await failureOf(idempotency.run({ tenantId: 1, key, request: {} }, answer, effectOf(1, 1)))).toMatchObject({ status: 400 });
  });

  it("keeps a recorded payment's answer without the card holder's name or any other person's, and replays it with them", async () => {
    const principal = freshPrincipal();
    const people = {
      CustomerName: 'Ada Customer',
      AccountCustomerName: 'Grace Account',
      SupplierName: 'Sam Supplier',
      RepFirstName: 'Rita',
      RepLastName: 'Representative',
      RepEmailAddress: 'rita.rep@example.com',
      RepUserName: 'rita.rep',
    };
    const request = { Object: { Amount: 10, CreditCard: { ...testCard }, ...people } };
    const record = () => idempotency.run({ tenantId: principal.tenantId, key: 'key-5', request }, savedAnswer, (claim) => service.record(principal, request, claim));
    const first = await record();
    const replay = await record();
    expect(JSON.stringify(replay)).toBe(JSON.stringify(first));
    const items = await tenantItems(table, principal.tenantId);
    for (const value of [testCard.CardHolderName, ...Object.values(people)]) {
      expect(JSON.stringify(first)).toContain(value);
      const holding = items.filter((item) => JSON.stringify(item).includes(value));
      expect(holding.map((item) => item.entity)).toEqual(['Payment']);
    }
    expect(items.filter((item) => item.entity === 'Payment')).toHaveLength(1);
    expect(items.filter((item) => item.entity === 'IdempotencyKey')).toHaveLength(1);
  });
});
