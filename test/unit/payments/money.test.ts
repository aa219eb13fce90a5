// Unit tests of shared/money: the ISO 4217 table, exact conversion between JSON numbers and integer minor units, and
// the display format. Property tests (fast-check) cover every amount within bounds, in currencies of 0 to 4 decimals.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  currencies,
  decimalText,
  defaultCurrency,
  formatAmount,
  fromMinorUnits,
  InvalidAmount,
  maxMinorUnits,
  minorUnitsOf,
  parseDecimal,
  toMinorUnits,
} from '#shared/money/index';

const problemOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidAmount) return error.problem;
    throw error;
  }
  throw new Error('expected an InvalidAmount');
};

const sampleCurrencies = ['AUD', 'JPY', 'KWD', 'CLF', 'USD', 'EUR', 'ISK'] as const;
const currency = fc.constantFrom(...sampleCurrencies);
const minor = fc.integer({ min: -maxMinorUnits, max: maxMinorUnits });

describe('currencies', () => {
  it('knows the minor units of ISO 4217 codes: JPY 0, AUD 2, KWD 3, CLF 4', () => {
    expect([minorUnitsOf('JPY'), minorUnitsOf('AUD'), minorUnitsOf('KWD'), minorUnitsOf('CLF')]).toEqual([0, 2, 3, 4]);
    expect([minorUnitsOf('KRW'), minorUnitsOf('BHD'), minorUnitsOf('EUR'), minorUnitsOf('XCG')]).toEqual([0, 3, 2, 2]);
  });

  it('defaults to AUD', () => {
    expect(defaultCurrency).toBe('AUD');
    expect(minorUnitsOf(defaultCurrency)).toBe(2);
  });

  it('refuses lower case, withdrawn, metal and prototype names', () => {
    for (const code of ['aud', 'HRK', 'ANG', 'XAU', 'XDR', 'XXX', '__proto__', 'constructor', 'toString', '']) {
      expect(minorUnitsOf(code)).toBeUndefined();
    }
  });

  it('lists every code once, as three capital letters', () => {
    expect(currencies.size).toBeGreaterThan(150);
    for (const code of currencies.keys()) expect(code).toMatch(/^[A-Z]{3}$/);
  });
});

describe('parseDecimal', () => {
  it.each([
    ['0', false, 0n, 0],
    ['0.00', false, 0n, 0],
    ['-0', false, 0n, 0],
    ['12.30', false, 123n, 1],
    ['-0.05', true, 5n, 2],
    ['100.00', false, 100n, 0],
    ['1e-7', false, 1n, 7],
    ['4.5E+3', false, 4500n, 0],
    ['007.10', false, 71n, 1],
  ])('reads %s exactly', (text, negative, coefficient, scale) => {
    expect(parseDecimal(text)).toEqual({ negative, coefficient, scale });
  });

  it.each(['', '1.', '.5', '1,5', '0x10', 'NaN', 'Infinity', '1 000', '+1', '1e', '--1'])('refuses %j', (text) => {
    expect(problemOf(() => parseDecimal(text))).toBe('not-a-number');
  });
});

