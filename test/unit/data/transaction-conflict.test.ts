// Unit tests of `transact`'s answer to a transaction conflict (shared/data/transaction.ts), and of `readSnapshot`'s, over a stand-in client
// that cancels the first sends: a write cancelled only because another transaction held an item is sent again, up
// to `conflictAttempts` sends, and answers as the send that lands; one with a ClientRequestToken, or a failed
// condition, is not sent again. (On DynamoDB Local, conflicts come from the fault mode: test/e2e/platform/faults.test.ts.)
import { describe, expect, it } from '@jest/globals';
import type { TableContext } from '#shared/data/client';
import { conflictAttempts, transact, TransactionThrottled, type TransactionAction } from '#shared/data/transaction';
import { readSnapshot, SnapshotContended } from '#shared/data/snapshot';
import { toApiError } from '#shared/http/problem';
import { ConcurrentModification } from '#shared/errors';

const cancelled = (code: 'TransactionConflict' | 'ConditionalCheckFailed' | 'ThrottlingError' | 'ProvisionedThroughputExceeded') =>
  Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: code }, { Code: 'None' }] });

/** A table whose client fails the first sends with `failures`, then answers {}; it counts the sends and keeps their tokens. */
const tableFailing = (...failures: Error[]) => {
  let sends = 0;
  const tokens: unknown[] = [];
  const table = {
    tableName: 'business',
    client: {
      send: async (command: { input?: { ClientRequestToken?: unknown } }) => {
        sends += 1;
        tokens.push(command.input?.ClientRequestToken);
        const failure = failures.shift();
        if (failure) throw failure;
        return {};
      },
    },
  } as unknown as TableContext;
  return { table, sends: () => sends, tokens };
};

const actions: TransactionAction<'record' | 'claim'>[] = [
  { role: 'record', item: { Put: { TableName: 'business', Item: { pk: 'T#1', sk: 'A' } } } },
  { role: 'claim', item: { Put: { TableName: 'business', Item: { pk: 'T#1', sk: 'B' } } } },
];

describe('transact under a transaction conflict', () => {
  it('sends the write again and answers as the send that lands', async () => {
    const { table, sends } = tableFailing(cancelled('TransactionConflict'), cancelled('TransactionConflict'));
    await expect(transact(table, actions)).resolves.toBeUndefined();
    expect(sends()).toBe(3);
  });

  it(`answers ConcurrentModification after ${conflictAttempts} conflicted sends`, async () => {
    const { table, sends } = tableFailing(...Array.from({ length: conflictAttempts }, () => cancelled('TransactionConflict')));
    await expect(transact(table, actions)).rejects.toBeInstanceOf(ConcurrentModification);
    expect(sends()).toBe(conflictAttempts);
  });

  it('retries a single-item write an item lock refused (TransactionConflictException)', async () => {
    const { table, sends } = tableFailing(Object.assign(new Error('conflict'), { name: 'TransactionConflictException' }));
    await expect(transact(table, actions.slice(0, 1))).resolves.toBeUndefined();
    expect(sends()).toBe(2);
  });

  it('sends again a write with a token per send, under its next token', async () => {
    const { table, sends, tokens } = tableFailing(cancelled('TransactionConflict'), cancelled('TransactionConflict'));
    await expect(transact(table, actions, { tokenOfAttempt: (attempt) => `token-${attempt}` })).resolves.toBeUndefined();
    expect(sends()).toBe(3);
    expect(tokens).toEqual(['token-1', 'token-2', 'token-3']);
  });

  it('does not send again a write with a ClientRequestToken, nor one whose condition failed', async () => {
    const withToken = tableFailing(cancelled('TransactionConflict'));
    await expect(transact(withToken.table, actions, { clientRequestToken: 'token-1' })).rejects.toBeInstanceOf(ConcurrentModification);
    expect(withToken.sends()).toBe(1);
    const refused = tableFailing(cancelled('ConditionalCheckFailed'));
    await expect(transact(refused.table, actions, { errors: { record: () => new Error('stale') } })).rejects.toThrow('stale');
    expect(refused.sends()).toBe(1);
  });
});

