// Data layer: what a DynamoDB number is, once. DynamoDB stores a number as decimal text of at most 38 significant
// digits whose magnitude is zero or from 1E-130 to 9.9999999999999999999999999999999999999E+125; anything else is a
// ValidationException (a 500 if it ever reached the table). The document client sends a JS number as `String(value)`,
// the shortest decimal text that reads back as the same double, and refuses (throws) any number beyond
// Number.MAX_SAFE_INTEGER in magnitude, so that is the upper bound here. Every numeric schema
// (shared/schemas/common.ts), the body codecs (a number whose text a double cannot hold exactly is refused) and the
// item-size guard read this module.
// Zod-free, and it imports only a few lines of digit handling, so every bundle can load it.
import { withoutTrailingZeros } from '#shared/decimal/digits';

export const dynamoNumber = {
  /** Significant digits DynamoDB keeps; a double's shortest text has at most 17, so any exact double fits. */
  maxSignificantDigits: 38,
  /** The smallest non-zero magnitude DynamoDB stores (1E-130). */
  minMagnitude: 1e-130,
  /**
   * The largest magnitude the data kit stores: the document client refuses a number beyond MAX_SAFE_INTEGER (it
   * cannot tell it was meant exactly); DynamoDB itself would take up to 9.99...9E+125 (38 nines). No field needs more.
   */
  maxMagnitude: Number.MAX_SAFE_INTEGER,
} as const;

/** The rule as people read it (schema descriptions, the OpenAPI document, errors). */
export const storableNumberRule =
  'a number DynamoDB stores exactly as sent: 0, or a magnitude from 1e-130 to 9007199254740991, written with ' +
  'digits a 64-bit float holds exactly (any number of up to 15 significant digits is; DynamoDB itself keeps 38)';

/** True when DynamoDB stores `value` (as the document client sends it) without refusing or changing it. */
export const isStorableNumber = (value: number): boolean => {
  if (!Number.isFinite(value)) return false;
  const magnitude = Math.abs(value);
  return magnitude === 0 || (magnitude >= dynamoNumber.minMagnitude && magnitude <= dynamoNumber.maxMagnitude);
};

/**
 * The text of a double (`String(value)`, what the document client sends) passes this pattern when its magnitude is
 * not below 1E-130: the exponent of a tiny double's text is -131 or less (`9.99e-131`, `5e-324`). The upper bound is
 * a plain maximum. Used as a portable refinement, so the functions' compiled validators carry it.
 */
export const notBelowSmallestMagnitude = /^(?!.*e-(?:13[1-9]|1[4-9]\d|[2-9]\d\d))/;

interface DecimalForm {
  readonly negative: boolean;
  /** Significant digits, no leading or trailing zeros ('' for zero). */
  readonly digits: string;
  /** The value is 0.<digits> x 10^exponent. */
  readonly exponent: number;
}

const decimalText = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** The decimal value of a number's text, normalised; undefined when it is not decimal text (Infinity, NaN, hex). */
export const decimalFormOf = (text: string): DecimalForm | undefined => {
  const match = decimalText.exec(text.trim());
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  const all = whole + fraction;
  const leading = all.length - all.replace(/^0+/, '').length;
  const digits = withoutTrailingZeros(all.slice(leading));
  if (digits === '') return { negative: false, digits: '', exponent: 0 };
  return { negative: sign === '-', digits, exponent: Number(exponentText) + whole.length - leading };
};

/** Significant digits of a number's text (leading and trailing zeros trimmed, as DynamoDB counts them). */
export const significantDigits = (text: string): number => decimalFormOf(text)?.digits.length ?? 0;

/**
 * True when the number written as `text` is exactly the double `value`'s decimal text: what DynamoDB would store is
 * what was sent. `0.1` and `1.10` pass; `0.1000000000000000000000000000000000000001` (read as 0.1) and
 * `9007199254740993` (read as ...992) do not.
 */
export const isExactNumberText = (text: string, value: number): boolean => {
  if (!Number.isFinite(value)) return false;
  const sent = decimalFormOf(text);
  const stored = decimalFormOf(String(value));
  return sent !== undefined && stored !== undefined && sent.digits === stored.digits && sent.exponent === stored.exponent && sent.negative === stored.negative;
};

/** Why the number written as `text` is refused, or undefined when DynamoDB stores it as sent. */
export const numberTextProblem = (text: string, value: number): string | undefined => {
  if (!isExactNumberText(text, value)) {
    return Number.isFinite(value)
      ? // Never the value, nor what it would become: a refusal's words never repeat what was sent (a card number sent
        // as a number is most of its digits; shared/validation/document.ts).
        `cannot be kept exactly as sent (a double would hold another number): ${storableNumberRule}`
      : `is out of range: ${storableNumberRule}`;
  }
  return undefined;
};
