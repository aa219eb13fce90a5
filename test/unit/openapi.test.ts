// Unit tests of the OpenAPI document: valid OpenAPI 3.1 (checked by @readme/openapi-parser), one operation per
// manifest entry, every $ref resolvable, the spec's field names, secrets write-only, and the committed
// openapi.json up to date. Synthetic operations cover what the manifest does not (yet): recursion, io splits.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { compileErrors, validate } from '@readme/openapi-parser';
import { z } from 'zod';
import { operations, type Operation } from '#shared/operations/index';
import * as searchMembers from '#shared/schemas/search-members';
import {
  buildOpenApiDocument,
  buildOpenApiDocumentFrom,
  openApiJsonUrl,
  serializeOpenApiDocument,
  type OpenApiDocument,
} from '#shared/openapi/document';
import { isNullAlternative } from '#shared/openapi/component-schemas';
import { isJsonObject, type JsonObject, type JsonValue } from '#shared/openapi/types';

const document = buildOpenApiDocument();

/** The document as plain JSON, the way a client reads openapi.json. */
const asJson = (value: OpenApiDocument): JsonObject => {
  const json: unknown = JSON.parse(JSON.stringify(value));
  if (!isJsonObject(json)) throw new Error('not an object');
  return json;
};

/** A request's optional member as its own schema: the document writes it `{ anyOf: [it, { type: 'null' }] }`. */
const ownSchema = (node: JsonValue | undefined): JsonValue | undefined =>
  isJsonObject(node) && isNullAlternative(node) ? (node.anyOf as JsonValue[]).find((member) => !(isJsonObject(member) && member.type === 'null')) : node;

/** The node at a path; a request's optional member is read as its own schema (`ownSchema`), unless the path asks for its anyOf. */
const at = (value: JsonValue | undefined, ...path: string[]): JsonValue | undefined =>
  path.reduce<JsonValue | undefined>((node, key) => {
    const own = key === 'anyOf' ? node : ownSchema(node);
    return isJsonObject(own) ? (key === 'anyOf' ? own[key] : ownSchema(own[key])) : undefined;
  }, value);

const objectAt = (value: JsonValue | undefined, ...path: string[]): JsonObject => {
  const node = at(value, ...path);
  if (!isJsonObject(node)) throw new Error(`No object at ${path.join('/')}`);
  return node;
};

/** Resolves a local `$ref` (JSON Pointer, RFC 6901) against the document. */
const resolve = (root: JsonObject, ref: string): JsonValue | undefined => {
  if (!ref.startsWith('#/')) return undefined;
  const segments = ref
    .slice(2)
    .split('/')
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
  return at(root, ...segments);
};

/** Every `$ref` anywhere in a JSON value. */
const refsIn = (value: JsonValue | undefined): string[] => {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (!isJsonObject(value)) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [child] : refsIn(child),
  );
};

/** A schema and every schema it references, transitively (by component name). */
const reachableComponents = (root: JsonObject, start: JsonValue | undefined): Set<string> => {
  const names = new Set<string>();
  const pending = refsIn(start);
  for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) {
    const name = ref.replace('#/components/schemas/', '');
    if (names.has(name)) continue;
    names.add(name);
    pending.push(...refsIn(resolve(root, ref)));
  }
  return names;
};

/** Every node of a JSON value that is an object, with its path (for messages). */
const objectNodes = (value: JsonValue | undefined, path = ''): { path: string; node: JsonObject }[] => {
  if (Array.isArray(value)) return value.flatMap((child, index) => objectNodes(child, `${path}/${index}`));
  if (!isJsonObject(value)) return [];
  return [
    { path, node: value },
    ...Object.entries(value).flatMap(([key, child]) => objectNodes(child, `${path}/${key}`)),
  ];
};

type ParserInput = Exclude<Parameters<typeof validate>[0], string>;
const isParserInput = (value: unknown): value is ParserInput =>
  isJsonObject(value) && typeof value.openapi === 'string' && isJsonObject(value.info) && isJsonObject(value.paths);

