// Validation: refinements with a portable form. A zod `.refine(fn)` is a closure JSON Schema cannot state; a
// refinement built here also says what it checks as data (a pattern), so the OpenAPI document states it
// (shared/openapi/component-schemas.ts) and the validators ajv compiles from the document run it. Kept free of zod.

/** Where the document's conversion finds the pattern a refinement tests. */
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
 * when `pattern` matches it (the same check as `matches`, since RegExp#test reads a number as that text).
 */
export const numberTextMatches = (pattern: RegExp): NumberTextRefinement => matches(pattern) as unknown as NumberTextRefinement;