describe('toMinorUnits', () => {
  it('converts exactly where binary floating point does not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(toMinorUnits(0.1, 'AUD') + toMinorUnits(0.2, 'AUD')).toBe(toMinorUnits(0.3, 'AUD'));
    expect(toMinorUnits(0.3, 'AUD')).toBe(30);
    expect(toMinorUnits(1.005, 'KWD')).toBe(1005);
    expect(toMinorUnits(19.99, 'AUD')).toBe(1999);
    expect(Math.round(1.005 * 100)).toBe(100); // what multiplying a double gives, and why this module never does
    expect(toMinorUnits(1.005, 'CLF')).toBe(10050);
    expect(toMinorUnits(500, 'JPY')).toBe(500);
    expect(toMinorUnits('12.30', 'AUD')).toBe(1230);
  });

  it('refuses more decimals than the currency has, never rounding', () => {
    expect(problemOf(() => toMinorUnits(0.1 + 0.2, 'AUD'))).toBe('too-many-decimals');
    expect(problemOf(() => toMinorUnits(1.5, 'JPY'))).toBe('too-many-decimals');
    expect(problemOf(() => toMinorUnits(1.001, 'AUD'))).toBe('too-many-decimals');
    expect(problemOf(() => toMinorUnits(1.0001, 'KWD'))).toBe('too-many-decimals');
    expect(problemOf(() => toMinorUnits(5e-324, 'AUD'))).toBe('too-many-decimals');
    expect(toMinorUnits(1.0, 'JPY')).toBe(1);
  });

  it('refuses amounts beyond 15 significant digits, unknown currencies and non-finite numbers', () => {
    expect(toMinorUnits(9_999_999_999_999.99, 'AUD')).toBe(maxMinorUnits);
    expect(problemOf(() => toMinorUnits(10_000_000_000_000, 'AUD'))).toBe('too-large');
    expect(problemOf(() => toMinorUnits(1e21, 'JPY'))).toBe('too-large');
    expect(problemOf(() => toMinorUnits(1, 'XAU'))).toBe('unknown-currency');
    expect(problemOf(() => toMinorUnits(Number.NaN, 'AUD'))).toBe('not-a-number');
    expect(problemOf(() => toMinorUnits(Number.POSITIVE_INFINITY, 'AUD'))).toBe('not-a-number');
  });

  it('reads back every amount within bounds from its JSON number (property)', () => {
    fc.assert(
      fc.property(minor, currency, (value, code) => {
        const json = JSON.parse(JSON.stringify(fromMinorUnits(value, code))) as number;
        expect(toMinorUnits(json, code)).toBe(value);
        expect(toMinorUnits(decimalText(value, code), code)).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('adds and subtracts amounts exactly (property)', () => {
    const cents = fc.integer({ min: 0, max: 10 ** 12 });
    fc.assert(
      fc.property(cents, cents, (a, b) => {
        const sum = toMinorUnits(fromMinorUnits(a, 'AUD'), 'AUD') + toMinorUnits(fromMinorUnits(b, 'AUD'), 'AUD');
        expect(sum).toBe(a + b);
        expect(decimalText(sum, 'AUD')).toBe(decimalText(a + b, 'AUD'));
        expect(BigInt(sum)).toBe(BigInt(a) + BigInt(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses one decimal more than the currency allows, in any amount (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 11 }), fc.integer({ min: 1, max: 9 }), fc.constantFrom('AUD', 'KWD'), (value, digit, code) => {
        const text = `${decimalText(value, code)}${digit}`;
        expect(problemOf(() => toMinorUnits(text, code))).toBe('too-many-decimals');
        expect(problemOf(() => toMinorUnits(Number(text), code))).toBe('too-many-decimals');
      }),
    );
  });
});

describe('decimalText and formatAmount', () => {
  it.each([
    [1230, 'AUD', '12.30', '$12.30'],
    [-5, 'AUD', '-0.05', '-$0.05'],
    [110000, 'AUD', '1100.00', '$1,100.00'],
    [-25050, 'AUD', '-250.50', '-$250.50'],
    [0, 'AUD', '0.00', '$0.00'],
    [1500, 'JPY', '1500', 'JPY 1,500'],
    [1005, 'KWD', '1.005', 'KWD 1.005'],
    [maxMinorUnits, 'AUD', '9999999999999.99', '$9,999,999,999,999.99'],
  ])('%d %s is %s, shown as %s', (value, code, text, shown) => {
    expect(decimalText(value, code)).toBe(text);
    expect(formatAmount(value, code)).toBe(shown);
  });

  it('never shows more or fewer decimals than the currency has (property)', () => {
    fc.assert(
      fc.property(minor, currency, (value, code) => {
        const shown = formatAmount(value, code);
        const units = minorUnitsOf(code) ?? 0;
        expect(shown).toMatch(units === 0 ? /[0-9]$/ : new RegExp(`\\.[0-9]{${units}}$`));
        expect(shown.replace(/[^0-9]/g, '').replace(/^0+/, '')).toBe(String(Math.abs(value)).replace(/^0+/, ''));
      }),
    );
  });

  it('writes what Intl writes in en-AU, for every currency of the table (property over the amounts)', () => {
    // formatAmount writes the format out (no ICU data at a cold start); ICU's en-AU is the reference it must match.
    const intl = new Map(
      [...currencies].map(([code, units]) => [
        code,
        new Intl.NumberFormat('en-AU', { style: 'currency', currency: code, minimumFractionDigits: units, maximumFractionDigits: units }),
      ]),
    );
    const reference = (value: number, code: string) => intl.get(code)!.format(decimalText(value, code) as unknown as number).replace(/[\u00a0\u202f]/g, ' ');
    for (const code of currencies.keys()) {
      for (const value of [0, 1, -1, 999, 1000, -1000, 123_456_789, -maxMinorUnits, maxMinorUnits]) expect([code, value, formatAmount(value, code)]).toEqual([code, value, reference(value, code)]);
    }
    fc.assert(fc.property(minor, currency, (value, code) => expect(formatAmount(value, code)).toBe(reference(value, code))));
  });

  it('refuses minor units that are not safe integers', () => {
    expect(problemOf(() => decimalText(1.5, 'AUD'))).toBe('not-a-number');
  });
});
