// Unit tests of `withTakenValue` (shared/data/sequence.ts), the one loop every create with a sequence value runs: a
// value in use is stepped past and never given back; the last value tried goes back when the create wrote nothing,
// and only then. (The sequence itself, on DynamoDB Local: test/integration/data/sequence*.test.ts.)
import { describe, expect, it } from '@jest/globals';
import { ValueInUse, valueInUseRounds, withTakenValue } from '#shared/data/sequence';
import { KeyAlreadyClaimed } from '#shared/data/idempotency';
import { ConcurrentModification, Conflict, ServiceUnavailable, WriteOutcomeUnknown } from '#shared/errors';

/** A counter from `first`, recording the values given back. */
const counter = (first: number) => {
  let last = first;
  const givenBack: number[] = [];
  return { first, givenBack, source: { take: async () => (last += 1), giveBack: (value: number) => void givenBack.push(value) } };
};

describe('withTakenValue', () => {
  it('steps past values in use and gives none of them back', async () => {
    const { first, givenBack, source } = counter(1);
    const tried: number[] = [];
    const created = await withTakenValue(first, source, async (value) => {
      tried.push(value);
      if (value < 4) throw new ValueInUse('payment ID', value);
      return value;
    });
    expect(created).toBe(4);
    expect(tried).toEqual([1, 2, 3, 4]);
    expect(givenBack).toEqual([]);
  });

  it(`stops after ${valueInUseRounds} values in use, giving none back`, async () => {
    const { first, givenBack, source } = counter(1);
    await expect(withTakenValue(first, source, async (value) => Promise.reject(new ValueInUse('payment ID', value)))).rejects.toBeInstanceOf(ValueInUse);
    expect(givenBack).toEqual([]);
  });

  it.each([
    ['a 4xx refusal', new Conflict('taken')],
    ['an Idempotency-Key already claimed', new KeyAlreadyClaimed()],
    ['contention past every retry (a 503 caused by ConcurrentModification)', new ServiceUnavailable('busy', 1, new ConcurrentModification())],
  ])('gives back the last value tried after %s', async (_, refusal) => {
    const { first, givenBack, source } = counter(7);
    await expect(withTakenValue(first, source, async (value) => Promise.reject(value === 7 ? new ValueInUse('ID', value) : refusal))).rejects.toBe(refusal);
    expect(givenBack).toEqual([8]);
  });

  it.each([
    ['a 503 of a dependency', new ServiceUnavailable('queue down', 5)],
    ['an error that may have written (a timeout)', Object.assign(new Error('socket hang up'), { name: 'TimeoutError' })],
    // transact's resends of a write that may have landed, cancelled (its cause a conflict): the item may be there.
    ['a write whose outcome is unknown, its resends cancelled by conflicts', new WriteOutcomeUnknown(new ConcurrentModification())],
  ])('keeps the value after %s', async (_, failure) => {
    const { first, givenBack, source } = counter(7);
    await expect(withTakenValue(first, source, async () => Promise.reject(failure))).rejects.toBe(failure);
    expect(givenBack).toEqual([]);
  });

  it('answers the refusal even when giving the value back fails', async () => {
    const refusal = new Conflict('taken');
    const source = { take: async () => 2, giveBack: async () => Promise.reject(new Error('table down')) };
    await expect(withTakenValue(1, source, async () => Promise.reject(refusal))).rejects.toBe(refusal);
  });
});
