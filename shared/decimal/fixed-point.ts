// Core: the one exact decimal module of the service. Amounts, quantities, prices and stock are exact decimals; a
// binary double is only how a JSON number travels. Two forms, both exact:
//   - an `ExactDecimal` (`coefficient x 10^-scale`, sign apart, no trailing fractional zeros) is what any decimal
//     text reads as, whatever its scale;
//   - units at a fixed scale (a bigint count of 10^-scale) are what rules add, subtract and compare: a quantity at 5
//     places, an amount in a currency's minor units (shared/money is the currency layer on top).
// Zod-free, importing only its digit handling (digits.ts): every layer may use it.
import { withoutTrailingZeros } from './digits';

export type DecimalProblem = 'not-a-number' | 'too-many-decimals' | 'too-large';

/** Why a text or number is not an exact decimal the caller can take; callers turn it into a 400 with a pointer. */
export class InvalidDecimal extends Error {
  constructor(
    readonly problem: DecimalProblem,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'InvalidDecimal';
  }
}

/** An exact decimal: `coefficient x 10^-scale`, with no trailing zeros in the coefficient's fraction. */
export interface ExactDecimal {
  readonly negative: boolean;
  readonly coefficient: bigint;
  readonly scale: number;
}

/**
 * The largest exponent decimal text may carry (`1e400`): beyond every magnitude DynamoDB (1E-130..1E+126) or a double
 * (5e-324..1.8e308) can hold, and small enough that a hostile `1e999999999` never builds a huge bigint.
 */
export const maxExponent = 400;

const pow10 = (exponent: number): bigint => 10n ** BigInt(exponent);

// Plain decimal text with an optional exponent: JSON's number grammar less the leading-zero rule (DynamoDB and forms
// send `007.10`), as `String(number)` writes it (`1e-7`, `1.5e+21`) and as DynamoDB may store it.
const decimalPattern = /^(-)?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** Parses decimal text (`-12.30`, `1e-7`, `4.5E+3`) exactly. `-0` is zero, which is never negative. */
export const parseDecimal = (text: string): ExactDecimal => {
  const match = decimalPattern.exec(text);
  if (!match) throw new InvalidDecimal('not-a-number', 'must be a decimal number');
  const [, minus, whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > maxExponent) throw new InvalidDecimal('too-large', 'is out of range');
  let digits = `${whole}${fraction}`.replace(/^0+(?=[0-9])/, '');
  let scale = fraction.length - exponent;
  // Drop trailing zeros of the fraction: 0.30 has one decimal, not two.
  while (scale > 0 && digits.length > 1 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale -= 1;
  }
  const coefficient = BigInt(digits);
  const negative = Boolean(minus) && coefficient !== 0n;
  if (scale < 0) return { negative, coefficient: coefficient * pow10(-scale), scale: 0 };
  return { negative, coefficient, scale: coefficient === 0n ? 0 : scale };
};

// What formatUnits writes: no exponent, no leading zero before another digit, no trailing fractional zero, no `-0`.
const canonicalPattern = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?$/;

/** True when `text` is the canonical decimal text of its value (the only text `formatUnits` writes for it). */
export const isCanonical = (text: string): boolean => canonicalPattern.test(text) && text !== '-0';

/** Parses canonical decimal text only (`12.3`, `-0.05`); `1e3`, `012`, `1.50`, `-0` and `+1` are refused. */
export const parseCanonical = (text: string): ExactDecimal => {
  if (!isCanonical(text)) throw new InvalidDecimal('not-a-number', 'must be canonical decimal text (no exponent, no leading or trailing zeros)');
  return parseDecimal(text);
};

/** The signed value of a decimal in units of 10^-scale, or undefined when it has more than `scale` decimal places. */
export const unitsAt = (decimal: ExactDecimal, scale: number): bigint | undefined => {
  if (decimal.scale > scale) return undefined;
  const units = decimal.coefficient * pow10(scale - decimal.scale);
  return decimal.negative ? -units : units;
};

