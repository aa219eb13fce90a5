// Integration: Idempotency-Key on Powertools' idempotency utility with DynamoDB persistence in the single table
// (DynamoDB Local): a repeat replays the first answer without running the work again, another request under the
// same key is 422, a request in progress is 409, keys are per tenant and per operation, and records expire
// through the table's TTL attribute after 24 hours.
import { describe, expect, it } from '@jest/globals';
import { tenantPartition } from '#shared/data/partition';
import { savedAnswer } from '#shared/http/answers/payments';
import { paymentAnswerStorage } from '#shared/payments/answer-storage';
import { createIdempotency, idempotencyWindowSeconds, type Answer } from '#shared/payments/idempotency';
import { lambdaContext } from '#test/support/lambda-events';
import { failureOf, freshPrincipal, openPayments, tenantItems, testCard } from './support';

const { table, repository, service } = openPayments();
const idempotency = createIdempotency(table, 'paymentPost', paymentAnswerStorage(repository));
const context = lambdaContext('paymentPost');

const counted = () => {
  let runs = 0;
  return {
    get runs() {
      return runs;
    },
    work: (answer: Answer) => async () => {
      runs += 1;
      return answer;
    },
  };
};

const answer = (n: number): Answer => ({ status: 201, body: { n, Nested: { list: [1, 2] } }, headers: { Location: `/api/Payment/${n}` } });

describe('Idempotency-Key', () => {
  it('replays the first answer (status, body, headers) and runs the work once', async () => {
    const { tenantId } = freshPrincipal();
    const counter = counted();
    const first = await idempotency.run({ tenantId, key: 'key-1', request: { body: { a: 1 } }, context }, counter.work(answer(1)));
    const again = await idempotency.run({ tenantId, key: 'key-1', request: { body: { a: 1 } }, context }, counter.work(answer(2)));
    expect(first).toEqual(answer(1));
    expect(again).toEqual(first);
    expect(counter.runs).toBe(1);
  });

  it('answers 422 to the same key with another request, and keeps the first answer', async () => {
    const { tenantId } = freshPrincipal();
    const counter = counted();
    await idempotency.run({ tenantId, key: 'key-2', request: { body: { a: 1 } }, context }, counter.work(answer(1)));
    expect(
      await failureOf(idempotency.run({ tenantId, key: 'key-2', request: { body: { a: 2 } }, context }, counter.work(answer(2)))),
    ).toMatchObject({ name: 'IdempotencyKeyReused', status: 422 });
    expect(await idempotency.run({ tenantId, key: 'key-2', request: { body: { a: 1 } }, context }, counter.work(answer(3)))).toEqual(answer(1));
    expect(counter.runs).toBe(1);
  });

  it('answers 409 while a request with the same key is still in progress', async () => {
    const { tenantId } = freshPrincipal();
    let release: () => void = () => undefined;
    const slow = idempotency.run({ tenantId, key: 'key-3', request: {}, context }, async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return answer(1);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await failureOf(idempotency.run({ tenantId, key: 'key-3', request: {}, context }, async () => answer(2)))).toMatchObject({
      name: 'IdempotencyKeyInUse',
      status: 409,
    });
    release();
    expect(await slow).toEqual(answer(1));
  });

  it('scopes a key to its tenant and its operation', async () => {
    const a = freshPrincipal().tenantId;
    const b = freshPrincipal().tenantId;
    const refunds = createIdempotency(table, 'paymentPostRefund');
    expect(await idempotency.run({ tenantId: a, key: 'shared', request: {}, context }, async () => answer(1))).toEqual(answer(1));
    expect(await idempotency.run({ tenantId: b, key: 'shared', request: {}, context }, async () => answer(2))).toEqual(answer(2));
    expect(await refunds.run({ tenantId: a, key: 'shared', request: {}, context }, async () => answer(3))).toEqual(answer(3));
  });

  it("keeps its record in the tenant's partition, expiring through the table's TTL attribute after 24 hours", async () => {
    const { tenantId } = freshPrincipal();
    const before = Math.floor(Date.now() / 1000);
    await idempotency.run({ tenantId, key: 'key-ttl', request: {}, context }, async () => answer(1));
    const [record] = (await tenantItems(table, tenantId)).filter((item) => String(item.sk).startsWith('IDEMPOTENCY#paymentPost#'));
    expect(record).toMatchObject({ pk: tenantPartition(tenantId), idempotencyStatus: 'COMPLETED' });
    expect(Number(record?.expiresAt)).toBeGreaterThanOrEqual(before + idempotencyWindowSeconds);
    expect(Number(record?.expiresAt)).toBeLessThanOrEqual(before + idempotencyWindowSeconds + 5);
    expect(String(record?.sk)).not.toContain('key-ttl');
  });

  it('forgets a request that failed, so it can be sent again with its key', async () => {
    const { tenantId } = freshPrincipal();
    expect(
      await failureOf(
        idempotency.run({ tenantId, key: 'key-4', request: {}, context }, async () => {
          throw new Error('refused');
        }),
      ),
    ).toMatchObject({ name: 'Error' });
    expect(await idempotency.run({ tenantId, key: 'key-4', request: {}, context }, async () => answer(2))).toEqual(answer(2));
  });

  it.each([[''], ['has space'], ['x'.repeat(256)], ['naïve']])('refuses the key %j with 400', async (key) => {
    expect(await failureOf(idempotency.run({ tenantId: 1, key, request: {}, context }, async () => answer(1)))).toMatchObject({ status: 400 });
  });

  it("keeps a recorded payment's answer without the card holder's name, and replays it with the name", async () => {
    const principal = freshPrincipal();
    const record = () => service.record(principal, { Object: { Amount: 10, CreditCard: { ...testCard } } }).then(savedAnswer);
    const first = await idempotency.run({ tenantId: principal.tenantId, key: 'key-5', request: { card: 1 }, context }, record);
    const replay = await idempotency.run({ tenantId: principal.tenantId, key: 'key-5', request: { card: 1 }, context }, record);
    expect(JSON.stringify(replay)).toBe(JSON.stringify(first));
    expect(JSON.stringify(first)).toContain(testCard.CardHolderName);
    const items = await tenantItems(table, principal.tenantId);
    const holding = items.filter((item) => JSON.stringify(item).includes(testCard.CardHolderName));
    expect(holding.map((item) => item.entity)).toEqual(['Payment']);
    expect(items.filter((item) => item.entity === 'Payment')).toHaveLength(1);
  });
});
