// Unit tests of the exact decimals under quantities and prices.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { formatUnits, halfUnitAt, numberToUnits as toUnits, rescale, unitsToNumber } from '#shared/decimal/index';

describe('toUnits', () => {
  it('reads the decimal a JSON number was written as, exactly', () => {
    expect([toUnits(0, 5), toUnits(12, 5), toUnits(0.1, 5), toUnits(2.5, 2), toUnits(-1.25, 2), toUnits(9999999999999.99, 2)]).toEqual([
      0n,
      1_200_000n,
      10_000n,
      250n,
      -125n,
      999_999_999_999_999n,
    ]);
  });

  it('reads numbers JavaScript prints with an exponent', () => {
    expect([toUnits(1e-5, 5), toUnits(1e21, 0), toUnits(1.5e-7, 8), toUnits(-2e-6, 6)]).toEqual([1n, 10n ** 21n, 15n, -2n]);
  });

  it('refuses more decimal places than the scale, and non-finite numbers', () => {
    expect([toUnits(0.123456, 5), toUnits(1e-6, 5), toUnits(0.005, 2), toUnits(Number.NaN, 5), toUnits(Infinity, 5)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('sums exactly where binary floats do not', () => {
    const sum = (toUnits(0.1, 5) as bigint) + (toUnits(0.2, 5) as bigint);
    expect([0.1 + 0.2 === 0.3, sum === toUnits(0.3, 5)]).toEqual([false, true]);
  });
});

describe('formatUnits', () => {
  it('writes canonical decimal text: no exponent, no trailing zeros, never -0', () => {
    expect([formatUnits(0n, 5), formatUnits(1_200_000n, 5), formatUnits(10_000n, 5), formatUnits(-125n, 2), formatUnits(5n, 5), formatUnits(-0n, 3)]).toEqual([
      '0',
      '12',
      '0.1',
      '-1.25',
      '0.00005',
      '0',
    ]);
  });

  it('round-trips every decimal of at most 15 significant digits (what a double carries exactly)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), fc.integer({ min: 0, max: 10 }), (units, scale) => {
        expect(toUnits(Number(formatUnits(units, scale)), scale)).toBe(units);
        expect(unitsToNumber(units, scale)).toBe(Number(formatUnits(units, scale)));
      }),
    );
  });

  it('keeps every quantity of the schema bound exact at two decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (units) => {
        expect(toUnits(Number(formatUnits(units, 2)), 2)).toBe(units);
      }),
    );
  });
});

describe('rescale and halfUnitAt', () => {
  it('re-express units at a finer scale and give half a unit of a coarser one', () => {
    expect([rescale(125n, 2, 10), halfUnitAt(10, 2), halfUnitAt(5, 0)]).toEqual([12_500_000_000n, 50_000_000n, 50_000n]);
  });
});
