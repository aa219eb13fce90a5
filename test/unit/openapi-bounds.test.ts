// Unit tests of the bounds the OpenAPI generator derives: the longest string an anchored pattern admits
// (shared/openapi/pattern-length.ts) and the integer format that fits a schema's bounds.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { integerFormat } from '#shared/openapi/component-schemas';
import { maxLengthOfPattern } from '#shared/openapi/pattern-length';

describe('maxLengthOfPattern', () => {
  it.each([
    ['^[0-9]{12,19}$', 19],
    ['^(0[1-9]|1[0-2])[0-9]{2}$', 4],
    ['^[0-9a-f]{64}$', 64],
    ['^[1-9][0-9]{0,9}$', 10],
    ['^ab?c$', 3],
    ['^(?:abc|de)x$', 4],
    ['^(?=x)[a-z]{3}$', 3],
    ['^\\d\\.\\d$', 3],
    ['^[\\]a-]{2}$', 2],
    ['^\\u0041\\u{1F600}$', 2],
  ])('%s admits at most %i characters', (pattern, expected) => {
    expect(maxLengthOfPattern(pattern)).toBe(expected);
  });

  it("reads zod's GUID pattern as 36 characters", () => {
    const schema = z.toJSONSchema(z.guid()) as { pattern: string };
    expect(maxLengthOfPattern(schema.pattern)).toBe(36);
  });

  it.each([
    ['not anchored at the start', '[0-9]{3}$'],
    ['not anchored at the end', '^[0-9]{3}'],
    ['an escaped dollar at the end', '^a\\$'],
    ['a star', '^a*$'],
    ['a plus inside a group', '^(ab+)c$'],
    ['an open range', '^a{2,}$'],
    ['a backreference', '^(a)\\1$'],
    ['a named group', '^(?<x>a)$'],
    ['an unclosed group', '^(ab$'],
    ['an unclosed class', '^[ab$'],
    ['an unclosed code point escape', '^\\u{12$'],
    ['a stray closing parenthesis', '^a)b$'],
    ["zod's date-time (any number of fraction digits)", (z.toJSONSchema(z.iso.datetime({ offset: true })) as { pattern: string }).pattern],
  ])('gives no bound for %s', (_case, pattern) => {
    expect(maxLengthOfPattern(pattern)).toBeUndefined();
  });
});

describe('integerFormat', () => {
  it.each([
    [-2_147_483_648, 2_147_483_647, 'int32'],
    [0, 500, 'int32'],
    [0, 2_147_483_648, 'int64'],
    [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'int64'],
  ])('[%d, %d] is %s', (minimum, maximum, expected) => {
    expect(integerFormat(minimum, maximum)).toBe(expected);
  });

  it.each([
    ['no minimum', undefined, 10],
    ['no maximum', 0, undefined],
    ['a bound beyond safe integers', 0, 2 ** 64],
  ])('gives no format with %s', (_case, minimum, maximum) => {
    expect(integerFormat(minimum, maximum)).toBeUndefined();
  });
});