const validationErrors = async (value: OpenApiDocument): Promise<string> => {
  // The parser dereferences what it is given: hand it a copy (a string would be read as a file path).
  const copy = asJson(value);
  if (!isParserInput(copy)) throw new Error('not an OpenAPI document');
  const result = await validate(copy);
  if (!result.valid) return compileErrors(result);
  return result.warnings.map((warning) => warning.message).join('\n');
};

type Method = 'get' | 'put' | 'post' | 'delete';
const documentOperations = (value: OpenApiDocument) =>
  Object.entries(value.paths).flatMap(([path, item]) =>
    (Object.keys(item) as Method[]).map((method) => ({ path, method, operation: item[method] })),
  );

const requestSchemaName = (json: JsonObject, operationId: string): string => {
  const found = documentOperations(document).find(({ operation }) => operation?.operationId === operationId);
  if (!found) throw new Error(`No operation ${operationId}`);
  const ref = at(json, 'paths', found.path, found.method, 'requestBody', 'content', 'application/json', 'schema', '$ref');
  if (typeof ref !== 'string') throw new Error(`${operationId} has no request body reference`);
  return ref.replace('#/components/schemas/', '');
};

const operation = (overrides: Partial<Operation> & Pick<Operation, 'operationId' | 'path'>): Operation => ({
  summary: `Synthetic ${overrides.operationId}`,
  area: 'tenant-locations',
  method: 'POST',
  handler: 'functions/tenant-locations/get.ts',
  auth: 'bearer',
  media: 'standard',
  problems: [400],
  tableAccess: [],
  ...overrides,
});

