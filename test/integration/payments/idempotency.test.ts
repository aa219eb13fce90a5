// Integration: the Idempotency-Key mechanism (shared/data/idempotency.ts) on DynamoDB Local: the key's claim is
// written in the same transaction as the write's effect, so a repeat replays the first answer without a second
// effect, another request under the same key is 422, a twin in flight ends with one effect and both answers equal,
// keys are per tenant and per operation, and claims expire through the table's TTL attribute after 24 hours.
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, jest } from '@jest/globals';
import { createIdempotency, idempotencyWindowSeconds, KeyAlreadyClaimed, type Answer, type WriteClaim } from '#shared/data/idempotency';
import { tenantKey, tenantPartition } from '#shared/data/partition';
import { transact } from '#shared/data/transaction';
import { savedAnswer } from '#shared/http/answers/payments';
import { withinInvocation } from '#shared/invocation';
import { paymentAnswerStorage } from '#shared/payments/answer-storage';
import { failureOf, freshPrincipal, openPayments, tenantItems, testCard } from './support';

const { table, repository, service } = openPayments();
const idempotency = createIdempotency(table, 'paymentPost', paymentAnswerStorage(repository));

const answer = (n: number): Answer => ({ status: 201, body: { n, Nested: { list: [1, 2] } }, headers: { Location: `/api/Payment/${n}` } });

/** The effect of write `n`: one item `EFFECT#<n>#<uuid>` in the tenant's partition. */
const effectAction = (tenantId: number, n: number) => ({
  role: 'effect' as const,
  item: { Put: { TableName: table.tableName, Item: { ...tenantKey(tenantId, `EFFECT#${n}#${randomUUID()}`), entity: 'Effect' } } },
});

/**
 * A write whose effect is one item `EFFECT#<n>#<uuid>`, written in one transaction with the key's claim as the data
 * kit's writes do; it reads the claim first, as a write does with its first reads.
 */
const effectOf = (tenantId: number, n: number, gate?: Promise<void>) => async (claim: WriteClaim<number> | undefined) => {
  const prior = await claim?.read();
  if (prior) throw new KeyAlreadyClaimed(prior);
  await gate;
  await transact(table, [effectAction(tenantId, n)], claim ? { claim: claim.item(n) } : {});
  return n;
};

const effects = async (tenantId: number) => (await tenantItems(table, tenantId)).filter((item) => item.entity === 'Effect');

/**
 * A write whose claim goes in provisional (answer `n`), then, once `settled` resolves, is restated (answer `n + 100`),
 * as a scheduled task's save restates its answer once its schedule is synced.
 */
const provisionalEffectOf = (tenantId: number, n: number, settled: Promise<void>) => async (claim: WriteClaim<number> | undefined) => {
  const prior = await claim?.read();
  if (prior) throw new KeyAlreadyClaimed(prior);
  await transact(table, [effectAction(tenantId, n)], claim ? { claim: claim.provisional(n) } : {});
  await settled;
  await claim?.settle(n + 100);
  return n + 100;
};

/** An operation's invocation that answers `inMs` from now (shared/invocation.ts). */
const invocationAnswering = (inMs: number) => ({ signal: new AbortController().signal, answerBy: Date.now() + inMs });

const gate = () => {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
};

describe('a twin of a request whose answer is provisional', () => {
  // The fixed wait, for claims written outside an invocation, is made short here: the twins below must outwait it.
  const briefly = createIdempotency(table, 'scheduledTaskSave', paymentAnswerStorage(repository), { waitMs: 200 });
  const claimed = async (tenantId: number) => {
    while (!(await tenantItems(table, tenantId)).some((item) => item.entity === 'IdempotencyKey')) await new Promise((resolve) => setTimeout(resolve, 20));
  };

  it('waits for its restatement as long as the request may still make it (its invocation\'s answer), not a fixed time', async () => {
    const { tenantId } = freshPrincipal();
    const restate = gate();
    const first = withinInvocation(invocationAnswering(9_000), () =>
      briefly.run({ tenantId, key: 'slow', request: {} }, answer, provisionalEffectOf(tenantId, 1, restate.opened)),
    );
    await claimed(tenantId);
    const twin = withinInvocation(invocationAnswering(9_000), () => briefly.run({ tenantId, key: 'slow', request: {} }, answer, effectOf(tenantId, 2)));
    // Past the fixed wait: without the first request's deadline in its claim, the twin replayed the provisional answer.
    await new Promise((resolve) => setTimeout(resolve, 600));
    restate.open();
    expect(await first).toEqual(answer(101));
    expect(await twin).toEqual(answer(101));
    expect(await effects(tenantId)).toHaveLength(1);
  });

  it('answers 409 key-in-use when its own answer comes before the restatement can', async () => {
    const { tenantId } = freshPrincipal();
    const restate = gate();
    const first = withinInvocation(invocationAnswering(9_000), () =>
      briefly.run({ tenantId, key: 'hurried', request: {} }, answer, provisionalEffectOf(tenantId, 1, restate.opened)),
    );
    await claimed(tenantId);
    const twin = withinInvocation(invocationAnswering(700), () => briefly.run({ tenantId, key: 'hurried', request: {} }, answer, effectOf(tenantId, 2)));
    expect(await failureOf(twin)).toMatchObject({ name: 'IdempotencyKeyInUse', status: 409 });
    restate.open();
    expect(await first).toEqual(answer(101));
    expect(await briefly.run({ tenantId, key: 'hurried', request: {} }, answer, effectOf(tenantId, 3))).toEqual(answer(101));
  });

  it('replays it as written once the request that wrote it has answered (it died before restating it)', async () => {
    const { tenantId } = freshPrincipal();
    const never = new Promise<void>(() => undefined);
    // Its invocation answered 2 s ago (landing included): nothing of it can change the claim any more.
    void withinInvocation(invocationAnswering(-2_000), () => briefly.run({ tenantId, key: 'dead', request: {} }, answer, provisionalEffectOf(tenantId, 1, never)));
    await claimed(tenantId);
    const twin = withinInvocation(invocationAnswering(9_000), () => briefly.run({ tenantId, key: 'dead', request: {} }, answer, effectOf(tenantId, 2)));
    expect(await twin).toEqual(answer(1));
  });
});

