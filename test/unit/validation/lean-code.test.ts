// Unit test: the generated validators (shared/compiled/requests/, made smaller by infra/build/ajv-code.ts: JSON Schema
// 2020-12 without its dynamic scope, `leanCode`) report exactly what ajv's own `Ajv2020` reports for the same schema
// and options: the same verdict and the same errors, in the same order, for the bodies the suites send (refused and
// accepted) and for hostile bodies made from each schema (every member of the wrong type; every member of the right
// type outside its bounds, with an unknown member beside it).
import { describe, expect, it } from '@jest/globals';
import Ajv2020 from 'ajv/dist/2020';
import { ajvOptions, componentSchemas, schemaId } from '#infra/build/ajv-code';
import { committedDocument, documentOperations, requestSchemas, validatorNames } from '#infra/build/request-validators';
import type { JsonObject, JsonValue } from '#shared/openapi/types';
import * as deliveryReceipts from '#shared/compiled/requests/delivery-receipts';
import * as documentEvents from '#shared/compiled/requests/document-events';
import * as inventory from '#shared/compiled/requests/inventory';
import * as payments from '#shared/compiled/requests/payments';
import * as scheduledTasks from '#shared/compiled/requests/scheduled-tasks';
import * as tenantLocations from '#shared/compiled/requests/tenant-locations';
import { formats } from '#shared/validation/formats';
import type { DocumentValidator } from '#shared/validation/document';
import { acceptedBodies, refusedBodies } from '#test/support/refused-bodies';

const generated: Record<string, unknown> = { ...deliveryReceipts, ...documentEvents, ...inventory, ...payments, ...scheduledTasks, ...tenantLocations };

const document = committedDocument();
const components = componentSchemas((document.components?.schemas ?? {}) as Record<string, JsonObject>);
const byId = new Map(components.map((schema) => [String(schema.$id), schema]));

/** ajv's own 2020-12 validator of a schema, with the generators' options (its dynamic scope and code untouched). */
const reference = new Ajv2020({ ...ajvOptions, code: { optimize: true } });
for (const [name, format] of Object.entries(formats)) reference.addFormat(name, format as Parameters<typeof reference.addFormat>[1]);
for (const schema of components) reference.addSchema(schema);

const resolved = (schema: JsonValue | undefined): JsonObject | undefined => {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  return typeof schema.$ref === 'string' ? resolved(byId.get(schema.$ref)) : schema;
};

/** A value of the wrong type for a schema. */
const wrongType = (schema: JsonObject | undefined): unknown => {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  return type === 'string' ? 12 : type === 'integer' || type === 'number' ? '12' : type === 'boolean' ? 'true' : type === 'array' ? {} : type === 'object' ? [] : { unexpected: true };
};

/** A value of the right type just outside a schema's bounds (or its members', recursively). */
const outOfBounds = (schema: JsonObject | undefined, depth = 0): unknown => {
  if (!schema || depth > 6) return null;
  const branch = resolved((schema.anyOf as JsonValue[] | undefined)?.[0] ?? (schema.oneOf as JsonValue[] | undefined)?.[0]);
  if (branch) return outOfBounds(branch, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') return typeof schema.maxLength === 'number' ? 'x'.repeat(schema.maxLength + 1) : '\u0000 not in any form';
  if (type === 'integer') return typeof schema.maximum === 'number' ? schema.maximum + 1 : 1.5;
  if (type === 'number') return typeof schema.minimum === 'number' ? schema.minimum - 1 : -1e300;
  if (type === 'boolean') return null;
  if (type === 'array') return [outOfBounds(resolved(schema.items), depth + 1), wrongType(resolved(schema.items))];
  const properties = (schema.properties ?? {}) as Record<string, JsonValue>;
  return { ...Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, outOfBounds(resolved(field), depth + 1)])), 'an/unknown~member': 1 };
};

const everyMemberWrong = (schema: JsonObject | undefined): unknown =>
  Object.fromEntries(Object.entries((schema?.properties ?? {}) as Record<string, JsonValue>).map(([name, field]) => [name, wrongType(resolved(field))]));

/** Each object member's schema one level down, for bodies wrapping a record (`{ Object: {...} }`, `{ Value: {...} }`). */
const nested = (schema: JsonObject | undefined): unknown[] =>
  Object.entries((schema?.properties ?? {}) as Record<string, JsonValue>).flatMap(([name, field]) => {
    const inner = resolved(field);
    return inner?.type === 'object' || inner?.properties ? [{ [name]: everyMemberWrong(inner) }, { [name]: outOfBounds(inner) }] : [];
  });

const cases = [...documentOperations(document)].flatMap(([operationId, operation]) =>
  requestSchemas(operation).map(([part, schema]) => {
    const root = resolved(schema);
    const suites = [...refusedBodies(), ...acceptedBodies].filter((body) => body.operationId === operationId && part === 'body').map((body) => body.body);
    const values = [...suites, null, [], 'text', 12, {}, everyMemberWrong(root), outOfBounds(root), ...nested(root)];
    return { name: `${operationId} ${part}`, generatedName: validatorNames(operationId)[part], schema, values };
  }),
);

describe('the generated validators report what ajv itself reports', () => {
  it('covers every validator', () => {
    expect(cases.length).toBeGreaterThan(20);
    for (const { generatedName } of cases) expect([generatedName, typeof generated[generatedName]]).toEqual([generatedName, 'function']);
  });

  it.each(cases.map((entry) => [entry.name, entry] as const))('%s', (_name, { generatedName, schema, values }) => {
    const lean = generated[generatedName] as DocumentValidator;
    const own = reference.compile({ ...schema, $id: `urn:test:${generatedName}` });
    let refused = 0;
    for (const value of values) {
      const verdict = own(value);
      if (!verdict) refused += 1;
      expect({ value, verdict: lean(value), errors: lean.errors ?? null }).toEqual({ value, verdict, errors: own.errors ?? null });
    }
    expect(refused).toBeGreaterThan(0);
  });
});

it('compares against the schemas the generators read', () => {
  expect(byId.has(schemaId('RecordPaymentRequest'))).toBe(true);
});
