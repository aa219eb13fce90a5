// Integration (issue 22, section 0): the doubled cases measured on the running stack, reproduced at the mechanism on
// DynamoDB Local with the real service, repository and Idempotency-Key claims. A client retries with the same key
// after (1) the function died between its commit and its answer, (2) a burst of the same request, (3) a write stalled
// in flight while the retry ran, (4) a queued refund whose function died between the commit and the send. Each time:
// one effect, the retry's answer byte for byte the first, the refunded sum exact, the tenant's sequence not advanced
// by the retry, and a queued refund settled once.
import { describe, expect, it } from '@jest/globals';
import { createIdempotency, type Answer } from '#shared/data/idempotency';
import { sequenceKey } from '#shared/data/sequence';
import { savedAnswer } from '#shared/http/answers/payments';
import { paymentAnswerStorage } from '#shared/payments/answer-storage';
import { paymentSequence } from '#shared/payments/keys';
import { createPaymentRepository } from '#shared/payments/repository';
import { createPaymentService } from '#shared/payments/service';
import type { PaymentStore } from '#shared/payments/store';
import type { QueuedRefund } from '#shared/schemas/messages/payments';
import type { SaveRequestPaymentT } from '#shared/schemas/payment';
import type { Principal } from '#shared/auth/principal';
import { freshPrincipal, storedItem, tenantItems } from './support';
import { atEveryKillPoint, faultAfterCommit, openLocalTable, openRecordedTable, runKilledAt, type CommitFault } from '#test/integration/data/support';

const table = openLocalTable();
const repository = createPaymentRepository(table);
const refundKeys = createIdempotency(table, 'paymentPostRefund', paymentAnswerStorage(repository));
const recordKeys = createIdempotency(table, 'paymentPost', paymentAnswerStorage(repository));

type Fault = CommitFault | 'stalls-before-write' | undefined;

/** Wraps writes so that the next one is held before it is sent until `release`; `reached` settles once it is held. */
const stallBeforeWrite = () => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reach: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  let armed = true;
  const write = async (run: () => Promise<void>): Promise<void> => {
    if (!armed) return run();
    armed = false;
    reach();
    await held;
    return run();
  };
  return { write, release, reached };
};

/**
 * The service over a store whose next write of either kind (a create or a refund) does what `fault` says: commits
 * then the process dies (the call never settles) or fails (the answer lost), as `faultAfterCommit` does, or is held
 * before it is sent until `release`. `reached` settles once the fault has happened: the write committed, or held. A
 * test waits for it, never for a time: on a loaded machine a call may not have reached its write after any fixed
 * wait (a CI run read the sequence before the dying call had taken its ID).
 */
const serviceWith = (fault: Fault = undefined) => {
  const sent: { message: QueuedRefund; guarantee: boolean }[] = [];
  const stall = fault === 'stalls-before-write' ? stallBeforeWrite() : undefined;
  const commit = faultAfterCommit((run: () => Promise<void>) => run(), fault === 'stalls-before-write' ? undefined : fault);
  const faulty = stall?.write ?? commit.write;
  const store: PaymentStore = {
    ...repository,
    create: (tenantId, record, claim) => faulty(() => repository.create(tenantId, record, claim)),
    refund: (tenantId, write, claim) => faulty(() => repository.refund(tenantId, write, claim)),
  };
  const service = createPaymentService({
    repository: store,
    publish: async (message, options) => {
      sent.push({ message, guarantee: options?.guarantee === true });
    },
    retry: { sleep: async () => undefined },
  });
  return { service, sent, release: stall?.release ?? (() => undefined), reached: stall?.reached ?? commit.committed };
};

type Service = ReturnType<typeof serviceWith>['service'];

const refund = (service: Service, principal: Principal, paymentId: number, body: SaveRequestPaymentT, key: string): Promise<Answer> =>
  refundKeys.run({ tenantId: principal.tenantId, key, request: { id: paymentId, body } }, savedAnswer, (claim) => service.refund(principal, paymentId, body, claim));

const record = (service: Service, principal: Principal, body: SaveRequestPaymentT, key: string): Promise<Answer> =>
  recordKeys.run({ tenantId: principal.tenantId, key, request: { body } }, savedAnswer, (claim) => service.record(principal, body, claim));

/** The tenant's payment sequence: the last ID handed out. */
const lastId = async (principal: Principal) => Number((await storedItem(table, sequenceKey(principal.tenantId, paymentSequence)))?.value);

const refundsOf = async (principal: Principal) => (await tenantItems(table, principal.tenantId)).filter((item) => item.entity === 'Payment' && item.IsRefund === true);

/** A tenant with one payment of 10.00 (ID 1). */
const paid = async () => {
  const principal = freshPrincipal();
  await serviceWith().service.record(principal, { Object: { Amount: 10 } });
  return principal;
};

/** Races `pending` against a short wait: true when it has not settled (a dead process's request). */
const stillPending = async (pending: Promise<unknown>) =>
  Promise.race([pending.then(() => false, () => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 200))]);

