// Unit tests of the optimistic-retry policy (shared/data/retry.ts): full-jitter delays within doubling bounds.
import { describe, expect, it } from '@jest/globals';
import { backoffDelayMs, optimisticRetryPolicy } from '#shared/data/retry';

describe('backoffDelayMs', () => {
  it('is uniformly random below a bound that doubles from 25 ms up to 1 s', () => {
    const bounds = Array.from({ length: 11 }, (_, index) => backoffDelayMs(index + 1, optimisticRetryPolicy, () => 1));
    const lowest = Array.from({ length: 11 }, (_, index) => backoffDelayMs(index + 1, optimisticRetryPolicy, () => 0));

    expect({ bounds, lowest, attempts: optimisticRetryPolicy.maxAttempts }).toEqual({
      bounds: [25, 50, 100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000],
      lowest: Array(11).fill(0),
      attempts: 10,
    });
  });
});
