// Integration: versioned (optimistic) writes (shared/data/versioned.ts) and the one optimistic-retry policy
// (shared/data/retry.ts) against DynamoDB Local.
import { describe, expect, it } from '@jest/globals';
import { tenantKey } from '#shared/data/partition';
import { withOptimisticRetry } from '#shared/data/retry';
import { transact } from '#shared/data/transaction';
import { nextVersion, versionedPut, versionedUpdate } from '#shared/data/versioned';
import { ConcurrentModification, StaleVersion } from '#shared/errors';
import { failureOf, freshTenantId, openLocalTable, storedItem } from './support';

const table = openLocalTable();
const errors = { record: () => new StaleVersion() };

interface Counter {
  readonly Count: number;
  readonly Version: number;
}

const counterKey = (tenantId: number) => tenantKey(tenantId, 'COUNTER');
const putCounter = (tenantId: number, next: Counter, previous: Counter | undefined) =>
  transact(table, [{ role: 'record', item: versionedPut(table.tableName, { ...counterKey(tenantId), ...next }, previous?.Version) }], { errors });
const readCounter = async (tenantId: number) => (await storedItem(table, counterKey(tenantId))) as (Counter & Record<string, unknown>) | undefined;

describe('versionedPut', () => {
  it('creates only when nothing is stored, then replaces only the version it read', async () => {
    const tenant = freshTenantId();
    const created = { Count: 1, Version: nextVersion(undefined) };
    await putCounter(tenant, created, undefined);

    const createdAgain = await failureOf(putCounter(tenant, created, undefined));
    await putCounter(tenant, { Count: 2, Version: nextVersion(created) }, created);
    const stale = await failureOf(putCounter(tenant, { Count: 9, Version: 2 }, created));

    const staleVersion = { name: 'StaleVersion', status: 409, detail: 'The record was changed by someone else; fetch it again and retry.' };
    expect({ createdAgain, stale, stored: await readCounter(tenant) }).toEqual({
      createdAgain: staleVersion,
      stale: staleVersion,
      // An edit alone carries the mark of its call (shared/data/conditional-write.ts): how its lost answer's resend is known.
      stored: { ...counterKey(tenant), Count: 2, Version: 2, lastWrite: expect.any(String) },
    });
  });
});

describe('versionedUpdate', () => {
  it('sets the given attributes and bumps Version, only at the version read', async () => {
    const tenant = freshTenantId();
    await putCounter(tenant, { Count: 1, Version: 1 }, undefined);
    const update = (expected: number, count: number) =>
      transact(table, [{ role: 'record', item: versionedUpdate(table.tableName, counterKey(tenant), expected, { Count: count, Note: 'updated' }) }], { errors });

    await update(1, 5);
    const stale = await failureOf(update(1, 7));

    expect({ stale: stale.name, stored: await readCounter(tenant) }).toEqual({
      stale: 'StaleVersion',
      stored: { ...counterKey(tenant), Count: 5, Note: 'updated', Version: 2, lastWrite: expect.any(String) },
    });
  });
});

describe('withOptimisticRetry', () => {
  it('20 concurrent read-modify-writes of one record all apply: none is lost', async () => {
    const tenant = freshTenantId();
    await putCounter(tenant, { Count: 0, Version: 1 }, undefined);
    const attempts: number[] = [];

    // Each writer reads, adds one, and writes at the version it read; a lost race is retried from the read.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withOptimisticRetry(
          async (attempt) => {
            attempts.push(attempt);
            const current = (await readCounter(tenant)) as Counter;
            await putCounter(tenant, { Count: current.Count + 1, Version: nextVersion(current) }, current);
          },
          { isRetryable: (error) => error instanceof StaleVersion || error instanceof ConcurrentModification, policy: { maxAttempts: 40, baseDelayMs: 5, maxDelayMs: 200 } },
        ),
      ),
    );

    expect(await readCounter(tenant)).toMatchObject({ Count: 20, Version: 21 });
    expect(Math.max(...attempts)).toBeGreaterThan(1);
  });

  it('does not retry any other error, and gives up after the last attempt with its error', async () => {
    const calls: string[] = [];
    const sleeps: number[] = [];
    const options = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 1 };

    const other = await failureOf(
      withOptimisticRetry(async () => {
        calls.push('other');
        throw new StaleVersion();
      }, options),
    );
    const contended = await failureOf(
      withOptimisticRetry(async () => {
        calls.push('contended');
        throw new ConcurrentModification();
      }, options),
    );

    expect({ other: other.name, contended: contended.name, calls: calls.filter((call) => call === 'contended').length, sleeps }).toEqual({
      other: 'StaleVersion',
      contended: 'ConcurrentModification',
      calls: 10,
      sleeps: [25, 50, 100, 200, 400, 800, 1000, 1000, 1000],
    });
  });
});
