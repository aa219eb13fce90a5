// Unit: the body bound the web ACL and the local gateway's front door enforce (shared/http/body-limit.ts): the
// regular expression WAF runs on Content-Length matches exactly the numbers above the limit, and the gateway's own
// reading of the header agrees with it.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { contentLengthExceeds, decimalAbovePattern } from '#shared/http/body-limit';
import { largestRequestBodyBytes } from '#shared/operations/index';
import { limits } from '#shared/schemas/limits';

const limitsToTry = [0, 1, 9, 10, 99, 100, 909, 1000, 199_999, 262_144, 999_999, limits.requestBodyBytes, largestRequestBodyBytes, 9_999_999];

describe('decimalAbovePattern', () => {
  it.each(limitsToTry)('for %d, matches exactly the decimal texts above it (leading zeros too), around the limit and at random', (limit) => {
    const pattern = new RegExp(decimalAbovePattern(limit));
    const near = [0, 1, 2, 9, 10, 11, 99, 100, 101, 999, 1000].flatMap((delta) => [limit - delta, limit + delta]).filter((value) => value >= 0);
    for (const value of [...near, 10 ** String(limit).length, 10 ** String(limit).length - 1]) {
      for (const text of [String(value), `0${value}`, `000${value}`]) expect([text, pattern.test(text)]).toEqual([text, value > limit]);
    }
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.nat({ max: 3 }), (value, zeros) => {
        const text = `${'0'.repeat(zeros)}${value}`;
        expect([text, pattern.test(text)]).toEqual([text, value > BigInt(limit)]);
      }),
    );
  });

  it('matches no text that is not a decimal number', () => {
    const pattern = new RegExp(decimalAbovePattern(1000));
    for (const text of ['', ' 2000', '2000 ', '+2000', '-2000', '2e9', '0x7fffffff', '2,000', '２０００', '2000\n']) expect([text, pattern.test(text)]).toEqual([text, false]);
  });

  it('refuses a limit that is not a whole number', () => {
    for (const limit of [-1, 1.5, Number.NaN, 2 ** 60]) expect(() => decimalAbovePattern(limit)).toThrow(RangeError);
  });
});

describe('contentLengthExceeds', () => {
  it('reads the decimal digits HTTP writes, and agrees with the pattern', () => {
    const limit = largestRequestBodyBytes;
    const pattern = new RegExp(decimalAbovePattern(limit));
    for (const text of ['0', String(limit), String(limit + 1), `00${limit + 1}`, '99999999999999999999999', '1e9', '', ' 5', '-5']) {
      expect([text, contentLengthExceeds(text, limit)]).toEqual([text, pattern.test(text)]);
    }
    expect(contentLengthExceeds(undefined, limit)).toBe(false);
  });
});
