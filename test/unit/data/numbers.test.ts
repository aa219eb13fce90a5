// Unit tests of the one DynamoDB number rule (shared/data/numbers.ts): magnitudes, the text a double holds exactly,
// and the storable-number schema every decimal is built on (zod and the compiled plan alike).
import { describe, expect, it } from '@jest/globals';
import {
  decimalFormOf,
  dynamoNumber,
  isExactNumberText,
  isStorableNumber,
  notBelowSmallestMagnitude,
  numberTextProblem,
  significantDigits,
} from '#shared/data/numbers';
import { decimal, storableNumber } from '#shared/schemas/common';
import { compileSchema } from '#infra/build/schema-validators';

describe('isStorableNumber', () => {
  it.each([0, -0, 1, -1, 1e-130, -1e-130, 1.5e-130, 0.1, 123.45, 1e15, 9007199254740991, -9007199254740991])(
    'stores %p',
    (value) => expect(isStorableNumber(value)).toBe(true),
  );

  it.each([1e-131, 9.99e-131, -1e-200, 1e-300, 5e-324, 9007199254740992, 1e20, 1e125, -1e126, 1e300, Number.MAX_VALUE, Infinity, -Infinity, NaN])('refuses %p', (value) =>
    expect(isStorableNumber(value)).toBe(false),
  );

  it('agrees with the pattern the schemas test on the number text, for tiny and ordinary doubles', () => {
    const samples = [0, 1, 0.5, 1e-7, 1e-129, 1e-130, 1.0000000000000001e-130, 9.999999999999999e-131, 1e-131, 2e-150, 5e-324, 123456.789];
    for (let exponent = -324; exponent <= 14; exponent += 1) samples.push(Number(`1.2345e${exponent}`), Number(`9.87654321e${exponent}`));
    for (const value of samples) {
      expect([value, notBelowSmallestMagnitude.test(String(value))]).toEqual([value, isStorableNumber(value)]);
      expect([-value, notBelowSmallestMagnitude.test(String(-value))]).toEqual([-value, isStorableNumber(-value)]);
    }
  });

  it('has the limits DynamoDB documents, and the document client\'s upper bound', () => {
    expect(dynamoNumber).toEqual({ maxSignificantDigits: 38, minMagnitude: 1e-130, maxMagnitude: Number.MAX_SAFE_INTEGER });
  });
});

describe('decimalFormOf and significantDigits', () => {
  it.each([
    ['0', '', 0],
    ['-0.000', '', 0],
    ['1.10', '11', 1],
    ['0.0012300', '123', -2],
    ['1E2', '1', 3],
    ['+12.5e-3', '125', -1],
    ['100', '1', 3],
  ])('%s has digits %p and exponent %p', (text, digits, exponent) => {
    expect(decimalFormOf(text)).toMatchObject({ digits, exponent });
  });

  it.each(['Infinity', 'NaN', '0x10', '', '.', 'e5', '1e'])('%p is not decimal text', (text) => expect(decimalFormOf(text)).toBeUndefined());

  // Trailing zeros were trimmed by an unanchored /0+$/, tried at every zero of a run: quadratic, minutes for a webhook
  // body of `1.`, 262,000 zeros and `1` (read before its signature is checked).
  it('answers at once for a number text of a megabyte whose zeros do not end it, or do', () => {
    const zeros = '0'.repeat(1_000_000);
    expect(decimalFormOf(`1.${zeros}1`)).toEqual({ negative: false, digits: `1${zeros}1`, exponent: 1 });
    expect(decimalFormOf(`1${zeros}`)).toEqual({ negative: false, digits: '1', exponent: 1_000_001 });
    expect(isExactNumberText(`1.${zeros}1`, 1)).toBe(false);
  });

  it.each([
    ['123', 3],
    ['0.00120', 2],
    ['-1.5e-7', 2],
    ['12345678901234567890123456789012345678', 38],
  ])('%s has %i significant digits', (text, count) => expect(significantDigits(text)).toBe(count));
});

describe('isExactNumberText', () => {
  it.each(['0.1', '1.10', '100', '1e2', '-0', '0.30000000000000004', '9007199254740991', '1e-300', '-12.5', '1.5E+3'])('%s is kept as written', (text) =>
    expect(isExactNumberText(text, Number(text))).toBe(true),
  );

  it.each([
    '0.1000000000000000000000000000000000000001',
    '9007199254740993',
    '1.00000000000000001',
    '123456789012345678901234567890',
    '3.141592653589793238462643383279',
    '1e400',
  ])('%s is not', (text) => {
    expect(isExactNumberText(text, Number(text))).toBe(false);
    expect(numberTextProblem(text, Number(text))).toMatch(/exactly as sent|out of range/);
  });

  it('never repeats the number, nor the double it would become (a card number sent as a number is most of its digits)', () => {
    const card = '6011000990139424123';
    const problem = numberTextProblem(card, Number(card)) ?? '';
    expect(problem).toMatch(/exactly as sent/);
    for (let start = 0; start + 6 <= card.length; start += 1) expect(problem).not.toContain(card.slice(start, start + 6));
    expect(problem).not.toContain(String(Number(card)).slice(0, 6));
  });
});

describe('storableNumber and decimal (zod and the compiled plan agree)', () => {
  const cases: [string, unknown, boolean][] = [
    ['0', 0, true],
    ['1e-130', 1e-130, true],
    ['1e-300', 1e-300, false],
    ['-1e-200', -1e-200, false],
    ['5e-324', 5e-324, false],
    ['9007199254740991', 9007199254740991, true],
    ['1e20 (the document client refuses it)', 1e20, false],
    ['1e126', 1e126, false],
  ];

  it.each(cases)('storableNumber: %s -> %p', (_name, value, ok) => {
    expect(storableNumber().safeParse(value).success).toBe(ok);
    // And as the server runs it: ajv's validator of its JSON Schema (the document's form).
    expect(compileSchema(storableNumber())(value)).toBe(ok);
  });

  it.each([
    ['1e-300', 1e-300, false],
    ['0.01', 0.01, true],
    ['1e13', 1e13, true],
    ['1e14', 1e14, false],
  ] as const)('decimal: %s -> %p', (_name, value, ok) => {
    expect(decimal().safeParse(value).success).toBe(ok);
  });

  it('names the smallest magnitude in its message', () => {
    expect(decimal().safeParse(1e-300).error?.issues.map((issue) => issue.message)).toEqual([
      'must be 0 or at least 1e-130 in magnitude (the smallest number DynamoDB stores)',
    ]);
  });
});
