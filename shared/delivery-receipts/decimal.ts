// Domain: exact decimal arithmetic for quantities and prices. A value is a bigint count of 10^-scale units, so
// sums, products and comparisons are exact; binary floats are only the transport of the JSON number.

/** Decimal places a quantity or a unit price may carry (Business Central's default precision for both). */
export const quantityScale = 5;
export const priceScale = 5;

const decimalPattern = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

const pow10 = (exponent: number): bigint => 10n ** BigInt(exponent);

/**
 * The value of `value` in units of 10^-scale, or undefined when it has more than `scale` decimal places or is not
 * finite. A JSON number reaches us as a double; `String` gives its shortest round-trip form, which is the decimal
 * the client wrote whenever that decimal has at most 15 significant digits (all the schema's bounds allow).
 */
export const toUnits = (value: number, scale: number): bigint | undefined => {
  if (!Number.isFinite(value)) return undefined;
  const match = decimalPattern.exec(String(value));
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = BigInt(whole + fraction);
  const shift = Number(exponent) - fraction.length + scale;
  let units: bigint;
  if (shift >= 0) {
    units = digits * pow10(shift);
  } else {
    const divisor = pow10(-shift);
    if (digits % divisor !== 0n) return undefined;
    units = digits / divisor;
  }
  return sign === '-' ? -units : units;
};

/** The canonical decimal text of units at a scale: no exponent, no trailing zeros, never `-0`. */
export const formatUnits = (units: bigint, scale: number): string => {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : whole;
  return negative && units !== 0n ? `-${text}` : text;
};

/**
 * The number a JSON answer carries for units at a scale: the nearest double, which prints as the same decimal
 * whenever it has at most 15 significant digits (every two-decimal value of the schema's 1e13 bound).
 */
export const unitsToNumber = (units: bigint, scale: number): number => Number(formatUnits(units, scale));

/** Re-expresses units at a larger scale (exact). */
export const rescale = (units: bigint, from: number, to: number): bigint => units * pow10(to - from);

export const halfUnitAt = (scale: number, decimals: number): bigint => 5n * pow10(scale - decimals - 1);