describe.each(['ThrottlingError', 'ProvisionedThroughputExceeded'] as const)('transact cancelled for capacity (%s)', (code) => {
  it('sends the write again and answers as the send that lands', async () => {
    const { table, sends } = tableFailing(cancelled(code), cancelled(code));
    await expect(transact(table, actions)).resolves.toBeUndefined();
    expect(sends()).toBe(3);
  });

  it(`answers a dependency's throttling after ${conflictAttempts} sends: a 503, never a 500 nor a 409`, async () => {
    const { table, sends } = tableFailing(...Array.from({ length: conflictAttempts }, () => cancelled(code)));
    const error = await transact(table, actions).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(TransactionThrottled);
    expect(error).not.toBeInstanceOf(ConcurrentModification);
    expect(toApiError(error).kind.status).toBe(503);
    expect(sends()).toBe(conflictAttempts);
  });

  it('reports a failed condition before the capacity: the condition decides', async () => {
    const both = Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: code }, { Code: 'ConditionalCheckFailed' }] });
    const { table, sends } = tableFailing(both);
    await expect(transact(table, actions, { errors: { claim: () => new Error('taken') } })).rejects.toThrow('taken');
    expect(sends()).toBe(1);
  });
});

describe('readSnapshot cancelled by a transaction in flight or for capacity (shared/data/snapshot.ts)', () => {
  const keys = [{ pk: 'T#1', sk: 'A' }, { pk: 'T#1', sk: 'B' }];

  it.each(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded'] as const)('reads again after a read cancelled by %s', async (code) => {
    const { table, sends } = tableFailing(cancelled(code));
    await expect(readSnapshot(table, keys)).resolves.toEqual([undefined, undefined]);
    expect(sends()).toBe(2);
  });

  it('reads again after TransactionConflictException, and answers a 503 past every resend, never a 409', async () => {
    const { table, sends } = tableFailing(...Array.from({ length: 50 }, () => Object.assign(new Error('conflict'), { name: 'TransactionConflictException' })));
    const error = await readSnapshot(table, keys).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(SnapshotContended);
    expect(toApiError(error).kind.status).toBe(503);
    expect(sends()).toBeGreaterThan(1);
  });

  it('does not read again after any other failure', async () => {
    const { table, sends } = tableFailing(Object.assign(new Error('bad key'), { name: 'ValidationException' }));
    await expect(readSnapshot(table, keys)).rejects.toThrow('bad key');
    expect(sends()).toBe(1);
  });
});

describe('transact and one item named twice (AWS refuses it whole; DynamoDB Local accepts it)', () => {
  it('refuses before sending a transaction whose actions name one item twice, naming both roles', async () => {
    const { table, sends } = tableFailing();
    const twice: TransactionAction<'record' | 'claim'>[] = [
      { role: 'record', item: { Put: { TableName: 'business', Item: { pk: 'T#1', sk: 'A', value: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } } },
      { role: 'claim', item: { ConditionCheck: { TableName: 'business', Key: { pk: 'T#1', sk: 'A' }, ConditionExpression: 'attribute_exists(pk)' } } },
    ];
    await expect(transact(table, twice)).rejects.toThrow('a transaction names one item twice (roles record and claim)');
    expect(sends()).toBe(0);
  });

  it('sends one whose items differ by table, partition or sort key', async () => {
    const { table, sends } = tableFailing();
    const apart: TransactionAction<string>[] = [
      { role: 'a', item: { Put: { TableName: 'business', Item: { pk: 'T#1', sk: 'A' } } } },
      { role: 'b', item: { Delete: { TableName: 'business', Key: { pk: 'T#2', sk: 'A' } } } },
      { role: 'c', item: { Update: { TableName: 'business', Key: { pk: 'T#1', sk: 'B' }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 1 } } } },
      { role: 'd', item: { ConditionCheck: { TableName: 'other', Key: { pk: 'T#1', sk: 'A' }, ConditionExpression: 'attribute_exists(pk)' } } },
    ];
    await expect(transact(table, apart)).resolves.toBeUndefined();
    expect(sends()).toBe(1);
  });
});
