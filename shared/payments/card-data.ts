// Domain: card data rules (PCI DSS 4.0 3.3.1, 3.4.1, 3.5.1). Payments are recorded after authorisation, so the
// service never needs, and never keeps, what would let anyone charge the card again: no CVV (refused), no whole card
// number (masked before anything is stored), no payment service token (dropped). Pure: no I/O.
import type { FieldError } from '#shared/errors';
import { forEachText } from '#shared/validation/text-members';
import type { CreditCard } from '#shared/schemas/payment';

/** What a stored payment keeps of a card. */
export interface StoredCard {
  readonly card: CreditCard | undefined;
  readonly lastFour: string | undefined;
}

/** Luhn (ISO/IEC 7812-1) check digit: every payment card number carries one, so a number without it is a typo. */
export const passesLuhn = (digits: string): boolean => {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
};

/** `4111111111111111` -> `411111******1111`: at most the first six and the last four digits, the rest masked. */
export const maskCardNumber = (digits: string): string =>
  `${digits.slice(0, 6)}${'*'.repeat(Math.max(0, digits.length - 10))}${digits.slice(-4)}`;

const cardNumberPattern = /^[0-9]{12,19}$/;
const lastFourPattern = /^[0-9]{4}$/;

/**
 * The card-data problems of a payment, as field errors under `pointerBase` (`/Object`). A CVV is refused wherever
 * it appears, even empty; a card number must be 12 to 19 digits with a valid Luhn check digit, and agree with
 * `CreditCardLastFour` when both are sent. The details never repeat the value.
 */
export const cardDataErrors = (card: CreditCard | undefined, lastFour: string | undefined, pointerBase: string): FieldError[] => {
  const errors: FieldError[] = [];
  if (card?.CardVerificationNumber !== undefined) {
    errors.push({
      pointer: `${pointerBase}/CreditCard/CardVerificationNumber`,
      detail: 'must not be sent: a card verification number may not be kept after authorisation (PCI DSS 3.3.1)',
    });
  }
  const number = card?.CardNumber;
  if (number !== undefined) {
    if (!cardNumberPattern.test(number)) {
      errors.push({ pointer: `${pointerBase}/CreditCard/CardNumber`, detail: 'must be 12 to 19 digits' });
    } else if (!passesLuhn(number)) {
      errors.push({ pointer: `${pointerBase}/CreditCard/CardNumber`, detail: 'is not a card number (its check digit is wrong)' });
    }
  }
  if (lastFour !== undefined && !lastFourPattern.test(lastFour)) {
    errors.push({ pointer: `${pointerBase}/CreditCardLastFour`, detail: 'must be the last 4 digits of the card number' });
  } else if (lastFour !== undefined && number !== undefined && !number.endsWith(lastFour)) {
    errors.push({ pointer: `${pointerBase}/CreditCardLastFour`, detail: 'does not match the card number' });
  }
  return errors;
};

/**
 * The card as it may be stored: the number masked, the CVV gone, `CreditCardLastFour` from the number (or the
 * client's own when it sent no number). Call only on a card `cardDataErrors` accepted.
 */
export const cardForStorage = (card: CreditCard | undefined, clientLastFour: string | undefined): StoredCard => {
  if (!card) return { card: undefined, lastFour: clientLastFour };
  const { CardVerificationNumber: _cvv, CardNumber, ...rest } = card;
  const stored: CreditCard = { ...rest, ...(CardNumber ? { CardNumber: maskCardNumber(CardNumber) } : {}) };
  return {
    card: Object.keys(stored).length > 0 ? stored : undefined,
    lastFour: CardNumber ? CardNumber.slice(-4) : clientLastFour,
  };
};

/** The card as an answer shows it: the stored card without the token (a credential at the payment service). */
export const cardForAnswer = (card: CreditCard | undefined): CreditCard | undefined => {
  if (!card) return undefined;
  const { CardToken: _token, CardVerificationNumber: _cvv, ...shown } = card;
  return Object.keys(shown).length > 0 ? shown : undefined;
};

