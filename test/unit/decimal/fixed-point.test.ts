// Unit tests of shared/decimal, the one exact decimal module: parsing (any decimal text, and canonical text only),
// units at a fixed scale, canonical and fixed formatting, comparison and exact sums. Property loops run over the edge
// cases the rules meet: negative zero, leading and trailing zeros, 15 and 38 significant digits, scale overflow and
// exponent forms.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  addDecimals,
  compareDecimals,
  formatDecimal,
  formatFixed,
  formatUnits,
  InvalidDecimal,
  isCanonical,
  maxExponent,
  numberToUnits,
  parseCanonical,
  parseDecimal,
  rescale,
  sameDecimal,
  subtractDecimals,
  textToUnits,
  unitsAt,
  type DecimalProblem,
} from '#shared/decimal/index';

const problemOf = (run: () => unknown): DecimalProblem => {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidDecimal) return error.problem;
    throw error;
  }
  throw new Error('expected an InvalidDecimal');
};

const units = fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n });
const scale = fc.integer({ min: 0, max: 12 });
const decimal = fc.tuple(units, scale).map(([value, at]) => parseDecimal(formatUnits(value, at)));

describe('parseDecimal', () => {
  it('reads negative zero, in every spelling, as zero', () => {
    for (const text of ['-0', '-0.0', '-000', '-0e5', '-0.000e-9', '0E+0', '-00.00']) {
      expect(parseDecimal(text)).toEqual({ negative: false, coefficient: 0n, scale: 0 });
    }
  });

  it('drops leading zeros and trailing fractional zeros', () => {
    expect([parseDecimal('007.10'), parseDecimal('-0001.2300'), parseDecimal('100'), parseDecimal('0.000')]).toEqual([
      { negative: false, coefficient: 71n, scale: 1 },
      { negative: true, coefficient: 123n, scale: 2 },
      { negative: false, coefficient: 100n, scale: 0 },
      { negative: false, coefficient: 0n, scale: 0 },
    ]);
  });

  it('keeps 38 significant digits (what DynamoDB stores) exactly', () => {
    const digits = '12345678901234567890123456789012345678';
    expect(parseDecimal(`-${digits.slice(0, 10)}.${digits.slice(10)}`)).toEqual({ negative: true, coefficient: BigInt(digits), scale: 28 });
    expect(formatDecimal(parseDecimal(`0.${digits}`))).toBe(`0.${digits}`);
  });

  it('reads exponents up to the bound and refuses beyond it (a huge exponent never builds a huge number)', () => {
    expect(parseDecimal(`1e${maxExponent}`).coefficient).toBe(10n ** BigInt(maxExponent));
    expect(parseDecimal(`1e-${maxExponent}`)).toEqual({ negative: false, coefficient: 1n, scale: maxExponent });
    for (const text of [`1e${maxExponent + 1}`, `1e-${maxExponent + 1}`, '1e999999999', '1e-99999999999999999999']) {
      expect(problemOf(() => parseDecimal(text))).toBe('too-large');
    }
  });

  it.each(['', ' 1', '1 ', '1.', '.5', '1,5', '0x10', '0b1', 'NaN', 'Infinity', '-Infinity', '+1', '1e', '1e+', '--1', '1..2', '１', '1_000'])(
    'refuses %j',
    (text) => {
      expect(problemOf(() => parseDecimal(text))).toBe('not-a-number');
    },
  );

  it('reads back the canonical text it formats (property)', () => {
    fc.assert(
      fc.property(units, scale, (value, at) => {
        const text = formatUnits(value, at);
        expect(unitsAt(parseDecimal(text), at)).toBe(value);
        expect(formatDecimal(parseDecimal(text))).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads the same value from an exponent form, leading zeros and trailing zeros (property)', () => {
    fc.assert(
      fc.property(units, scale, fc.integer({ min: 0, max: 5 }), (value, at, padding) => {
        const text = formatUnits(value, at);
        const negative = text.startsWith('-');
        const magnitude = negative ? text.slice(1) : text;
        const padded = `${negative ? '-' : ''}${'0'.repeat(padding)}${magnitude}${magnitude.includes('.') ? '0'.repeat(padding) : ''}`;
        const exponentForm = `${value < 0n ? '-' : ''}${(value < 0n ? -value : value).toString()}e-${at}`;
        expect(parseDecimal(padded)).toEqual(parseDecimal(text));
        expect(parseDecimal(exponentForm)).toEqual(parseDecimal(text));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseCanonical and isCanonical', () => {
  it('take the text formatUnits writes (property)', () => {
    fc.assert(
      fc.property(units, scale, (value, at) => {
        const text = formatUnits(value, at);
        expect(isCanonical(text)).toBe(true);
        expect(unitsAt(parseCanonical(text), at)).toBe(value);
      }),
    );
  });

  it.each(['-0', '00', '01', '-01.5', '1.50', '1.0', '1e3', '1E-2', '+1', '.5', '5.', '', '0.0', ' 1'])('refuse %j', (text) => {
    expect(isCanonical(text)).toBe(false);
    expect(problemOf(() => parseCanonical(text))).toBe('not-a-number');
  });
});

describe('units at a scale', () => {
  it('refuse a decimal with more places than the scale, never rounding', () => {
    expect([unitsAt(parseDecimal('1.25'), 1), unitsAt(parseDecimal('1.25'), 2), unitsAt(parseDecimal('-1e-6'), 5), unitsAt(parseDecimal('-1e-6'), 6)]).toEqual([
      undefined,
      125n,
      undefined,
      -1n,
    ]);
    expect(problemOf(() => textToUnits('0.123456', 5))).toBe('too-many-decimals');
    expect(problemOf(() => textToUnits('abc', 5))).toBe('not-a-number');
    expect(textToUnits('-12.5', 5)).toBe(-1_250_000n);
  });

  it('read a JSON number through its shortest text: -0, subnormals, exponents and non-finite numbers', () => {
    expect([numberToUnits(-0, 5), numberToUnits(5e-324, 5), numberToUnits(1e21, 0), numberToUnits(1.5e-7, 8), numberToUnits(-Infinity, 5)]).toEqual([
      0n,
      undefined,
      10n ** 21n,
      15n,
      undefined,
    ]);
  });

  it('refuse scale overflow: a decimal finer than the scale at every scale (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), scale, (value, at) => {
        const finer = parseDecimal(`${value.toString()}1e-${at + 1}`);
        expect(unitsAt(finer, at)).toBeUndefined();
        expect(unitsAt(finer, at + 1)).toBe(value * 10n + 1n);
      }),
    );
  });

  it('round-trip every value of at most 15 significant digits through a JSON number (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), scale, (value, at) => {
        expect(numberToUnits(JSON.parse(JSON.stringify(Number(formatUnits(value, at)))) as number, at)).toBe(value);
      }),
      { numRuns: 1000 },
    );
  });

  it('rescale only to a finer scale', () => {
    expect(rescale(-125n, 2, 5)).toBe(-125_000n);
    expect(() => rescale(125n, 5, 2)).toThrow(RangeError);
  });
});

