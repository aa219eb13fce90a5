// Unit test: the OpenAPI document is as strict as the server. Every request body the unit and e2e suites see the
// server refuse with 400 (test/support/refused-bodies.ts) must be refused by the document's JSON request schema of its
// operation (JSON Schema 2020-12, ajv), unless the refusing rule is one JSON Schema cannot state (serverOnlyRules,
// each with its reason). Conversely, every body the server accepts (the suites' fixtures and the document's own
// examples) must be valid against the document. Beyond the corpus, a differential check mutates every accepted body
// field by field (hostile values, missing members, unknown members) and asks the zod schemas the document is emitted
// from (which tests and tools still run) and the document the same question: the document never accepts what zod
// refuses, nor refuses what zod accepts but by a domain rule. The server runs the document's validators
// (shared/compiled/requests/), so this holds the document to the schemas it is written from.
import { describe, expect, it } from '@jest/globals';
import type { ValidateFunction } from 'ajv/dist/2020';
import { operations } from '#shared/operations/index';
import { dailyTaskRequest } from '#shared/openapi/examples/scheduled-tasks';
import { committedDocument, documentAjv } from '#test/support/openapi-ajv';
import { acceptedBodies, refusedAddressTypes, refusedBodies, refusedPathIds, serverOnlyRules } from '#test/support/refused-bodies';

interface Document {
  readonly paths: Record<string, Record<string, { operationId?: string; requestBody?: { content: Record<string, { schema: object }> } }>>;
  readonly components: { readonly schemas: Record<string, { examples?: unknown[] }> };
}

const document = committedDocument as unknown as Document;

const { ajv, compile } = documentAjv(document);

