// Unit test: the OpenAPI document says what the server enforces of numbers (shared/data/numbers.ts): every `number`
// schema carries its bounds, the gap around zero DynamoDB cannot store (a condition: if the magnitude is below 1e-130,
// then 0), and the rule in its description. The condition replaced a nested `not` that Swagger UI showed poorly; the
// two forms accept and refuse exactly the same values.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import Ajv2020 from 'ajv/dist/2020';
import { dynamoNumber, isStorableNumber } from '#shared/data/numbers';
import { storableNumberCondition, walkSchema } from '#shared/openapi/component-schemas';
import { isJsonObject, type JsonObject } from '#shared/openapi/types';

const document = JSON.parse(readFileSync(new URL('../../shared/openapi/openapi.json', import.meta.url), 'utf8')) as JsonObject;
const components = (document.components as JsonObject).schemas as JsonObject;

const numberSchemas = (): [string, JsonObject][] => {
  const found: [string, JsonObject][] = [];
  for (const [name, schema] of Object.entries(components)) {
    if (!isJsonObject(schema)) continue;
    const branches = new Set<JsonObject>();
    walkSchema(schema, (node) => {
      // The condition's own branches are numbers too: not fields.
      if (node.type !== 'number' || branches.has(node)) return;
      found.push([name, node]);
      for (const branch of [node.if, node.then]) if (isJsonObject(branch)) branches.add(branch);
    });
  }
  return found;
};

/** The form every number schema had before: the gap around zero as a nested `not`. */
const formerGap = { not: { exclusiveMinimum: -1e-130, exclusiveMaximum: 1e-130, not: { const: 0 } } };

/** The double next to `value` towards +Infinity (`up`) or -Infinity. */
const nextDouble = (value: number, up: boolean): number => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const positive = value > 0 || (value === 0 && !Object.is(value, -0));
  if (value === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  view.setBigUint64(0, positive === up ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
};

const min = dynamoNumber.minMagnitude;
const numbers = [
  0,
  -0,
  min,
  -min,
  nextDouble(min, true),
  nextDouble(min, false),
  nextDouble(-min, true),
  nextDouble(-min, false),
  1e-131,
  -1e-131,
  9.999999999999999e-131,
  1.0000000000000001e-130,
  5e-324,
  -5e-324,
  Number.MIN_VALUE,
  2.2250738585072014e-308,
  1e-200,
  -1e-300,
  1e-129,
  0.1,
  -0.5,
  1,
  -1,
  90,
  -90,
  123456.789,
  dynamoNumber.maxMagnitude,
  -dynamoNumber.maxMagnitude,
  1e300,
  -Number.MAX_VALUE,
];

describe('numbers in the OpenAPI document', () => {
  it('every number schema states the storable-number rule', () => {
    const found = numberSchemas();
    expect(found.length).toBeGreaterThan(50);
    for (const [name, node] of found) {
      expect([name, node.if, node.then, node.not]).toEqual([name, storableNumberCondition.if, storableNumberCondition.then, undefined]);
      expect([name, node.description]).toEqual([name, expect.stringContaining('A number DynamoDB stores exactly as sent')]);
      // A bound on each side, inclusive or exclusive (an amount that must be greater than 0 has exclusiveMinimum).
      const lower = typeof node.minimum === 'number' || typeof node.exclusiveMinimum === 'number';
      const upper = typeof node.maximum === 'number' || typeof node.exclusiveMaximum === 'number';
      expect([name, lower && upper]).toEqual([name, true]);
    }
  });

  it('the condition accepts and refuses exactly the numbers the former nested `not` did, at every edge, alone and with bounds', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const bounds = [{}, { minimum: -90, maximum: 90 }, { exclusiveMinimum: 0, maximum: 1e13 }, { minimum: -dynamoNumber.maxMagnitude, maximum: dynamoNumber.maxMagnitude }];
    for (const bound of bounds) {
      const former = ajv.compile({ type: 'number', ...bound, ...formerGap });
      const condition = ajv.compile({ type: 'number', ...bound, ...storableNumberCondition });
      const differ = numbers.filter((value) => former(value) !== condition(value));
      expect([bound, differ]).toEqual([bound, []]);
    }
    // Values that are no numbers: both refuse them (the field's type).
    const former = ajv.compile({ type: 'number', ...formerGap });
    const condition = ajv.compile({ type: 'number', ...storableNumberCondition });
    for (const value of ['0', '1e-131', null, true, [], {}]) expect([value, former(value), condition(value)]).toEqual([value, false, false]);
  });

  it('accepts exactly the magnitudes the server stores (0, or from 1e-130), which is what the edges are', () => {
    const condition = new Ajv2020({ strict: false }).compile({ type: 'number', ...storableNumberCondition });
    const inRange = numbers.filter((value) => Math.abs(value) <= dynamoNumber.maxMagnitude);
    expect(inRange.filter((value) => condition(value) !== isStorableNumber(value))).toEqual([]);
    expect([condition(min), condition(nextDouble(min, false)), condition(-min), condition(nextDouble(-min, true)), condition(-0)]).toEqual([true, false, true, false, true]);
  });
});