describe('the OpenAPI document of the service', () => {
  const json = asJson(document);

  it('is valid OpenAPI 3.1 for @readme/openapi-parser, without errors or warnings', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(await validationErrors(document)).toBe('');
  });

  it("documents every success status an operation answers, with the same body, and Location where the answer sends it", () => {
    const successes = documentOperations(document).flatMap(({ path, method, operation: declared }) =>
      Object.keys(declared?.responses ?? {})
        .filter((status) => status.startsWith('2'))
        .map((status) => {
          const response = at(json, 'paths', path, method, 'responses', status) as JsonObject;
          const headers = Object.keys((response.headers as JsonObject | undefined) ?? {});
          return `${declared?.operationId} ${status}${headers.includes('Location') ? ' Location' : ''}`;
        }),
    );
    // The saves answer 200 on update and 201 with a Location on create; receipt save 202 while Completing; a refund
    // 201, or 202 when queued, both naming the refund.
    expect(successes.filter((entry) => /Save|Refund|paymentPost/.test(entry)).sort()).toEqual(
      [
        'deliveryReceiptSaveV2 200',
        'deliveryReceiptSaveV2 201 Location',
        'deliveryReceiptSaveV2 202',
        'paymentPost 201 Location',
        'paymentPostRefund 201 Location',
        'paymentPostRefund 202 Location',
        'scheduledTaskSave 200',
        'scheduledTaskSave 201 Location',
        'tenantLocationSave 200',
        'tenantLocationSave 201 Location',
      ].sort(),
    );
    for (const { path, method, operation: declared } of documentOperations(document)) {
      const statuses = Object.keys(declared?.responses ?? {}).filter((status) => status.startsWith('2'));
      // The same schema for every media type (each status has an example of its own).
      const schemasOf = (status: string) =>
        Object.entries((at(json, 'paths', path, method, 'responses', status, 'content') ?? {}) as Record<string, { schema?: unknown }>).map(
          ([type, media]) => [type, media.schema],
        );
      const bodies = new Set(statuses.map((status) => JSON.stringify(schemasOf(status))));
      expect([declared?.operationId, bodies.size]).toEqual([declared?.operationId, Math.min(1, statuses.length)]);
    }
  });

  it('declares every manifest operation exactly once, at its method and path under a server ending in /api', () => {
    const declared = documentOperations(document).map(({ path, method, operation: declaredOperation }) => ({
      operationId: declaredOperation?.operationId,
      method: method.toUpperCase(),
      path,
    }));
    const manifest = operations.map(({ operationId, method, path }) => ({ operationId, method, path }));

    expect(declared).toHaveLength(manifest.length);
    expect(declared).toEqual(expect.arrayContaining(manifest));
    expect(new Set(declared.map((entry) => entry.operationId)).size).toBe(manifest.length);
    for (const server of document.servers) expect(server.url).toMatch(/\/api$/);
    for (const path of Object.keys(document.paths)) expect(path).not.toMatch(/^\/api\//);
  });

  it('is committed as shared/openapi/openapi.json, up to date', () => {
    let committed: string;
    try {
      committed = readFileSync(openApiJsonUrl, 'utf8');
    } catch {
      throw new Error('shared/openapi/openapi.json is missing: run `npm run openapi` and commit it.');
    }
    if (committed !== serializeOpenApiDocument(buildOpenApiDocument())) {
      throw new Error('shared/openapi/openapi.json is stale: run `npm run openapi` and commit the result.');
    }
  });

  it('is deterministic', () => {
    expect(serializeOpenApiDocument(buildOpenApiDocument())).toBe(serializeOpenApiDocument(document));
  });

  it('resolves every $ref, and every component schema is referenced', () => {
    const refs = refsIn(json);
    expect(refs.filter((ref) => resolve(json, ref) === undefined)).toEqual([]);
    const referenced = new Set(refs.map((ref) => ref.replace('#/components/schemas/', '')));
    expect(Object.keys(document.components.schemas).filter((name) => !referenced.has(name))).toEqual([]);
  });

  it.each([
    ['tenantLocationSave', ['ID', 'TenantLocationID', 'Name', 'Description', 'Address', 'EmailAddress', 'Phone',
      'UtcOffset', 'SelectedForUser', 'IsAddCustomerLocation', 'IsDefault', 'IsCustomerDefault', 'IsActive',
      'CustomerID', 'ParentID', 'ParentName', 'TenantID', 'WebsiteID', 'UserID']],
    ['paymentPostRefund', ['Object', 'IsQueue', 'IsSaveAutoQueue', 'IsRunNow', 'TenantID', 'WebsiteID', 'UserID']],
    ['scheduledTaskSave', ['ID', 'Name', 'NameFriendlyName', 'Status', 'TimeOfDay', 'CompletedDateTime_utc',
      'IsEnabled', 'IsActive', 'IsRecurringSchedule', 'Interval', 'IntervalType', 'RecurrenceType', 'TaskTypeID',
      'DocumentID', 'DatTypeID', 'DatTypeFriendlyName', 'WorkflowID', 'IDs', 'AdaptorDetails']],
    ['deliveryReceiptSaveV2', ['Value', 'TenantID', 'WebsiteID', 'UserID']],
    ['deliveryReceiptAddInventory', ['Value', 'TenantID', 'WebsiteID', 'UserID']],
    // GetByName's SearchFilter lists only the members the lookup applies (the searches take the rest).
    ['tenantLocationGetByName', ['SearchString', 'Search', 'IsExactMatch', 'IgnoreID', 'TenantID']],
    // A search's filter lists only the members it applies (issue 23): no Statuses for locations.
    ['tenantLocationSearch', ['SearchString', 'IsExactMatch', 'LastRowNumber', 'MaxResults', 'CustomerID']],
    ['deliveryReceiptSearchV2', ['Statuses', 'StatusStrings', 'SearchString', 'StartDate', 'LastRowNumber', 'MaxResults', 'TenantID']],
    ['providerWebhook', ['data', 'type', 'userId', 'organisationId', 'signature']],
  ])('names the request fields of %s as the spec does', (operationId, fields) => {
    const properties = objectAt(json, 'components', 'schemas', requestSchemaName(json, operationId), 'properties');
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(fields));
  });

  it.each([
    ['tenantLocationSearch', searchMembers.tenantLocationSearchMembers, ['CustomerID', 'IsActive'], searchMembers.tenantLocationSortFields],
    ['deliveryReceiptSearchV2', searchMembers.receiptSearchMembers, [], searchMembers.receiptSortFields],
  ] as const)('lists in the filter of %s only the members it applies, and its SortField names', (operationId, members, extra, sortFields) => {
    const properties = objectAt(json, 'components', 'schemas', requestSchemaName(json, operationId), 'properties');
    expect(Object.keys(properties).sort()).toEqual([...members, ...searchMembers.commonSearchFields, ...extra].sort());
    const sortField = objectAt(properties, 'SortField') as { pattern?: string; examples?: unknown };
    expect(sortField.examples).toEqual([...sortFields]);
    const pattern = new RegExp(sortField.pattern ?? '', 'u');
    for (const name of sortFields) expect([pattern.test(name), pattern.test(` ${name.toLowerCase()} `)]).toEqual([true, true]);
    expect(['Bogus', '__proto__', 'constructor'].filter((name) => pattern.test(name))).toEqual([]);
  });

  it('gives the spec types their names: TenantLocationInfo has Name and an Address, SaveRequestPaymentT an Object', () => {
    expect(requestSchemaName(json, 'tenantLocationSave')).toBe('TenantLocationInfo');
    // Its request form (each optional member may be null in a request: null means absent).
    expect(at(json, 'components', 'schemas', 'TenantLocationInfo', 'properties', 'Address', '$ref')).toBe(
      '#/components/schemas/AddressInput',
    );
    expect(requestSchemaName(json, 'paymentPostRefund')).toBe('SaveRequestPaymentT');
    // PaymentT is also an answer (paymentPost, paymentGetByID): its request form, with the card data writeOnly, is
    // PaymentTInput.
    expect(at(json, 'components', 'schemas', 'SaveRequestPaymentT', 'properties', 'Object', '$ref')).toBe(
      '#/components/schemas/PaymentTInput',
    );
  });

  it('marks every sensitive field of a request schema writeOnly (accepted, never returned)', () => {
    const requestComponents = new Set(
      documentOperations(document).flatMap(({ path, method }) => [
        ...reachableComponents(json, at(json, 'paths', path, method, 'requestBody')),
      ]),
    );
    const sensitive = [...requestComponents].flatMap((name) =>
      objectNodes(at(json, 'components', 'schemas', name), name).filter(({ node }) => node['x-sensitive'] === true),
    );
    expect(sensitive.length).toBeGreaterThan(0);
    expect(sensitive.filter(({ node }) => node.writeOnly !== true).map(({ path }) => path)).toEqual([]);
    for (const field of ['CardNumber', 'CardVerificationNumber']) {
      expect(at(json, 'components', 'schemas', 'CreditCardInput', 'properties', field, 'writeOnly')).toBe(true);
    }
  });

  it('documents the path id as a required 32-bit integer and the query parameters of the manifest', () => {
    const get = document.paths['/TenantLocation/GetDefaultAddress/{id}']?.get;
    expect(get?.parameters?.map(({ name, in: location, required }) => ({ name, in: location, required }))).toEqual([
      { name: 'id', in: 'path', required: true },
      { name: 'addressType', in: 'query', required: true },
    ]);
    expect(get?.parameters?.[0]?.schema).toMatchObject({ type: 'integer', format: 'int32', maximum: 2147483647 });
  });

  it('offers JSON, XML and forms for standard bodies and JSON alone for the webhook', () => {
    const save = document.paths['/TenantLocation/Save']?.post;
    expect(Object.keys(save?.requestBody?.content ?? {})).toEqual([
      'application/json',
      'text/json',
      'application/xml',
      'text/xml',
      'application/x-www-form-urlencoded',
    ]);
    expect(save?.requestBody?.required).toBe(true);
    expect(Object.keys(objectAt(json, 'paths', '/TenantLocation/Save', 'post', 'responses', '200', 'content'))).toEqual([
      'application/json',
      'text/json',
      'application/xml',
      'text/xml',
    ]);
    const webhook = document.paths['/Platform/DocumentAnalyser/Provider/Webhook']?.post;
    expect(Object.keys(webhook?.requestBody?.content ?? {})).toEqual(['application/json']);
    const webhookAnswer = objectAt(json, 'paths', '/Platform/DocumentAnalyser/Provider/Webhook', 'post', 'responses', '202');
    expect(Object.keys(objectAt(webhookAnswer, 'content'))).toEqual(['application/json']);
    expect(document.paths['/TenantLocation/Search']?.put?.requestBody?.required).toBe(false);
  });

  it('names XML root elements after their type', () => {
    expect(at(json, 'components', 'schemas', 'TenantLocationInfo', 'xml')).toEqual({ name: 'TenantLocationInfo' });
    expect(at(json, 'components', 'schemas', 'TenantLocationList', 'xml')).toEqual({
      name: 'ArrayOfTenantLocation',
      wrapped: true,
    });
    const paymentObject = at(json, 'components', 'schemas', 'SaveRequestPaymentT', 'properties', 'Object');
    expect(paymentObject).toEqual({ $ref: '#/components/schemas/PaymentTInput', xml: { name: 'Object' } });
  });

  it('documents Save as 200 when it updates and 201 with a Location when it creates', () => {
    const responses = objectAt(json, 'paths', '/TenantLocation/Save', 'post', 'responses');
    const stored = { $ref: '#/components/schemas/TenantLocation' };
    expect(at(responses, '200', 'content', 'application/json', 'schema')).toEqual(stored);
    expect(at(responses, '201', 'content', 'application/xml', 'schema')).toEqual(stored);
    expect(at(responses, '201', 'headers', 'Location')).toEqual({ $ref: '#/components/headers/Location' });
  });

  it('secures bearer operations with bearerAuth and leaves the webhook to its signature', () => {
    for (const { operation: declared } of documentOperations(document)) {
      const manifestEntry = operations.find((entry) => entry.operationId === declared?.operationId);
      expect(declared?.security).toEqual(manifestEntry?.auth === 'bearer' ? [{ bearerAuth: [] }] : []);
    }
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    const webhook = document.paths['/Platform/DocumentAnalyser/Provider/Webhook']?.post;
    expect(webhook?.description).toMatch(/t=<unix seconds>,v1=/);
  });

  it('answers every problem status of the manifest and the gateway statuses', () => {
    for (const entry of operations) {
      const declared = documentOperations(document).find(
        ({ operation: candidate }) => candidate?.operationId === entry.operationId,
      )?.operation;
      const statuses = Object.keys(declared?.responses ?? {}).map(Number);
      expect(statuses).toEqual(expect.arrayContaining([...entry.problems, 429, 500, 502, 503, 504]));
      if (entry.auth === 'bearer') expect(statuses).toContain(401);
      // The HTTP stack refuses an unknown query parameter and a header given twice on every operation, one that reads
      // neither parameters nor a body included (GetAll answered 400 to `?x=1` and its document had no 400).
      expect(statuses).toContain(400);
      if (!entry.success) expect(statuses.filter((status) => status < 400)).toEqual([]);
    }
  });

  it('answers 413 everywhere (the gateway limits headers too) and 415 wherever a body is read', () => {
    for (const entry of operations) {
      const declared = documentOperations(document).find(({ operation: candidate }) => candidate?.operationId === entry.operationId);
      const statuses = Object.keys(declared?.operation?.responses ?? {}).map(Number);
      expect(statuses).toContain(413);
      if (entry.requestBody) expect(statuses).toContain(415);
    }
    expect(Object.keys(objectAt(json, 'components', 'responses', 'Problem415', 'headers'))).toEqual([
      'X-Request-Id',
      'Accept-Post',
      'Accept-Encoding',
    ]);
    expect(at(json, 'components', 'headers', 'Accept-Encoding', 'schema')).toEqual({ type: 'string', const: 'identity' });
  });

  it('bounds what the linter asks for: string lengths, integer formats, and the JWT practices of RFC 8725', () => {
    const unbounded: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((item, index) => visit(item, `${path}/${index}`));
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Record<string, unknown>;
      if (schema.type === 'string' && schema.maxLength === undefined && schema.enum === undefined && schema.const === undefined) {
        unbounded.push(path);
      }
      if (schema.type === 'integer' && schema.format !== 'int32' && schema.format !== 'int64') unbounded.push(path);
      for (const [key, value] of Object.entries(schema)) visit(value, `${path}/${key}`);
    };
    visit(json, '');
    // The exceptions .spectral.yaml names: a problem's errors[] (and Messages, the same as text) echo field names; data.object is the provider's.
    expect(unbounded).toEqual([
      '/components/schemas/DocumentState/properties/Object/propertyNames',
      '/components/schemas/Problem/properties/errors/items/properties/pointer',
      '/components/schemas/Problem/properties/errors/items/properties/parameter',
      '/components/schemas/Problem/properties/Messages/items',
    ]);
    expect(at(json, 'components', 'securitySchemes', 'bearerAuth', 'description')).toContain('RFC8725');
    expect(at(json, 'components', 'headers', 'Retry-After', 'schema')).toEqual({ type: 'integer', format: 'int32', minimum: 0, maximum: 3600 });
  });

  it('shares problem responses with problem+json and problem+xml bodies and their headers', () => {
    const problem401 = objectAt(json, 'components', 'responses', 'Problem401');
    const problem = { $ref: '#/components/schemas/Problem' };
    expect(Object.keys(objectAt(problem401, 'content'))).toEqual(['application/problem+json', 'application/problem+xml']);
    expect(at(problem401, 'content', 'application/problem+xml', 'schema')).toEqual(problem);
    expect(Object.keys(objectAt(problem401, 'headers'))).toEqual(['X-Request-Id', 'WWW-Authenticate']);
    expect(Object.keys(objectAt(json, 'components', 'responses', 'Problem503', 'headers'))).toContain('Retry-After');
    expect(Object.keys(objectAt(json, 'components', 'responses', 'Problem429', 'headers'))).toContain('Retry-After');
    const required = at(json, 'components', 'schemas', 'Problem', 'required');
    expect(required).toEqual(['type', 'title', 'status', 'detail', 'instance', 'IsSuccess', 'Messages', 'ErrorCode']);
  });
});

