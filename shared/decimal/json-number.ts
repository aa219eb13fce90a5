// Core: an exact decimal as a JSON number. A double carries every decimal of up to 15 significant digits exactly;
// past that, JSON.stringify of a number would round it. JSON itself has no such limit, so such a decimal is written
// digit for digit as raw JSON text (`JSON.rawJSON`, ECMAScript's JSON.parse source text access, in the Node.js the
// functions run on; where it is missing the number is the nearest double, as before). The XML writer writes raw JSON
// as its text (shared/http/codecs/xml.ts `rawJsonTextOf`).

import { withoutTrailingZeros } from './digits';

const json = JSON as unknown as { readonly rawJSON?: (text: string) => unknown };

/** The significant digits of a decimal text, trailing zeros aside (`-0.00120` -> 2, `10009999999998.99999` -> 19). */
const significantDigits = (text: string): number =>
  // Trailing zeros, of the fraction or of the integer, only scale the value: a double holds d x 10^k when d does.
  withoutTrailingZeros(text.replace(/^[-+]/, '').replace('.', '').replace(/^0+/, '')).length;

/** A JSON number's text without an exponent (RFC 8259's grammar, less `e`). */
const jsonNumberText = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A decimal of up to 15 significant digits: the double that is exactly it. */
export const maxExactDoubleDigits = 15;

/**
 * `text` (a decimal the exact arithmetic produced: optional sign, digits, optional fraction) as a value
 * JSON.stringify writes exactly: a number when a double holds it, else raw JSON text. Typed as a number: that is what
 * it is in JSON, and what a client reads.
 */
export const jsonNumberOf = (text: string): number => {
  // Raw JSON must be a JSON number's text (JSON.rawJSON throws on `+1`, `01`, `.5`, `1.`), and no exponent is counted.
  if (!jsonNumberText.test(text) || significantDigits(text) <= maxExactDoubleDigits || !json.rawJSON) return Number(text);
  return json.rawJSON(text) as number;
};