/** Decimal text as units of 10^-scale; more than `scale` decimal places is a 'too-many-decimals' InvalidDecimal. */
export const textToUnits = (text: string, scale: number): bigint => {
  const units = unitsAt(parseDecimal(text), scale);
  if (units === undefined) throw new InvalidDecimal('too-many-decimals', `must have at most ${scale} decimal places`);
  return units;
};

/**
 * The value of a JSON number in units of 10^-scale, or undefined when it has more than `scale` decimal places or is
 * not finite. A number is read through its shortest round-trip text (`String(0.3)` is `0.3`), which is the decimal the
 * client wrote whenever that decimal has at most 15 significant digits; it is never multiplied as a double.
 */
export const numberToUnits = (value: number, scale: number): bigint | undefined => {
  if (!Number.isFinite(value)) return undefined;
  let decimal: ExactDecimal;
  try {
    decimal = parseDecimal(String(value));
  } catch {
    return undefined;
  }
  return unitsAt(decimal, scale);
};

/** Units at a scale as text with exactly `scale` decimal places: 1230n at 2 -> `12.30`, -5n at 2 -> `-0.05`. */
export const formatFixed = (units: bigint, scale: number): string => {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
};


/** The canonical decimal text of units at a scale: no exponent, no trailing zeros, never `-0`. */
export const formatUnits = (units: bigint, scale: number): string => {
  const fixed = formatFixed(units, scale);
  if (scale === 0) return fixed;
  const trimmed = withoutTrailingZeros(fixed);
  return trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
};

/** The canonical text of an exact decimal. */
export const formatDecimal = (decimal: ExactDecimal): string => formatUnits(unitsAt(decimal, decimal.scale) as bigint, decimal.scale);

/**
 * The number a JSON answer carries for units at a scale: the nearest double, which prints as the same decimal
 * whenever it has at most 15 significant digits.
 */
export const unitsToNumber = (units: bigint, scale: number): number => Number(formatUnits(units, scale));

/** Re-expresses units at a larger scale (exact). */
export const rescale = (units: bigint, from: number, to: number): bigint => {
  if (to < from) throw new RangeError(`rescale only refines a scale (${from} -> ${to} would round)`);
  return units * pow10(to - from);
};

/** Half of one unit of `decimals` places, in units of 10^-scale (scale > decimals): the rounding tolerance. */
export const halfUnitAt = (scale: number, decimals: number): bigint => 5n * pow10(scale - decimals - 1);

const aligned = (left: ExactDecimal, right: ExactDecimal): [bigint, bigint, number] => {
  const scale = Math.max(left.scale, right.scale);
  return [unitsAt(left, scale) as bigint, unitsAt(right, scale) as bigint, scale];
};

const fromUnits = (units: bigint, scale: number): ExactDecimal => parseDecimal(formatUnits(units, scale));

/** -1, 0 or 1 as `left` is less than, equal to or greater than `right`, exactly. */
export const compareDecimals = (left: ExactDecimal, right: ExactDecimal): -1 | 0 | 1 => {
  const [a, b] = aligned(left, right);
  return a < b ? -1 : a > b ? 1 : 0;
};

/** The exact sum of two decimals. */
export const addDecimals = (left: ExactDecimal, right: ExactDecimal): ExactDecimal => {
  const [a, b, scale] = aligned(left, right);
  return fromUnits(a + b, scale);
};

/** The exact difference of two decimals. */
export const subtractDecimals = (left: ExactDecimal, right: ExactDecimal): ExactDecimal => {
  const [a, b, scale] = aligned(left, right);
  return fromUnits(a - b, scale);
};

/** True when two decimal texts denote the same number (`1.50` and `15e-1`); false when either is not decimal text. */
export const sameDecimal = (left: string, right: string): boolean => {
  try {
    return compareDecimals(parseDecimal(left), parseDecimal(right)) === 0;
  } catch {
    return false;
  }
};