describe('buildOpenApiDocumentFrom, with synthetic schemas', () => {
  interface Category {
    Name: string;
    Children?: Category[];
  }
  const Category: z.ZodType<Category> = z
    .strictObject({
      Name: z.string(),
      get Children() {
        return z.array(Category).optional();
      },
    })
    .meta({ id: 'TestCategory' });

  // Recursive without an id: zod still has to break the cycle with a reference.
  const Anonymous = z.strictObject({
    Label: z.string(),
    get Next(): z.ZodOptional<typeof Anonymous> {
      return Anonymous.optional();
    },
  });

  const Secret = z
    .strictObject({
      Key: z.string(),
      Token: z.string().optional().meta({ 'x-sensitive': true }),
      Size: z.int32().min(1).default(10),
    })
    .meta({ id: 'TestSecret' });
  const Holder = z.strictObject({ Secret, Category, Anonymous }).meta({ id: 'TestHolder' });
  const Full = z.strictObject({ Name: z.string(), Extra: z.string().optional() }).meta({ id: 'TestFull' });
  const XmlForm = z.strictObject({ Name: z.string() }).meta({ id: 'TestXmlForm' });

  const synthetic = buildOpenApiDocumentFrom(
    [
      operation({
        operationId: 'testSave',
        path: '/Test/Save',
        requestBody: { schema: Holder, required: true },
        success: { status: 200, schema: Holder, description: 'Saved.' },
      }),
      operation({
        operationId: 'testInline',
        path: '/Test/{id}/Inline',
        method: 'PUT',
        pathParameters: z.strictObject({ id: z.coerce.number().pipe(z.int32().min(1)) }),
        query: z.strictObject({ page: z.coerce.number().int().min(1).default(1).meta({ description: 'Page.' }) }),
        requestBody: { schema: z.array(Category), required: false },
      }),
      operation({ operationId: 'testXml', path: '/Test/Xml', requestBody: { schema: Full, xmlSchema: XmlForm, required: true } }),
    ],
    { serverUrl: 'https://example.test/api' },
  );
  const json = asJson(synthetic);

  it('is valid OpenAPI 3.1, recursion included', async () => {
    expect(await validationErrors(synthetic)).toBe('');
    expect(refsIn(json).filter((ref) => resolve(json, ref) === undefined)).toEqual([]);
  });

  it('references recursive schemas by $ref, with or without an id', () => {
    expect(at(json, 'components', 'schemas', 'TestCategory', 'properties', 'Children', 'items', '$ref')).toBe(
      '#/components/schemas/TestCategory',
    );
    // One unnamed schema, in its response form and its request form (whose optional members may be null).
    const anonymous = Object.keys(synthetic.components.schemas).filter((name) => name.startsWith('Unnamed_') && !name.endsWith('Input'));
    expect(anonymous).toHaveLength(1);
    expect(Object.keys(synthetic.components.schemas)).toContain(`${anonymous[0]}Input`);
    expect(at(json, 'components', 'schemas', anonymous[0] ?? '', 'properties', 'Next', '$ref')).toBe(
      `#/components/schemas/${anonymous[0]}`,
    );
  });

  it('splits a schema whose input and output differ into <id>Input and <id>, and whatever contains it', () => {
    const schemas = synthetic.components.schemas;
    expect(Object.keys(schemas).filter((name) => name.startsWith('Test'))).toEqual([
      'TestCategory',
      'TestCategoryInput',
      'TestFull',
      'TestHolder',
      'TestHolderInput',
      'TestInlineRequest',
      'TestSecret',
      'TestSecretInput',
      'TestXmlForm',
    ]);
    const save = objectAt(json, 'paths', '/Test/Save', 'post');
    expect(at(save, 'requestBody', 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/TestHolderInput',
    });
    expect(at(save, 'responses', '200', 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/TestHolder',
    });
    expect(at(json, 'components', 'schemas', 'TestHolderInput', 'properties', 'Secret', '$ref')).toBe(
      '#/components/schemas/TestSecretInput',
    );
    // An optional member may be null in a request (null means absent): the request form of a schema with one differs.
    expect(at(json, 'components', 'schemas', 'TestHolderInput', 'properties', 'Category', '$ref')).toBe(
      '#/components/schemas/TestCategoryInput',
    );
    expect(at(json, 'components', 'schemas', 'TestSecretInput', 'xml')).toEqual({ name: 'TestSecret' });
  });

  it('makes sensitive fields writeOnly in requests only, and defaults optional in requests only', () => {
    expect(at(json, 'components', 'schemas', 'TestSecretInput', 'properties', 'Token', 'writeOnly')).toBe(true);
    expect(at(json, 'components', 'schemas', 'TestSecret', 'properties', 'Token', 'writeOnly')).toBeUndefined();
    expect(at(json, 'components', 'schemas', 'TestSecretInput', 'required')).toEqual(['Key']);
    expect(at(json, 'components', 'schemas', 'TestSecret', 'required')).toEqual(['Key', 'Size']);
  });

  it('names a body schema without an id after its operation, and inlines parameters', () => {
    const inline = objectAt(json, 'paths', '/Test/{id}/Inline', 'put');
    expect(at(inline, 'requestBody', 'content', 'application/xml', 'schema')).toEqual({
      $ref: '#/components/schemas/TestInlineRequest',
    });
    expect(at(json, 'components', 'schemas', 'TestInlineRequest', 'xml')).toEqual({
      name: 'ArrayOfTestCategory',
      wrapped: true,
    });
    expect(at(inline, 'parameters')).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'integer', minimum: 1, maximum: 2147483647, format: 'int32' },
      },
      {
        name: 'page',
        in: 'query',
        description: 'Page.',
        required: false,
        schema: expect.objectContaining({ type: 'integer', default: 1, minimum: 1 }),
      },
    ]);
  });

  it('gives the XML media types of a request body the XML form, when the manifest has one', () => {
    const content = objectAt(json, 'paths', '/Test/Xml', 'post', 'requestBody', 'content');
    const schemaOf = (type: string) => at(content, type, 'schema', '$ref');
    expect(Object.keys(content).map((type) => [type, schemaOf(type)])).toEqual([
      ['application/json', '#/components/schemas/TestFull'],
      ['text/json', '#/components/schemas/TestFull'],
      ['application/xml', '#/components/schemas/TestXmlForm'],
      ['text/xml', '#/components/schemas/TestXmlForm'],
      ['application/x-www-form-urlencoded', '#/components/schemas/TestFull'],
    ]);
  });

  it('answers only problems for an operation without a success schema', () => {
    const responses = synthetic.paths['/Test/{id}/Inline']?.put?.responses ?? {};
    expect(Object.keys(responses)).toEqual(['400', '401', '412', '413', '415', '429', '500', '502', '503', '504']);
    expect(synthetic.servers[0]?.url).toBe('https://example.test/api');
  });

  it('refuses a path whose parameters the manifest does not declare', () => {
    expect(() => buildOpenApiDocumentFrom([operation({ operationId: 'testBad', path: '/Test/{id}' })])).toThrow(
      /pathParameters/,
    );
  });
});
