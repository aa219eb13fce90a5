// Domain: exact decimal arithmetic for quantities and prices. A value is a bigint count of 10^-scale units, so
// sums, products and comparisons are exact; binary floats are only the transport of the JSON number. Parsing is
// money's (shared/money/amount.ts: one exact decimal parser for amounts and quantities); what is here is the
// arithmetic at a fixed scale that quantities need and currency amounts do not.
import { parseDecimal, type ExactDecimal } from '../money/amount';

/** Decimal places a quantity or a unit price may carry (Business Central's default precision for both). */
export const quantityScale = 5;
export const priceScale = 5;

const pow10 = (exponent: number): bigint => 10n ** BigInt(exponent);

/**
 * The value of `value` in units of 10^-scale, or undefined when it has more than `scale` decimal places or is not
 * finite. A JSON number reaches us as a double; `String` gives its shortest round-trip form, which is the decimal
 * the client wrote whenever that decimal has at most 15 significant digits (all the schema's bounds allow). The
 * text is read by money's exact parser (shared/money/amount.ts), the one decimal parser of the service.
 */
export const toUnits = (value: number, scale: number): bigint | undefined => {
  if (!Number.isFinite(value)) return undefined;
  let decimal: ExactDecimal;
  try {
    decimal = parseDecimal(String(value));
  } catch {
    return undefined;
  }
  if (decimal.scale > scale) return undefined;
  const units = decimal.coefficient * pow10(scale - decimal.scale);
  return decimal.negative ? -units : units;
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
