// Unit tests of the scan that refuses JSON numbers a double does not hold as written, or DynamoDB cannot store
// (shared/http/codecs/json-numbers.ts), and of the same rule in XML and form coercion (codecs/coerce.ts).
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { coerceToSchema } from '#shared/http/codecs/coerce';
import { assertJsonNumbersStorable, jsonNumberProblems } from '#shared/http/codecs/json-numbers';
import { maxReportedErrors, ValidationFailed } from '#shared/errors';

const pointers = (text: string) => jsonNumberProblems(text).map((error) => ('pointer' in error ? error.pointer : ''));

describe('jsonNumberProblems', () => {
  it('passes numbers kept as written, wherever they are', () => {
    expect(pointers('{"a":1,"b":[0.1,1.10,-0,1e2,{"c":0.30000000000000004}],"d":"1e-300","e":true,"f":null}')).toEqual([]);
  });

  it.each([
    ['{"Object":{"ExchangeRate":1e-300}}', ['/Object/ExchangeRate']],
    ['{"Object":{"RefBusTrans":[{"TotalInc":1},{"TotalInc":1e-200}]}}', ['/Object/RefBusTrans/1/TotalInc']],
    ['{"a":0.1000000000000000000000000000000000000001}', ['/a']],
    ['{"a":9007199254740993}', ['/a']],
    ['{"a":1e400}', ['/a']],
    ['{"a":[1,2,12345678901234567890123]}', ['/a/2']],
    ['{"data":{"object":{"a/b":{"~x":5e-324}}}}', ['/data/object/a~1b/~0x']],
    ['{"k\\"q":1e-131, "n": {"m": [ [ 1 , 1e127 ] ]}}', ['/k"q', '/n/m/0/1']],
    ['1e-300', ['']],
  ])('%s is refused at %p', (text, expected) => {
    expect(pointers(text)).toEqual(expected);
  });

  it(`stops at the first ${maxReportedErrors} (a 1 MiB body holds some 170,000 numbers; a refusal reports no more)`, () => {
    const text = `{"a":[${Array.from({ length: 170_000 }, () => '1e999').join(',')}]}`;
    expect(pointers(text)).toStrictEqual(Array.from({ length: maxReportedErrors }, (_, index) => `/a/${index}`));
  });

  it('keys that look like numbers or hold commas do not confuse it', () => {
    expect(pointers('{"1e-300":1,"a,b":[1e-300],"c":{"d:e":2}}')).toEqual(['/a,b/0']);
  });

  // A refusal's words never repeat the value, nor what it would have become: a card number sent as a number is most
  // of its digits (it said "stored as 6011000990139424000" before a hostile-client review).
  it('throws ValidationFailed naming each, with neither the value nor what it would have become', () => {
    expect(() => assertJsonNumbersStorable('{"a":0.1000000000000000000000000000000000000001}')).toThrow(ValidationFailed);
    expect(() => assertJsonNumbersStorable('{"a":6011000990139424123}')).toThrow(ValidationFailed);
    try {
      assertJsonNumbersStorable('{"a":6011000990139424123}');
    } catch (error) {
      const [first] = (error as ValidationFailed).errors ?? [];
      expect(first).toMatchObject({ pointer: '/a', detail: expect.stringContaining('cannot be kept exactly as sent') });
      expect(first?.detail).not.toMatch(/601100|139424/);
    }
  });
});

describe('XML and form numbers (coercion)', () => {
  const schema = z.object({ a: z.number().optional(), list: z.array(z.number()).optional() });

  it('turns text kept as written into numbers', () => {
    expect(coerceToSchema({ a: ' 1.50 ', list: ['1e-300', '2'] }, schema, 'text')).toEqual({ a: 1.5, list: [1e-300, 2] });
  });

  it.each([
    [{ a: '0.1000000000000000000000000000000000000001' }, '/a'],
    [{ list: ['1', '9007199254740993'] }, '/list/1'],
    [{ a: '1e400' }, '/a'],
  ])('refuses %p at %s', (body, pointer) => {
    try {
      coerceToSchema(body, schema, 'text');
      throw new Error('not refused');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailed);
      expect((error as ValidationFailed).errors?.[0]).toMatchObject({ pointer });
    }
  });
});