describe('formatting', () => {
  it('writes fixed places, or canonical text, never -0 or an exponent', () => {
    expect([formatFixed(1230n, 2), formatFixed(-5n, 2), formatFixed(500n, 0), formatFixed(-0n, 3), formatFixed(1n, 4)]).toEqual([
      '12.30',
      '-0.05',
      '500',
      '0.000',
      '0.0001',
    ]);
    expect([formatUnits(10n ** 30n, 0), formatUnits(1n, 30), formatUnits(-100n, 2), formatUnits(-0n, 0)]).toEqual([
      `1${'0'.repeat(30)}`,
      `0.${'0'.repeat(29)}1`,
      '-1',
      '0',
    ]);
  });

  it('agrees between fixed and canonical forms (property)', () => {
    fc.assert(
      fc.property(units, scale, (value, at) => {
        expect(parseDecimal(formatFixed(value, at))).toEqual(parseDecimal(formatUnits(value, at)));
        expect(formatFixed(value, at)).not.toMatch(/e|^-0(\.0*)?$/i);
      }),
    );
  });
});

describe('comparison and exact sums', () => {
  it('compare across scales exactly', () => {
    expect([
      compareDecimals(parseDecimal('1.50'), parseDecimal('15e-1')),
      compareDecimals(parseDecimal('-0'), parseDecimal('0')),
      compareDecimals(parseDecimal('0.1'), parseDecimal('0.09999999999999999999')),
      compareDecimals(parseDecimal('-2'), parseDecimal('-1.999')),
    ]).toEqual([0, 0, 1, -1]);
    expect([sameDecimal('1.50', '15e-1'), sameDecimal('-0', '0.000'), sameDecimal('0.3', String(0.1 + 0.2)), sameDecimal('1', 'one')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('add and subtract exactly where doubles do not', () => {
    expect(formatDecimal(addDecimals(parseDecimal('0.1'), parseDecimal('0.2')))).toBe('0.3');
    expect(formatDecimal(subtractDecimals(parseDecimal('1'), parseDecimal('0.00001')))).toBe('0.99999');
    expect(formatDecimal(subtractDecimals(parseDecimal('2.5'), parseDecimal('2.50')))).toBe('0');
  });

  it('match bigint arithmetic on units (property)', () => {
    fc.assert(
      fc.property(units, scale, units, scale, (a, aScale, b, bScale) => {
        const left = parseDecimal(formatUnits(a, aScale));
        const right = parseDecimal(formatUnits(b, bScale));
        const at = Math.max(aScale, bScale);
        const [x, y] = [unitsAt(left, at) as bigint, unitsAt(right, at) as bigint];
        expect(unitsAt(addDecimals(left, right), at)).toBe(x + y);
        expect(unitsAt(subtractDecimals(left, right), at)).toBe(x - y);
        expect(compareDecimals(left, right)).toBe(x < y ? -1 : x > y ? 1 : 0);
        expect(compareDecimals(addDecimals(left, right), subtractDecimals(left, right))).toBe(y > 0n ? 1 : y < 0n ? -1 : 0);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('decimal generator sanity', () => {
  it('produces canonical decimals only', () => {
    fc.assert(fc.property(decimal, (value) => expect(isCanonical(formatDecimal(value))).toBe(true)));
  });
});