/**
 * A card number written in text: 13 to 19 digits whose first digit is a payment card's (2 to 6: Mastercard, Amex,
 * Visa, Discover, UnionPay, JCB) and whose Luhn check digit is right, in groups of digits joined by separators, read
 * after NFKC (fullwidth digits are digits), with invisible format characters (zero-width spaces, soft hyphens)
 * removed and the decimal digits of every script read as digits (Arabic-Indic, Devanagari, ...). A separator is a
 * run of up to four characters that are neither letters nor digits: spaces and dashes of any kind, `.` and `_` join
 * any groups; other punctuation (`/`, `,`, `:`, `+`) only groups written as a card's are (fours, the last of one to
 * four digits, or Amex's 4-6-5), so a date, a time or an amount beside another number is not read as one. Every run
 * of consecutive groups is tried, not only the longest, so the number is found with an expiry or a count after it.
 * Before, only `[\s._-]{0,3}` joined digits and only the longest run was checked: `4111 1111 1111 1111 12/30`,
 * `4111/1111/1111/1111` or Arabic-Indic digits were stored and answered whole (found by hostile clients).
 */
const maxSeparatorLength = 4;
const plainSeparator = /^[\p{Z}\s\p{Pd}._]+$/u;
const decimalDigit = /\p{Nd}/u;

/** The text's digits as ASCII: a decimal digit of any script is its value, its place from its block's zero. */
const asciiDigits = (text: string): string => {
  let out = '';
  for (const character of text) {
    const point = character.codePointAt(0) as number;
    if ((point >= 0x30 && point <= 0x39) || !decimalDigit.test(character)) {
      out += character;
      continue;
    }
    // Unicode gives each script's digits as runs of ten from zero: the value is the place in the run.
    let zero = point;
    while (decimalDigit.test(String.fromCodePoint(zero - 1))) zero -= 1;
    out += String((point - zero) % 10);
  }
  return out;
};

interface DigitGroup {
  readonly digits: string;
  /** The separator before it (empty for a chain's first group). */
  readonly before: string;
}

/** The chains of digit groups of the text: groups joined by short separators; a letter or a long gap ends a chain. */
const digitChains = (text: string): DigitGroup[][] => {
  const chains: DigitGroup[][] = [];
  let chain: DigitGroup[] = [];
  let separator = '';
  for (const [, digits, gap] of text.matchAll(/([0-9]+)|([^0-9\p{L}]+)|\p{L}+/gu)) {
    if (digits !== undefined) {
      chain.push({ digits, before: chain.length > 0 ? separator : '' });
      separator = '';
    } else if (gap !== undefined && gap.length <= maxSeparatorLength && chain.length > 0) {
      separator = gap;
    } else {
      if (chain.length > 0) chains.push(chain);
      chain = [];
      separator = '';
    }
  }
  if (chain.length > 0) chains.push(chain);
  return chains;
};

/** Groups as a card prints them: fours with a last group of one to four digits, or 4-6-5 (Amex). */
const cardGrouping = (groups: readonly DigitGroup[]): boolean => {
  const sizes = groups.map((group) => group.digits.length);
  if (sizes.length === 3 && sizes[0] === 4 && sizes[1] === 6 && sizes[2] === 5) return true;
  const last = sizes.at(-1) as number;
  return sizes.slice(0, -1).every((size) => size === 4) && last >= 1 && last <= 4;
};

const holdsCardNumber = (raw: string): boolean => {
  const text = asciiDigits(raw.normalize('NFKC').replace(/\p{Cf}/gu, ''));
  for (const chain of digitChains(text)) {
    for (let first = 0; first < chain.length; first += 1) {
      const lead = (chain[first] as DigitGroup).digits[0] as string;
      if (lead < '2' || lead > '6') continue;
      let digits = '';
      let plain = true;
      for (let last = first; last < chain.length && digits.length < 19; last += 1) {
        const group = chain[last] as DigitGroup;
        if (last > first && !plainSeparator.test(group.before)) plain = false;
        digits += group.digits;
        if (digits.length < 13 || digits.length > 19) continue;
        if ((plain || cardGrouping(chain.slice(first, last + 1))) && passesLuhn(digits)) return true;
      }
    }
  }
  return false;
};

/**
 * Every text member of a payment's body, CreditCard.CardNumber aside (masked before anything is stored), that holds a
 * card number: it would be stored and answered whole (PCI DSS 3.4.1), in a log line (`PaymentLogs[].Message`), a
 * description or a reference. The detail never repeats the value.
 */
export const cardNumbersInText = (value: unknown, pointer: string, errors: FieldError[] = []): FieldError[] => {
  forEachText(value, pointer, (text, at) => {
    if (at !== `${pointer}/CreditCard/CardNumber` && holdsCardNumber(text)) {
      errors.push({ pointer: at, detail: 'must not hold a card number (PCI DSS 3.4.1): send the card in CreditCard, whose number is masked' });
    }
  });
  return errors;
};
