// Unit tests of the item size the data kit computes (shared/data/item-size.ts), against the rules and examples of
// AWS's "DynamoDB item sizes and formats" (CapacityUnitCalculations.html), and of the guard built on it.
import { describe, expect, it } from '@jest/globals';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { assertItemFits, itemBytes, maxItemBytes, numberBytes, valueBytes } from '#shared/data/item-size';
import { ItemTooLarge } from '#shared/errors';

describe('itemBytes (AWS rules)', () => {
  it('a string is its name and value in UTF-8 bytes', () => {
    expect(itemBytes({ Name: 'abc' })).toBe(4 + 3);
    expect(itemBytes({ 'é': 'ü€' })).toBe(2 + 2 + 3);
    expect(itemBytes({ s: '😀' })).toBe(1 + 4);
  });

  it('a number is 1 byte per pair of digits aligned on the decimal point, plus 1, plus 1 when negative (measured on DynamoDB Local)', () => {
    const measured: [string, number][] = [
      ['0', 1], ['1', 2], ['12', 2], ['123', 3], ['1234', 3], ['12345', 4], ['123456789', 6], ['100', 2], ['1000000', 2],
      ['-1', 3], ['-12', 3], ['-123', 4], ['-1234', 4], ['0.5', 2], ['1.25', 3], ['-1.25', 4], ['1.5', 3], ['-2.5', 4],
      ['12.5', 3], ['10.5', 3], ['9.5', 3], ['99.5', 3], ['0.05', 2], ['0.005', 2], ['0.123', 3], ['101', 3], ['1010', 3],
      ['1e-130', 2], ['3e-130', 2], ['1.5e-130', 3], ['2.5e-130', 3], ['1.5e-7', 2], ['1.234e-7', 3],
      ['123456789.123456', 9], ['9007199254740991', 9], ['-9007000000000000', 4],
    ];
    expect(measured.map(([text]) => [text, numberBytes(text)])).toEqual(measured);
    expect(itemBytes({ Count: 27 })).toBe(5 + 2);
    expect(valueBytes(new NumberValue('123456789012345678901234567890'))).toBe(16);
  });

  it('a boolean or null is its name plus 1 byte', () => {
    expect(itemBytes({ IsActive: true, Gone: null })).toBe(8 + 1 + 4 + 1);
  });

  it('binary is its raw bytes', () => {
    expect(itemBytes({ b: new Uint8Array(10) })).toBe(11);
  });

  it('a list or map is 3 bytes plus its elements, 1 byte each more; an empty one 3 bytes', () => {
    expect(itemBytes({ L: [] })).toBe(1 + 3);
    expect(itemBytes({ M: {} })).toBe(1 + 3);
    // [1, "ab"]: 3 + (2 + 1) + (2 + 1)
    expect(itemBytes({ L: [1, 'ab'] })).toBe(1 + 9);
    // { a: true, bb: "x" }: 3 + (1 + 1 + 1) + (2 + 1 + 1)
    expect(itemBytes({ M: { a: true, bb: 'x' } })).toBe(1 + 10);
    // nested: { L: [{ k: 'v' }] }: list 3 + (map 3 + (1 + 1 + 1) + 1)
    expect(itemBytes({ L: [{ k: 'v' }] })).toBe(1 + 3 + 3 + 3 + 1);
  });

  it('skips undefined members, as the document client removes them', () => {
    expect(itemBytes({ a: 'x', b: undefined, M: { c: undefined } })).toBe(2 + 1 + 3);
  });

  it('counts a string set by its members', () => {
    expect(itemBytes({ SS: new Set(['ab', 'c']) })).toBe(2 + 3);
  });
});

describe('assertItemFits', () => {
  const itemOf = (bytes: number) => ({ pk: 'T#1', sk: 'X', big: 'x'.repeat(bytes - (2 + 3) - (2 + 1) - 3) });

  it('takes an item of exactly 400 KB and refuses one byte more, naming the size, the limit and the largest field', () => {
    expect(itemBytes(itemOf(maxItemBytes))).toBe(409_600);
    expect(() => assertItemFits(itemOf(maxItemBytes))).not.toThrow();
    let thrown: unknown;
    try {
      assertItemFits(itemOf(maxItemBytes + 1));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ItemTooLarge);
    const error = thrown as ItemTooLarge;
    expect(error.status).toBe(413);
    expect(error.detail).toBe('The record would take 409601 bytes in storage; at most 409600 bytes can be stored in one record (the largest field is big).');
    expect(error.extensions).toEqual({ ItemSize: 409_601, ItemSizeLimit: 409_600, LargestField: 'big' });
  });

  it('keeps the reserve free', () => {
    expect(() => assertItemFits(itemOf(maxItemBytes - 100), { reserveBytes: 100 })).not.toThrow();
    expect(() => assertItemFits(itemOf(maxItemBytes - 99), { reserveBytes: 100 })).toThrow(ItemTooLarge);
  });

  it('refuses a partition key over 2,048 bytes and a sort key over 1,024 (indexes too)', () => {
    expect(() => assertItemFits({ pk: 'x'.repeat(2048), sk: 'y'.repeat(1024), gsi1pk: 'z'.repeat(2048), gsi1sk: 'w'.repeat(1024) })).not.toThrow();
    expect(() => assertItemFits({ pk: 'x'.repeat(2049), sk: 'y' })).toThrow(/pk would take 2049 bytes/);
    expect(() => assertItemFits({ pk: 'x', sk: 'y'.repeat(1025) })).toThrow(ItemTooLarge);
    expect(() => assertItemFits({ pk: 'x', sk: 'y', gsi3sk: 'é'.repeat(513) })).toThrow(ItemTooLarge);
  });
});
