// Validation: refinements with a portable form. A zod `.refine(fn)` is a closure that no generated module can carry;
// a refinement built here also says what it checks as data, so compile.ts can write it into a schema plan.
// Kept free of zod, so the functions' bundles can import it.

/** Where compile.ts finds the pattern a refinement tests. */
export const portablePattern = Symbol.for('business-platform.portable-pattern');

export type PatternRefinement = ((value: string) => boolean) & { readonly [portablePattern]: RegExp };

/** A refinement that passes when `pattern` matches the whole value (give it `^...$`): `.refine(matches(re), ...)`. */
export const matches = (pattern: RegExp): PatternRefinement =>
  Object.assign(
    (value: string) => {
      pattern.lastIndex = 0;
      return pattern.test(value);
    },
    { [portablePattern]: pattern },
  );

export type NumberTextRefinement = ((value: number) => boolean) & { readonly [portablePattern]: RegExp };

/**
 * A refinement of a number on its decimal text, `String(value)` (the text the DynamoDB document client sends): passes
 * when `pattern` matches it. The same plan check as `matches`, since RegExp#test reads a number as that text.
 */
export const numberTextMatches = (pattern: RegExp): NumberTextRefinement => matches(pattern) as unknown as NumberTextRefinement;