describe('(1) the function dies between its commit and its answer', () => {
  it('a refund: the retry replays the first answer, one refund, the sum exact, the sequence not advanced', async () => {
    const principal = await paid();
    const body = { Object: { Amount: 1.07 } };
    const dying = serviceWith('dies-after-commit');
    const lost = refund(dying.service, principal, 1, body, 'refund-1');
    await dying.reached;
    expect(await stillPending(lost)).toBe(true);
    const afterCommit = await lastId(principal);
    const retry = await refund(serviceWith().service, principal, 1, body, 'refund-1');
    expect(retry.status).toBe(201);
    expect(await lastId(principal)).toBe(afterCommit);
    const refunds = await refundsOf(principal);
    expect(refunds.map((item) => item.ID)).toEqual([(retry.body as { Value: { ID: number } }).Value.ID]);
    expect(await storedItem(table, { pk: `T#${principal.tenantId}`, sk: 'PAY#0000000001' })).toMatchObject({ refundedMinor: 107, refundCount: 1 });
    // A third send of the same request is the same answer, byte for byte.
    expect(JSON.stringify(await refund(serviceWith().service, principal, 1, body, 'refund-1'))).toBe(JSON.stringify(retry));
  });

  it('a refund whose answer was lost (the call failed after the commit): the same call replays its own commit', async () => {
    const principal = await paid();
    const body = { Object: { Amount: 2 } };
    const first = await refund(serviceWith('throws-after-commit').service, principal, 1, body, 'refund-2');
    const retry = await refund(serviceWith().service, principal, 1, body, 'refund-2');
    expect(first.status).toBe(201);
    expect(JSON.stringify(retry)).toBe(JSON.stringify(first));
    expect(await refundsOf(principal)).toHaveLength(1);
  });

  it('a payment: the retry replays the first answer, one payment, the sequence not advanced', async () => {
    const principal = freshPrincipal();
    const body = { Object: { Amount: 42.5, Description: 'crash' } };
    const dying = serviceWith('dies-after-commit');
    const lost = record(dying.service, principal, body, 'pay-1');
    await dying.reached;
    expect(await stillPending(lost)).toBe(true);
    const retry = await record(serviceWith().service, principal, body, 'pay-1');
    expect(retry.status).toBe(201);
    expect(await lastId(principal)).toBe(1);
    expect((await tenantItems(table, principal.tenantId)).filter((item) => item.entity === 'Payment')).toHaveLength(1);
  });
});

describe('(2) a burst of the same request with one key', () => {
  it('makes one refund; every answer is the same 201, byte for byte', async () => {
    const principal = await paid();
    const body = { Object: { Amount: 0.5 } };
    const answers = await Promise.all(Array.from({ length: 12 }, () => refund(serviceWith().service, principal, 1, body, 'burst-1')));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]?.status).toBe(201);
    expect(await refundsOf(principal)).toHaveLength(1);
    expect(await storedItem(table, { pk: `T#${principal.tenantId}`, sk: 'PAY#0000000001' })).toMatchObject({ refundedMinor: 50, refundCount: 1 });
  });

  it('makes one payment from a burst of POST /Payment with one key', async () => {
    const principal = freshPrincipal();
    const body = { Object: { Amount: 3 } };
    const answers = await Promise.all(Array.from({ length: 12 }, () => record(serviceWith().service, principal, body, 'burst-2')));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect((await tenantItems(table, principal.tenantId)).filter((item) => item.entity === 'Payment')).toHaveLength(1);
  });

  it('a burst that takes the whole balance: the twins replay the one refund, none answers refund-exceeds-balance', async () => {
    const principal = await paid();
    const answers = await Promise.all(Array.from({ length: 8 }, () => refund(serviceWith().service, principal, 1, {}, 'burst-3')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201));
    expect(await refundsOf(principal)).toHaveLength(1);
  });
});

describe('(3) a write stalled in flight while the retry runs (the early answer of a stalled DynamoDB)', () => {
  it('the retry commits first; the stalled write, released, is cancelled by the claim and replays: one refund', async () => {
    const principal = await paid();
    const body = { Object: { Amount: 4 } };
    const stalled = serviceWith('stalls-before-write');
    const first = refund(stalled.service, principal, 1, body, 'stall-1');
    await stalled.reached;
    expect(await stillPending(first)).toBe(true);
    const retry = await refund(serviceWith().service, principal, 1, body, 'stall-1');
    stalled.release();
    expect(JSON.stringify(await first)).toBe(JSON.stringify(retry));
    expect(await refundsOf(principal)).toHaveLength(1);
    expect(await storedItem(table, { pk: `T#${principal.tenantId}`, sk: 'PAY#0000000001' })).toMatchObject({ refundedMinor: 400 });
  });

  it('the stalled write commits first; the retry, held after its read, is cancelled by the claim and replays: one payment', async () => {
    const principal = freshPrincipal();
    const body = { Object: { Amount: 8 } };
    const stalled = serviceWith('stalls-before-write');
    const retrying = serviceWith('stalls-before-write');
    const first = record(stalled.service, principal, body, 'stall-2');
    const retry = record(retrying.service, principal, body, 'stall-2');
    await Promise.all([stalled.reached, retrying.reached]);
    expect(await stillPending(first)).toBe(true);
    expect(await stillPending(retry)).toBe(true);
    stalled.release();
    const answered = await first;
    retrying.release();
    expect(JSON.stringify(await retry)).toBe(JSON.stringify(answered));
    expect((await tenantItems(table, principal.tenantId)).filter((item) => item.entity === 'Payment')).toHaveLength(1);
  });
});

