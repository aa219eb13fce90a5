// Data layer: the identity of a value as a reader tells values apart (claims.ts keys unique values by it, searches
// match by it) and what makes a value blank. Kept free of imports: the schemas state the same rule in the document.
/** Characters that show nothing: default-ignorable code points (zero-width space, soft hyphen, Hangul fillers, BOM, ...) and the braille blank. */
const invisibleCharacters = '\\p{Default_Ignorable_Code_Point}\\u2800';
const invisible = new RegExp(`[${invisibleCharacters}]`, 'gu');
/** A value that is not blank holds one character that is neither a space nor invisible: the pattern the document states (`u`). */
export const visibleCharacterPattern = `[^\\s${invisibleCharacters}]`;
/** Dashes of every kind (non-breaking hyphen, en dash, minus sign, ...): one dash. */
const dashes = /[\p{Dash_Punctuation}\u2212]/gu;

/**
 * Case-insensitive identity of a value, as a reader tells values apart: Unicode-normalised (NFKC), invisible
 * characters removed, every dash a `-`, trimmed, case-folded (upper then lower case, so `Straße` is `STRASSE`).
 * Before, invisible characters and other dashes made a second "Main Store", or a `DR-000099` the server would give
 * too (found by a hostile client). Empty: the value is blank. A change of this rule changes the keys of stored claims.
 */
export const normaliseClaimValue = (value: string): string =>
  value.normalize('NFKC').replace(invisible, '').replace(dashes, '-').trim().toUpperCase().toLowerCase().normalize('NFKC');

/**
 * The text a Search's SearchString is matched in (`contains`): each part normalised as the search string is
 * (`normaliseClaimValue`: shared/search/search.ts `searchTextOf`), one part per line, so the two compare alike (a
 * stored text only NFKC and lower-cased missed "Hauptstraße" searched as typed, and any name with a dash or an
 * invisible character).
 */
export const searchableText = (parts: readonly (string | undefined)[]): string =>
  parts
    .filter((part): part is string => typeof part === 'string' && part.length > 0)
    .map(normaliseClaimValue)
    .join('\n');

/** A value that shows nothing (only spaces and invisible characters): blank, as a required name must not be. */
export const isBlankValue = (value: string | undefined): boolean => value === undefined || normaliseClaimValue(value) === '';
