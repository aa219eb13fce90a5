// Unit tests of shared/decimal/json-number.ts: a decimal of up to 15 significant digits is a plain number (a double
// holds it exactly); past that it is raw JSON text where the runtime has JSON.rawJSON (the functions' Node 24), which
// JSON.stringify and the XML writer write digit for digit. Jest's Node may lack it: the raw branch runs over a
// stand-in with the same contract (the real one: test/e2e/inventory/stock-on-hand.test.ts).
import { afterEach, describe, expect, it } from '@jest/globals';
import { jsonNumberOf } from '#shared/decimal/index';
import { rawJsonTextOf, serializeXml } from '#shared/http/codecs/xml';

type RawJson = { rawJSON?: unknown; isRawJSON?: unknown };
const jsonApi = JSON as unknown as RawJson;
const original = { rawJSON: jsonApi.rawJSON, isRawJSON: jsonApi.isRawJSON };
const raws = new WeakSet<object>();
const standIn = () => {
  jsonApi.rawJSON = (text: string) => {
    const raw = Object.freeze({ rawJSON: text });
    raws.add(raw);
    return raw;
  };
  jsonApi.isRawJSON = (value: unknown) => typeof value === 'object' && value !== null && raws.has(value);
};
afterEach(() => {
  Object.assign(jsonApi, original);
});

describe('jsonNumberOf', () => {
  it('is a plain number up to 15 significant digits, trailing zeros aside', () => {
    standIn();
    for (const text of ['0', '-0.5', '9999999999.99999', '0.00001', '123456789012345', '1000000000000000000000', '-12.30000']) {
      expect(jsonNumberOf(text)).toBe(Number(text));
    }
  });

  it('is raw JSON text past 15 significant digits, written exactly in JSON and in XML', () => {
    standIn();
    const value = jsonNumberOf('10009999999998.99999');
    expect(rawJsonTextOf(value)).toBe('10009999999998.99999');
    expect(rawJsonTextOf(jsonNumberOf('1234567890123456'))).toBe('1234567890123456');
    // Text that is no JSON number (or has an exponent) is never made raw: it is the nearest double.
    for (const text of ['+10009999999998.99999', '010009999999998.99999', '1.0009999999999899999e13']) expect(jsonNumberOf(text)).toBe(Number(text));
    expect(serializeXml({ name: 'R' }, { TotalSOH: value })).toBe('<?xml version="1.0" encoding="utf-8"?><R><TotalSOH>10009999999998.99999</TotalSOH></R>');
  });

  it('is the nearest double where the runtime has no JSON.rawJSON', () => {
    delete jsonApi.rawJSON;
    delete jsonApi.isRawJSON;
    expect(jsonNumberOf('10009999999998.99999')).toBe(10009999999998.99999);
    expect(rawJsonTextOf(10009999999998.99999)).toBeUndefined();
  });
});
