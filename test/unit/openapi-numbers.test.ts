// Unit test: the OpenAPI document says what the server enforces of numbers (shared/data/numbers.ts): every `number`
// schema carries its bounds, the gap around zero DynamoDB cannot store (a `not`), and the rule in its description.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { walkSchema } from '#shared/openapi/component-schemas';
import { isJsonObject, type JsonObject } from '#shared/openapi/types';

const document = JSON.parse(readFileSync(new URL('../../shared/openapi/openapi.json', import.meta.url), 'utf8')) as JsonObject;
const components = (document.components as JsonObject).schemas as JsonObject;

const numberSchemas = (): [string, JsonObject][] => {
  const found: [string, JsonObject][] = [];
  for (const [name, schema] of Object.entries(components)) {
    if (!isJsonObject(schema)) continue;
    walkSchema(schema, (node) => {
      if (node.type === 'number') found.push([name, node]);
    });
  }
  return found;
};

describe('numbers in the OpenAPI document', () => {
  it('every number schema states the storable-number rule', () => {
    const numbers = numberSchemas();
    expect(numbers.length).toBeGreaterThan(50);
    for (const [name, node] of numbers) {
      expect([name, node.not]).toEqual([name, { exclusiveMinimum: -1e-130, exclusiveMaximum: 1e-130, not: { const: 0 } }]);
      expect([name, node.description]).toEqual([name, expect.stringContaining('A number DynamoDB stores exactly as sent')]);
      // A bound on each side, inclusive or exclusive (an amount that must be greater than 0 has exclusiveMinimum).
      const lower = typeof node.minimum === 'number' || typeof node.exclusiveMinimum === 'number';
      const upper = typeof node.maximum === 'number' || typeof node.exclusiveMaximum === 'number';
      expect([name, lower && upper]).toEqual([name, true]);
    }
  });
});
