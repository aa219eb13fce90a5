// Money: exact amounts. An amount travels as a JSON number (a binary double) but is computed in integer minor units
// (cents), converted through its decimal text, never by multiplying a double: 0.1 + 0.2 is 0.30000000000000004 in
// doubles and exactly 30 cents here.
// The arithmetic is the one exact decimal module's (shared/decimal); what is here is the currency layer: minor units
// per currency, bounds and display.
import { formatFixed, InvalidDecimal, parseDecimal as parseExact, unitsAt, type DecimalProblem, type ExactDecimal } from '#shared/decimal/index';
import { minorUnitsOf, type MinorUnits } from './currencies';

export type { ExactDecimal } from '#shared/decimal/index';

/**
 * Largest magnitude of an amount in minor units: 15 significant digits. Every decimal of at most 15 significant
 * digits survives the trip through a double (JSON, XML and forms all arrive as one) and back to the same shortest
 * text, so parsing that text is exact; and every sum of two such amounts is still a safe integer. In AUD that is
 * 9,999,999,999,999.99; in KWD 999,999,999,999.999.
 */
export const maxMinorUnits = 999_999_999_999_999;

export type AmountProblem = DecimalProblem | 'unknown-currency';

/** Why an amount cannot be money in its currency; the domain turns it into a 400 with the field's pointer. */
export class InvalidAmount extends Error {
  constructor(
    readonly problem: AmountProblem,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'InvalidAmount';
  }
}

/** Runs the decimal module, reporting its refusals as amounts' (same problem, same detail). */
const asAmount = <T>(read: () => T): T => {
  try {
    return read();
  } catch (error) {
    if (error instanceof InvalidDecimal) throw new InvalidAmount(error.problem, error.detail);
    throw error;
  }
};

/** Parses decimal text (`-12.30`, `1e-7`, `4.5E+3`) exactly: the decimal module's parser, refusing as an amount. */
export const parseDecimal = (text: string): ExactDecimal => asAmount(() => parseExact(text));

const requireMinorUnits = (currency: string): MinorUnits => {
  const units = minorUnitsOf(currency);
  if (units === undefined) throw new InvalidAmount('unknown-currency', 'is not an ISO 4217 currency code');
  return units;
};

/**
 * An amount in the currency's minor units (AUD 12.30 -> 1230, JPY 500 -> 500, KWD 1.005 -> 1005). Refuses more
 * decimals than the currency has (never rounds) and magnitudes beyond `maxMinorUnits`. A number is read through its
 * shortest decimal text (`String(0.3)` is `0.3`), which is the text the client sent for any amount within bounds.
 */
export const toMinorUnits = (amount: number | string, currency: string): number => {
  if (typeof amount === 'number' && !Number.isFinite(amount)) throw new InvalidAmount('not-a-number', 'must be a finite number');
  const units = requireMinorUnits(currency);
  const decimal = parseDecimal(typeof amount === 'number' ? String(amount) : amount.trim());
  const minor = unitsAt(decimal, units);
  if (minor === undefined) {
    throw new InvalidAmount(
      'too-many-decimals',
      units === 0 ? `must be a whole number in ${currency}` : `must have at most ${units} decimals in ${currency}`,
    );
  }
  if (minor > BigInt(maxMinorUnits) || minor < -BigInt(maxMinorUnits)) {
    throw new InvalidAmount('too-large', `must be at most ${decimalText(maxMinorUnits, currency)} in ${currency}`);
  }
  return Number(minor);
};

/** The exact decimal text of an amount in minor units: 1230 AUD -> `12.30`, -5 AUD -> `-0.05`, 500 JPY -> `500`. */
export const decimalText = (minor: number, currency: string): string => {
  if (!Number.isSafeInteger(minor)) throw new InvalidAmount('not-a-number', 'minor units must be a safe integer');
  return formatFixed(BigInt(minor), requireMinorUnits(currency));
};

/**
 * The JSON number of an amount in minor units. Exact: the nearest double to a decimal of at most 15 significant
 * digits prints back as that decimal, so `fromMinorUnits(30, 'AUD')` is the number written `0.3`.
 */
export const fromMinorUnits = (minor: number, currency: string): number => Number(decimalText(minor, currency));

/**
 * How Australian English (CLDR's en-AU, as ICU gives it to `Intl.NumberFormat('en-AU', { style: 'currency' })`) writes
 * a currency before its digits: its ISO code and a space, except these four. The unit tests compare formatAmount with
 * Intl for every currency of the table, so a CLDR update that changes one fails there, naming it.
 */
const displayPrefixes: ReadonlyMap<string, string> = new Map([
  ['AUD', '$'],
  ['SCR', 'Rs '],
  ['XCG', 'Cg. '],
  ['XPF', 'CFP '],
]);

/**
 * The display text of an amount (the `*String` fields), as en-AU writes it: the sign, the currency's prefix, the
 * digits in groups of three separated by commas, the currency's own number of decimals, plain spaces. Written out
 * rather than asked of Intl: the first `Intl.NumberFormat` of a process loads ICU's locale data, 12-24 ms of a payment
 * function's cold start (test/bench/README.md, issue 23), for a format this simple.
 * AUD 1100 -> `$1,100.00`; AUD -250.5 -> `-$250.50`; JPY 1500 -> `JPY 1,500`.
 */
export const formatAmount = (minor: number, currency: string): string => {
  const text = decimalText(minor, currency);
  const negative = text.startsWith('-');
  const [whole = '', fraction] = (negative ? text.slice(1) : text).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${negative ? '-' : ''}${displayPrefixes.get(currency) ?? `${currency} `}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
};