const requestSchemas = new Map<string, { schema: object; validate: ValidateFunction }>();
for (const item of Object.values(document.paths)) {
  for (const operation of Object.values(item)) {
    const schema = operation.requestBody?.content['application/json']?.schema;
    if (operation.operationId === undefined || schema === undefined) continue;
    requestSchemas.set(operation.operationId, { schema, validate: compile(schema) });
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
    expect([...requestSchemas.keys()].filter((id) => !covered.has(id))).toEqual([]);
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

// ---------------------------------------------------------------------------------------------------------------
// Parameters: what the URL carries, read as OpenAPI's simple style reads it (an integer is its plain decimal text).

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly schema: object;
}

const parametersNamed = (name: string): [string, Parameter][] =>
  Object.values(document.paths).flatMap((item) =>
    Object.values(item).flatMap((operation) =>
      ((operation as { parameters?: Parameter[] }).parameters ?? [])
        .filter((parameter) => parameter.name === name)
        .map((parameter): [string, Parameter] => [operation.operationId ?? '', parameter]),
    ),
  );

/**
 * The value a parameter's schema sees: for an integer schema, the integer whose plain decimal text (what the simple
 * style writes: no sign but `-`, no leading zero, no exponent) the URL carries, else the decoded text itself.
 */
const parameterValue = (schema: object, raw: string): unknown => {
  const text = decodeURIComponent(raw);
  return (schema as { type?: string }).type === 'integer' && /^(0|-?[1-9][0-9]*)$/.test(text) ? Number(text) : text;
};

describe('the OpenAPI document refuses the parameters the server refuses', () => {
  const pathIds = parametersNamed('id');

  it('finds the operations with an {id}', () => {
    expect(pathIds.length).toBeGreaterThan(5);
  });

  it.each(refusedPathIds.map((raw) => [raw]))('the path id %j, on every operation', (raw) => {
    const accepting = pathIds.filter(([, parameter]) => ajv.validate(parameter.schema, parameterValue(parameter.schema, raw))).map(([id]) => id);
    expect(accepting).toEqual([]);
  });

  it.each(refusedAddressTypes.map((raw) => [raw]))('the addressType %j', (raw) => {
    const [[, parameter] = ['', { schema: {} }]] = parametersNamed('addressType');
    expect(ajv.validate(parameter.schema, raw)).toBe(false);
  });

  it.each(['Billing', 'billing', ' Postal ', '3'])('accepts the addressType %j', (raw) => {
    const [[, parameter] = ['', { schema: {} }]] = parametersNamed('addressType');
    expect(ajv.validate(parameter.schema, raw)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Differential: the server's validator and the document, on mutations of every accepted body.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Values a hostile client puts in a field: wrong types, edges of every bound the schemas use, characters XML refuses. */
const hostileValues: Json[] = [
  '', ' ', 'x'.repeat(201), 'x'.repeat(4_001), 'a\u0001b', 'aud', 'Shipped', '2026-13-01T00:00:00Z', 'not-a-guid',
  -1, 0, 0.5, 1.5, 6, 501, 2 ** 31, -(2 ** 31) - 1, 1e14, -1e14, 2 ** 53,
  true, false, [], [1], ['x'], {}, { Unknown: 1 },
];

/** Every body one change away from `body`: each member replaced by each hostile value, removed, or joined by an unknown one. */
const mutations = (body: Json): { readonly at: string; readonly body: Json }[] => {
  const found: { at: string; body: Json }[] = [];
  const visit = (value: Json, at: string, replace: (next: Json | undefined) => Json) => {
    if (Array.isArray(value)) {
      value.forEach((item, index) =>
        visit(item, `${at}/${index}`, (next) => replace(value.flatMap((other, position) => (position !== index ? [other] : next === undefined ? [] : [next])))),
      );
      return;
    }
    if (value === null || typeof value !== 'object') return;
    found.push({ at: `${at}/Unknown`, body: replace({ ...value, Unknown: 1 }) });
    for (const key of Object.keys(value)) {
      const without = (next: Json | undefined): Json => {
        const copy: { [key: string]: Json } = { ...value };
        if (next === undefined) delete copy[key];
        else copy[key] = next;
        return replace(copy);
      };
      found.push({ at: `${at}/${key} (removed)`, body: without(undefined) });
      for (const hostile of hostileValues) found.push({ at: `${at}/${key} = ${JSON.stringify(hostile).slice(0, 20)}`, body: without(hostile) });
      visit(value[key] as Json, `${at}/${key}`, without);
    }
  };
  visit(body, '', (next) => next ?? null);
  return found;
};

const seeds = (operationId: string): Json[] => {
  const fixtures = acceptedBodies.filter((entry) => entry.operationId === operationId).map((entry) => entry.body as Json);
  const ref = (requestSchemas.get(operationId)?.schema as { $ref?: string } | undefined)?.$ref;
  const examples = ref === undefined ? [] : ((document.components.schemas[ref.split('/').pop() ?? '']?.examples ?? []) as Json[]);
  return [...fixtures, ...examples];
};

describe("the OpenAPI document and the server's validator agree on every mutation of an accepted body", () => {
  const bodied = operations.filter((operation) => operation.requestBody !== undefined);

  it.each(bodied.map((operation) => [operation.operationId, operation] as const))('%s', (operationId, operation) => {
    const schema = operation.requestBody?.schema;
    if (!schema) throw new Error(`${operationId} has no request body schema`);
    const validate = validatorOf(operationId);
    const bodies = seeds(operationId).flatMap((seed) => mutations(seed));
    expect(bodies.length).toBeGreaterThan(0);
    const looser = bodies
      .filter(({ body }) => !schema.safeParse(body).success && validate(body) === true)
      .map(({ at }) => at);
    expect(looser).toEqual([]);
    // And the converse: the document never refuses a body the validator accepts, except by a rule the domain applies
    // beyond the fields' schemas, which a component states in its own `allOf` (shape()'s domainRules; the domain
    // refuses that body too). String patterns sit in a property's allOf, never at a component's root.
    // (The path may start with the document's base URI: `urn:business-platform:openapi#/components/...`.)
    const byDomainRule = (error: { schemaPath: string }) => /^[^#]*#(\/components\/schemas\/[^/]+)?\/allOf\//.test(error.schemaPath);
    const stricter = bodies
      .filter(({ body }) => schema.safeParse(body).success && validate(body) !== true && !(validate.errors ?? []).every(byDomainRule))
      .map(({ at }) => at);
    expect(stricter).toEqual([]);
  });
});

// null means absent in a request (shared/http/codecs/coerce.ts drops a null member before any rule): the document
// says so for every optional member, as the server takes it (the platform's C# client sends null for what it did not
// set). It refused them all: `{"Object":null}` on a refund, `"Address":null` on a location, which the server accepted.
describe('a null member of a request', () => {
  it.each([
    ['paymentPostRefund', { Object: null }],
    ['paymentPostRefund', { Object: { Amount: null, Description: null } }],
    ['tenantLocationSave', { Name: 'Main', Address: null, Description: null }],
    ['tenantLocationSearch', { CustomerID: null, SortField: null }],
    ['scheduledTaskSave', { ...dailyTaskRequest, AdaptorDetails: null, DocumentID: null, IsEnabled: null }],
    ['deliveryReceiptSaveV2', { Value: { SupplierName: null, TenantID: null } }],
  ])('is accepted where the member is optional: %s %j', (operationId, body) => {
    expect(accepts(operationId, body)).toBe(true);
  });

  it.each([
    ['paymentPost', { Object: null }],
    ['tenantLocationSave', { Name: null }],
    ['deliveryReceiptAddInventory', { Value: null }],
  ])('is refused where the member is required (null is its absence): %s %j', (operationId, body) => {
    expect(accepts(operationId, body)).toBe(false);
  });

  it('is never allowed by a response schema: responses hold no null', () => {
    const response = compile({ $ref: '#/components/schemas/Address' });
    expect(response({ City: 'Perth' })).toBe(true);
    expect(response({ City: null })).toBe(false);
    expect(compile({ $ref: '#/components/schemas/AddressInput' })({ City: null })).toBe(true);
  });
});