describe('a pending claim (a write in several commits)', () => {
  it("is told from a twin's written in the same millisecond: the failing request replays the twin's answer", async () => {
    const { tenantId } = freshPrincipal();
    const input = { tenantId, key: randomUUID(), request: { same: 'request' } };
    const firstWrote = gate();
    const twinWrote = gate();
    // Both pending claims are written at one instant, as two twins may write theirs.
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
    const first = idempotency.run(input, answer, async (claim) => {
      await transact(table, [effectAction(tenantId, 1)], { claim: claim!.pending(1) });
      firstWrote.open();
      await twinWrote.opened;
      throw new Error('a dependency failed after the first commit');
    });
    const twin = idempotency.run(input, answer, async (claim) => {
      await firstWrote.opened;
      const found = await claim!.read();
      expect(claim!.resumeOf(found!)).toEqual({ version: 1 });
      await transact(table, [effectAction(tenantId, 2)], { claim: claim!.pending(2) });
      clock.mockRestore();
      twinWrote.open();
      // The failing request reads this claim, pending, before the twin answers.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await transact(table, [], { claim: claim!.item(2) });
      return 2;
    });
    // The failing request waits for the twin's answer and replays it (it took the twin's claim for its own and
    // answered its failure when a claim's time was its mark).
    expect(await first).toEqual(answer(2));
    expect(await twin).toEqual(answer(2));
  });
});

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

  it('frees a key past its 24 hours, though TTL has not deleted its claim yet (DynamoDB may take days)', async () => {
    const { tenantId } = freshPrincipal();
    expect(await idempotency.run({ tenantId, key: 'key-old', request: { body: { a: 1 } } }, answer, effectOf(tenantId, 1))).toEqual(answer(1));
    const claimItem = (await tenantItems(table, tenantId)).find((item) => item.entity === 'IdempotencyKey');
    // The claim as TTL would leave it a day and a second later: expired, not yet deleted.
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...claimItem, expiresAt: Math.floor(Date.now() / 1000) - 1 } }));
    // Another request with the key is a new request (not 422), and the first one again is done again (not replayed).
    expect(await idempotency.run({ tenantId, key: 'key-old', request: { body: { a: 2 } } }, answer, effectOf(tenantId, 2))).toEqual(answer(2));
    expect(await idempotency.run({ tenantId, key: 'key-old', request: { body: { a: 2 } } }, answer, effectOf(tenantId, 3))).toEqual(answer(2));
    expect(await effects(tenantId)).toHaveLength(2);
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
    // Nested too: each allocation names its customer (found by a hostile client: kept in the key's record).
    const allocated = { CustomerName: 'Nested Allocation Person', AccountCustomerName: 'Nested Account Person' };
    const request = { Object: { Amount: 10, CreditCard: { ...testCard }, ...people, InvoicePaymentAllocations: [{ Amount: 10, ...allocated }] } };
    const record = () => idempotency.run({ tenantId: principal.tenantId, key: 'key-5', request }, savedAnswer, (claim) => service.record(principal, request, claim));
    const first = await record();
    const replay = await record();
    expect(JSON.stringify(replay)).toBe(JSON.stringify(first));
    const items = await tenantItems(table, principal.tenantId);
    for (const value of [testCard.CardHolderName, ...Object.values(people), ...Object.values(allocated)]) {
      expect(JSON.stringify(first)).toContain(value);
      const holding = items.filter((item) => JSON.stringify(item).includes(value));
      expect(holding.map((item) => item.entity)).toEqual(['Payment']);
    }
    expect(items.filter((item) => item.entity === 'Payment')).toHaveLength(1);
    expect(items.filter((item) => item.entity === 'IdempotencyKey')).toHaveLength(1);
  });
});