describe('(4) a queued refund whose function dies between the commit and the send', () => {
  it('its guarantee message, sent before the commit, settles it once; the retry replays the 202', async () => {
    const principal = await paid();
    const body = { IsQueue: true, Object: { Amount: 2.5 } };
    const dying = serviceWith('dies-after-commit');
    const lost = refund(dying.service, principal, 1, body, 'queued-1');
    await dying.reached;
    expect(await stillPending(lost)).toBe(true);
    // Only the guarantee left the process, with its delay, before the commit.
    expect(dying.sent).toEqual([{ message: { tenantId: principal.tenantId, refundId: 2 }, guarantee: true }]);
    const retrying = serviceWith();
    const retry = await refund(retrying.service, principal, 1, body, 'queued-1');
    expect(retry.status).toBe(202);
    expect(retrying.sent).toEqual([]);
    // The consumer settles the refund from the guarantee, once; a redelivery changes nothing.
    const consumer = serviceWith().service;
    expect(await consumer.completeQueuedRefund(dying.sent[0]!.message)).toBe('completed');
    expect(await consumer.completeQueuedRefund(dying.sent[0]!.message)).toBe('already-settled');
    expect((await refundsOf(principal)).map((item) => item.Status)).toEqual(['Refunded']);
    expect(await storedItem(table, { pk: `T#${principal.tenantId}`, sk: 'PAY#0000000001' })).toMatchObject({ refundedMinor: 250, refundCount: 1 });
  });

  it('a queued refund that commits sends its guarantee first and its message at once after the commit', async () => {
    const principal = await paid();
    const queued = serviceWith();
    const answer = await refund(queued.service, principal, 1, { IsQueue: true, Object: { Amount: 1 } }, 'queued-2');
    expect(answer.status).toBe(202);
    const message = { tenantId: principal.tenantId, refundId: 2 };
    expect(queued.sent).toEqual([
      { message, guarantee: true },
      { message, guarantee: false },
    ]);
  });

  it("a guarantee whose refund never committed changes nothing (the consumer's 'absent')", async () => {
    const principal = await paid();
    const before = await tenantItems(table, principal.tenantId);
    expect(await serviceWith().service.completeQueuedRefund({ tenantId: principal.tenantId, refundId: 7 })).toBe('absent');
    expect(await serviceWith().service.completeQueuedRefund({ tenantId: principal.tenantId, refundId: 1 })).toBe('absent');
    expect(await tenantItems(table, principal.tenantId)).toEqual(before);
  });
});

describe('(5) killed at each of its writes in turn, before the request arrives or after it applied', () => {
  const tables = openRecordedTable();
  /** The service over the recorded table (its writes can be cut off); refunds' messages kept, as the queue would. */
  const killedService = () =>
    createPaymentService({ repository: createPaymentRepository(tables.recorded), publish: async () => undefined, retry: { sleep: async () => undefined } });
  const payments = async (principal: Principal) => (await tenantItems(table, principal.tenantId)).filter((item) => item.entity === 'Payment');

  it('a payment: the retry answers once for good, one payment', async () => {
    const body = { Object: { Amount: 42.5, Description: 'killed' } };
    await atEveryKillPoint({
      setUp: async () => freshPrincipal(),
      killed: (principal, key, kill) => runKilledAt(tables, () => record(killedService(), principal, body, key), kill),
      retry: (principal, key) => record(serviceWith().service, principal, body, key),
      check: async (principal, retried, point) => {
        expect({ ...point, status: retried.status, payments: (await payments(principal)).length }).toEqual({ ...point, status: 201, payments: 1 });
      },
    });
  }, 120_000);

  it('a refund: the retry answers once for good, one refund, the refunded sum exact', async () => {
    const body = { Object: { Amount: 1.07 } };
    await atEveryKillPoint({
      setUp: paid,
      killed: (principal, key, kill) => runKilledAt(tables, () => refund(killedService(), principal, 1, body, key), kill),
      retry: (principal, key) => refund(serviceWith().service, principal, 1, body, key),
      check: async (principal, retried, point) => {
        const original = await storedItem(table, { pk: `T#${principal.tenantId}`, sk: 'PAY#0000000001' });
        expect({ ...point, status: retried.status, refunds: (await refundsOf(principal)).length, refundedMinor: original?.refundedMinor }).toEqual({
          ...point,
          status: 201,
          refunds: 1,
          refundedMinor: 107,
        });
      },
    });
  }, 120_000);
});
