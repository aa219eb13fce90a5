// Unit test: the OpenAPI document is as strict as the server. Every request body the unit and e2e suites see the
// server refuse with 400 (test/support/refused-bodies.ts) must be refused by the document's JSON request schema of its
// operation (JSON Schema 2020-12, ajv), unless the refusing rule is one JSON Schema cannot state (serverOnlyRules,
// each with its reason). Conversely, every body the server accepts (the suites' fixtures and the document's own
// examples) must be valid against the document.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { acceptedBodies, refusedBodies, serverOnlyRules } from '../support/refused-bodies';

interface Document {
  readonly paths: Record<string, Record<string, { operationId?: string; requestBody?: { content: Record<string, { schema: object }> } }>>;
  readonly components: { readonly schemas: Record<string, { examples?: unknown[] }> };
}

const document = JSON.parse(readFileSync(new URL('../../shared/openapi/openapi.json', import.meta.url), 'utf8')) as Document;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const int = (bits: 32 | 64) => ({
  type: 'number' as const,
  validate: (value: number) => Number.isInteger(value) && (bits === 64 ? Number.isSafeInteger(value) : value >= -(2 ** 31) && value < 2 ** 31),
});
ajv.addFormat('int32', int(32));
ajv.addFormat('int64', int(64));
// The components, under the base their `#/components/schemas/...` references resolve against.
const base = 'urn:business-platform:openapi';
ajv.addSchema({ $id: base, components: document.components });

const requestSchemas = new Map<string, { schema: object; validate: ValidateFunction }>();
for (const item of Object.values(document.paths)) {
  for (const operation of Object.values(item)) {
    const schema = operation.requestBody?.content['application/json']?.schema;
    if (operation.operationId === undefined || schema === undefined) continue;
    const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`)) as object;
    requestSchemas.set(operation.operationId, { schema, validate: ajv.compile(resolved) });
  }
}

const validatorOf = (operationId: string): ValidateFunction => {
  const found = requestSchemas.get(operationId);
  if (!found) throw new Error(`${operationId} has no application/json request body in the document`);
  return found.validate;
};

const accepts = (operationId: string, body: unknown) => validatorOf(operationId)(body) === true;

const refused = refusedBodies().filter((entry) => entry.status === 400);

describe('the OpenAPI document refuses what the server refuses with 400', () => {
  it('has a corpus with cases for every operation that takes a body', () => {
    const covered = new Set(refused.map((entry) => entry.operationId));
    expect([...requestSchemas.keys()].filter((id) => id !== 'providerWebhook' && !covered.has(id))).toEqual([]);
  });

  it.each(refused.filter((entry) => entry.rule === undefined).map((entry) => [entry.operationId, entry.name, entry.body] as const))(
    '%s: %s',
    (operationId, _name, body) => {
      expect(accepts(operationId, body)).toBe(false);
    },
  );

  it.each(refused.filter((entry) => entry.rule !== undefined).map((entry) => [entry.operationId, entry.name, entry.rule ?? '', entry.body] as const))(
    '%s: %s is refused by a rule JSON Schema cannot state (%s), so the document accepts it',
    (operationId, _name, rule, body) => {
      expect(serverOnlyRules.get(rule)).toEqual(expect.any(String));
      // An exemption the document no longer needs must go: it would hide a future loosening.
      expect(accepts(operationId, body)).toBe(true);
    },
  );

  it('lists only rules some case uses', () => {
    const used = new Set(refused.map((entry) => entry.rule));
    expect([...serverOnlyRules.keys()].filter((rule) => !used.has(rule))).toEqual([]);
  });
});

describe('the OpenAPI document accepts what the server accepts', () => {
  it.each(acceptedBodies.map((entry) => [entry.operationId, entry.name, entry.body] as const))('%s: %s', (operationId, _name, body) => {
    const validate = validatorOf(operationId);
    expect({ valid: validate(body), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  });

  it("accepts the examples of every operation's request schema", () => {
    const invalid: string[] = [];
    for (const [operationId, { schema, validate }] of requestSchemas) {
      const ref = (schema as { $ref?: string }).$ref;
      const examples = ref === undefined ? [] : (document.components.schemas[ref.split('/').pop() ?? '']?.examples ?? []);
      examples.forEach((example, index) => {
        if (!validate(example)) invalid.push(`${operationId} example ${index}: ${ajv.errorsText(validate.errors)}`);
      });
    }
    expect(invalid).toEqual([]);
  });
});
