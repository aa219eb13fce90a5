// Unit tests of the optimistic-retry policy (shared/data/retry.ts): full-jitter delays within doubling bounds.
import { describe, expect, it } from '@jest/globals';
import { backoffDelayMs, optimisticRetryPolicy } from '../../../shared/data/retry';

describe('backoffDelayMs', () => {
  it('is uniformly random below a bound that doubles from 20 ms up to 800 ms', () => {
    const bounds = Array.from({ length: 9 }, (_, index) => backoffDelayMs(index + 1, optimisticRetryPolicy, () => 1));
    const lowest = Array.from({ length: 9 }, (_, index) => backoffDelayMs(index + 1, optimisticRetryPolicy, () => 0));

    expect({ bounds, lowest, attempts: optimisticRetryPolicy.maxAttempts }).toEqual({
      bounds: [20, 40, 80, 160, 320, 640, 800, 800, 800],
      lowest: [0, 0, 0, 0, 0, 0, 0, 0, 0],
      attempts: 8,
    });
  });
});
