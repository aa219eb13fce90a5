// OpenAPI document: the OpenAPI 3.1 description of the service, built from the operations manifest and the zod
// schemas alone (a pure function: same code, same document). `npm run openapi` writes it to openapi.json.
import { signatureToleranceSeconds } from '#shared/schemas/webhook-signature';
import { readFileSync } from 'node:fs';
import { operations as manifestOperations, type Area, type HttpMethod, type Operation } from '#shared/operations/index';
import { isXmlMediaType, requestMediaTypes, responseMediaTypes } from '#shared/http/media';
import { serverRulesOf } from '#shared/operations/server-rules';
import { limits } from '#shared/schemas/common';
import { operationExamples, type OperationExamples } from './examples/index';
import { buildSchemaCatalog, type ParameterSchema, type SchemaCatalog, type SchemaRoot } from './component-schemas';
import {
  headerComponents,
  headerNames,
  headerRef,
  problemResponse,
  problemResponseName,
  problemSchema,
  problemSchemaName,
} from './problem-components';
import type {
  ExampleObject,
  JsonValue,
  MediaTypeObject,
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
  SecurityRequirementObject,
} from './types';

export type { OpenApiDocument } from './types';

export interface OpenApiDocumentOptions {
  /** First server of the document; the local stack by default. Must end with `/api`. */
  readonly serverUrl?: string;
  /** Whether that server is a local stack (`x-internal`), as the local gateway serves it; by default, when it is the default URL. */
  readonly localServer?: boolean;
}

export const defaultServerUrl = 'http://127.0.0.1:3000/api';

/** The areas, in the README's order (Swagger UI lists the tags in this order), each with what it covers. */
const tags: Readonly<Record<Area, string>> = {
  'tenant-locations': "The tenant's locations: get, list, find by name, default address, save, search, delete.",
  'document-events': 'Events posted by the document-analysis provider, several per document a user uploads, and the state of a document they make.',
  payments: 'Payments: record one, read it with its refunds, refund it (inline or through the payments queue).',
  'scheduled-tasks': 'Scheduled tasks: name, recurrence, interval, time of day, adaptor details.',
  'delivery-receipts': 'Delivery receipts (v2): add inventory lines, get, save, search.',
  inventory: 'Stock on hand of inventory items, as completed delivery receipts put it.',
};

/** Statuses API Gateway itself may answer before, or instead of, the operation's function (gateway-responses.ts). */
const gatewayStatuses = (operation: Operation): number[] => [
  ...(operation.auth === 'bearer' ? [401] : []), // the authorizer refuses the token: UNAUTHORIZED
  413, // REQUEST_TOO_LARGE: a body over 10 MB, or a request line and header values over 10,240 bytes
  ...(operation.requestBody ? [415] : []), // a media type or a content coding the function does not read
  429, // THROTTLED, QUOTA_EXCEEDED
  500, // AUTHORIZER_FAILURE, DEFAULT_5XX, and any unexpected failure of the function
  502, // INTEGRATION_FAILURE
  503, // a dependency down or throttling (ServiceUnavailable, with Retry-After)
  504, // INTEGRATION_TIMEOUT
];

const webhookSignature =
  'Authenticated by the `signature` member of the event, not by a token: `t=<unix seconds>,v1=<lowercase hex ' +
  'HMAC-SHA256>`, the HMAC of `<t>.` followed by the RFC 8785 (JCS) canonical JSON of the event without its ' +
  "`signature` member, keyed with the provider's shared secret. Several `v1` entries may be sent (secret " +
  `rotation); other schemes are ignored. Events whose \`t\` is more than ${signatureToleranceSeconds} s away from the server clock, and ` +
  'missing or wrong signatures, are refused with 401. The event id (`eventId` of the answer) is the SHA-256 of ' +
  'the same canonical JSON, so a retry of an event is recognised as the same event.';

const infoDescription = [
  'HTTP API of the business-management platform: tenant locations, document events (an inbound webhook and a ' +
    'document read), payments and their refunds, scheduled tasks, delivery receipts (v2) and stock on hand.',
  '**Base URL.** Every path is relative to a base URL that includes the `/api` segment; the servers below end ' +
    'with it. Paths match with or without a trailing slash.',
  '**Media types.** Except the webhook, request bodies may be sent as `application/json`, `text/json`, ' +
    '`application/xml`, `text/xml` or `application/x-www-form-urlencoded`, and responses are negotiated with ' +
    '`Accept` among `application/json` (the default), `text/json`, `application/xml` and `text/xml`. In XML the ' +
    'root element is named after the type (any root name is accepted in requests; a list is answered as ' +
    '`<ArrayOf{Type}>`) and array members repeat their element. Form fields name nested fields with dots or ' +
    'brackets (`Address.City`, `Address[City]`) and repeat keys for arrays (`IDs=1&IDs=2`). The webhook accepts ' +
    'and answers `application/json` only.',
  '**Fields.** Names are case-sensitive: PascalCase, except the camelCase webhook. Unknown fields are refused ' +
    '(the webhook event keeps them: its signature covers the whole event). So are query parameters an operation ' +
    'does not declare, each named in the problem (an operation that declares none refuses any), and a query ' +
    'parameter sent more than once. Fields marked `writeOnly` are card data or credentials: accepted, never ' +
    'returned or logged.',
  `**Limits.** Request bodies up to ${limits.requestBodyBytes} bytes; arrays up to ${limits.arrayItems} members.`,
  '**Errors.** Every error is a problem details document (RFC 9457): `application/problem+json`, or ' +
    '`application/problem+xml` when the request prefers XML. Its `instance`, like the `X-Request-Id` header of ' +
    'every response, is the request id.',
  "**Authentication.** Every operation except the webhook needs `Authorization: Bearer <JWT>` (see `bearerAuth`). " +
    "A request's tenancy (tenant, website, user) comes from the token only: a `TenantID`, `WebsiteID` or " +
    '`UserID` in a body that differs from the token is refused with 403. The webhook is authenticated by the HMAC ' +
    'signature inside each event.',
].join('\n\n');

const bearerDescription =
  'A JWT sent as `Authorization: Bearer <token>`, with `exp` and the tenancy claims `tenantId`, `websiteId` and ' +
  '`userId` (positive 32-bit integers) and, optionally, `organisationId` (string). Deployed, tokens of the ' +
  'configured OIDC issuer (JWKS, RS/ES/PS algorithms); locally, HS256 tokens from `npm run token`.\n\n' +
  'Tokens are verified as the JSON Web Token Best Current Practices (RFC8725) ask: the algorithm must be one of an ' +
  'explicit list for the issuer (never `none`, never a symmetric algorithm against a public key), the issuer and ' +
  'the audience must match, `exp` is required (5 s of clock tolerance), and tokens over 8 KiB are refused unread.';

const readPackageVersion = (): string => {
  const packageJson: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const version = typeof packageJson === 'object' && packageJson !== null ? Reflect.get(packageJson, 'version') : undefined;
  if (typeof version !== 'string') throw new Error('package.json has no version');
  return version;
};
const packageVersion = readPackageVersion();

const pascalCase = (operationId: string): string => operationId.charAt(0).toUpperCase() + operationId.slice(1);

const schemaRoots = (operations: readonly Operation[]): SchemaRoot[] =>
  operations.flatMap((operation) => {
    const name = pascalCase(operation.operationId);
    const roots: SchemaRoot[] = [];
    if (operation.pathParameters) {
      roots.push({ schema: operation.pathParameters, use: 'parameters', fallbackId: `${name}PathParameters` });
    }
    if (operation.query) roots.push({ schema: operation.query, use: 'parameters', fallbackId: `${name}Query` });
    if (operation.requestBody) {
      roots.push({ schema: operation.requestBody.schema, use: 'body', io: 'input', fallbackId: `${name}Request` });
      const { xmlSchema } = operation.requestBody;
      if (xmlSchema) roots.push({ schema: xmlSchema, use: 'body', io: 'input', fallbackId: `${name}XmlRequest` });
    }
    if (operation.success) {
      roots.push({ schema: operation.success.schema, use: 'body', io: 'output', fallbackId: `${name}Response` });
    }
    return roots;
  });

/** The JSON media types, which carry the examples (XML and form bodies are the same values in another syntax). */
const isJsonMediaType = (type: string): boolean => type === 'application/json' || type === 'text/json';

const content = (mediaTypes: readonly string[], schema: SchemaObject, example?: JsonValue): Record<string, MediaTypeObject> =>
  Object.fromEntries(mediaTypes.map((type) => [type, example !== undefined && isJsonMediaType(type) ? { schema, example } : { schema }]));

const pathTemplateNames = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');

const parametersOf = (operation: Operation, catalog: SchemaCatalog, examples: OperationExamples | undefined): ParameterObject[] => {
  const path = operation.pathParameters ? catalog.parameters(operation.pathParameters) : [];
  const declared = path.map((parameter) => parameter.name).sort();
  const templated = pathTemplateNames(operation.path).sort();
  if (declared.join() !== templated.join()) {
    throw new Error(`${operation.operationId}: path ${operation.path} and pathParameters (${declared.join()}) disagree`);
  }
  const optional = path.find((parameter) => !parameter.required);
  if (optional) throw new Error(`${operation.operationId}: path parameter ${optional.name} must not be optional`);
  const query = operation.query ? catalog.parameters(operation.query) : [];
  const toParameter =
    (location: 'path' | 'query') =>
    ({ name, required, description, schema }: ParameterSchema): ParameterObject => {
      const example = examples?.parameters?.[name];
      return {
        name,
        in: location,
        ...(description === undefined ? {} : { description }),
        required,
        schema,
        ...(example === undefined ? {} : { example }),
      };
    };
  if (operation.idempotencyKey && !(operation.problems.includes(409) && operation.problems.includes(422))) {
    throw new Error(`${operation.operationId}: an operation that takes an Idempotency-Key answers 409 and 422`);
  }
  const header = operation.idempotencyKey ? [idempotencyKeyParameter] : [];
  return [...path.map(toParameter('path')), ...query.map(toParameter('query')), ...header];
};

/** The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header), as shared/data/idempotency.ts reads it. */
const idempotencyKeyParameter: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes a retry safe: a request sent again with the same key (within 24 hours, per tenant and operation) is not ' +
    'applied again; it gets the first answer again, status, body and headers. The same key with a different request ' +
    'answers 422; while the first is still in progress, 409 with Retry-After. Without a key, a retry is a new request. ' +
    '1 to 255 visible ASCII characters (a UUID is the usual choice); the quoted form `"..."` names the same key.',
  required: false,
  // The server's rule (shared/data/idempotency.ts `parseIdempotencyKey`): 1 to 255 visible ASCII characters, bare or
  // between double quotes; `""` names no key (400).
  schema: { type: 'string', minLength: 1, maxLength: 257, pattern: '^(?:"[!-~]{1,255}"|(?!"[!-~]*"$)[!-~]{1,255})$' },
};

const requestBodyOf = (operation: Operation, catalog: SchemaCatalog, examples: OperationExamples | undefined): RequestBodyObject | undefined => {
  if (!operation.requestBody) return undefined;
  const { schema, xmlSchema, required } = operation.requestBody;
  const jsonSchema = catalog.ref(schema, 'input');
  const xmlForm = xmlSchema ? catalog.ref(xmlSchema, 'input') : jsonSchema;
  const mediaTypes = Object.keys(requestMediaTypes[operation.media]);
  const limit = `At most ${operation.maxBodyBytes ?? limits.requestBodyBytes} bytes.`;
  const description =
    operation.media === 'json'
      ? `The body, as JSON. ${limit}`
      : 'The body as JSON (`application/json`, `text/json`), XML (`application/xml`, `text/xml`: the root ' +
        'element is named after the type, any name is accepted; array members repeat their element) or form ' +
        `fields (\`application/x-www-form-urlencoded\`: \`Address.City=...\`, \`IDs=1&IDs=2\`). ${limit}` +
        (xmlSchema ? ' The XML form has a schema of its own.' : '');
  const named = Object.entries(examples?.requests ?? {}).flatMap(([name, { summary, body }]): [string, ExampleObject][] =>
    body === undefined ? [] : [[name, { summary, value: body }]],
  );
  const withExamples = named.length > 0 ? { examples: Object.fromEntries(named) } : {};
  return {
    description,
    required,
    content: Object.fromEntries(
      mediaTypes.map((type) => [type, { schema: isXmlMediaType(type) ? xmlForm : jsonSchema, ...(isJsonMediaType(type) ? withExamples : {}) }]),
    ),
  };
};

const responsesOf = (
  operation: Operation,
  catalog: SchemaCatalog,
  problemStatuses: Set<number>,
  examples: OperationExamples | undefined,
): Record<string, ResponseObject | ReferenceObject> => {
  const responses: Record<string, ResponseObject | ReferenceObject> = {};
  const requestId = { [headerNames.requestId]: headerRef(headerNames.requestId) };
  if (operation.success) {
    const schema = catalog.ref(operation.success.schema, 'output');
    const body = (status: number) => content(responseMediaTypes[operation.media], schema, examples?.responses[status]);
    const locationHeader = { [headerNames.location]: headerRef(headerNames.location) };
    responses[String(operation.success.status)] = {
      description: operation.success.description,
      // A 201 names what it created (RFC 9110 section 15.3.2).
      headers: { ...requestId, ...(operation.success.status === 201 ? locationHeader : {}) },
      content: body(operation.success.status),
    };
    // The manifest's other success statuses (201 on create, 202 when queued): the same body.
    for (const alternative of operation.success.also ?? []) {
      const location = alternative.status === 201 || alternative.location === true;
      responses[String(alternative.status)] = {
        description: alternative.description,
        headers: { ...requestId, ...(location ? locationHeader : {}) },
        content: body(alternative.status),
      };
    }
  }
  // 412: If-Match naming an entity tag, on any operation (shared/http/middlewares/preconditions.ts).
  const problems = new Set([...operation.problems, ...gatewayStatuses(operation), 412]);
  for (const status of [...problems].sort((a, b) => a - b)) {
    problemStatuses.add(status);
    responses[String(status)] = { $ref: `#/components/responses/${problemResponseName(status)}` };
  }
  return responses;
};

/** The rules the server applies beyond the request's schemas (shared/operations/server-rules.ts), as a list. */
const serverRulesText = (operation: Operation): string | undefined => {
  const rules = serverRulesOf(operation.operationId);
  if (rules.length === 0) return undefined;
  return ['Rules the server applies beyond these schemas (400 with a pointer):', ...rules.map(([name, rule]) => `- \`${name}\`: ${rule.says}`)].join('\n');
};

const descriptionOf = (operation: Operation): string | undefined => {
  const parts = [
    operation.description,
    operation.auth === 'webhook-signature' ? webhookSignature : undefined,
    serverRulesText(operation),
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
};

const securityOf = (operation: Operation): SecurityRequirementObject[] =>
  operation.auth === 'bearer' ? [{ bearerAuth: [] }] : [];

const methodOrder: readonly HttpMethod[] = ['GET', 'PUT', 'POST', 'DELETE'];
const methodKey = { GET: 'get', PUT: 'put', POST: 'post', DELETE: 'delete' } as const satisfies Record<HttpMethod, string>;

const operationObject = (
  operation: Operation,
  catalog: SchemaCatalog,
  problemStatuses: Set<number>,
): OperationObject => {
  const description = descriptionOf(operation);
  const examples = operationExamples.get(operation.operationId);
  const parameters = parametersOf(operation, catalog, examples);
  const requestBody = requestBodyOf(operation, catalog, examples);
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(description === undefined ? {} : { description }),
    tags: [operation.area],
    security: securityOf(operation),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: responsesOf(operation, catalog, problemStatuses, examples),
  };
};

/** The document for any list of operations (the manifest's in production; tests pass their own). */
export const buildOpenApiDocumentFrom = (
  operations: readonly Operation[],
  options: OpenApiDocumentOptions = {},
): OpenApiDocument => {
  const serverUrl = options.serverUrl ?? defaultServerUrl;
  if (!serverUrl.replace(/\/+$/, '').endsWith('/api')) throw new Error(`Server URL ${serverUrl} must end with /api`);

  const catalog = buildSchemaCatalog(schemaRoots(operations), [problemSchemaName]);

  const problemStatuses = new Set<number>();
  const paths: Record<string, PathItemObject> = {};
  for (const path of new Set(operations.map((operation) => operation.path))) {
    const item: PathItemObject = {};
    for (const method of methodOrder) {
      const atMethod = operations.filter((operation) => operation.path === path && operation.method === method);
      if (atMethod.length > 1) throw new Error(`Two operations at ${method} ${path}`);
      const [operation] = atMethod;
      if (operation) item[methodKey[method]] = operationObject(operation, catalog, problemStatuses);
    }
    paths[path] = item;
  }

  const usedAreas = new Set(operations.map((operation) => operation.area));
  return {
    openapi: '3.1.0',
    info: { title: 'Business Platform API', version: packageVersion, description: infoDescription },
    servers: [
      {
        url: serverUrl,
        description: 'Local stack (npm start; the document it serves names the host the request was sent to)',
        'x-internal': options.localServer ?? serverUrl === defaultServerUrl,
      },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com/api',
        description: 'A deployed stage (API Gateway, stage api)',
        variables: {
          apiId: { default: 'abcdef1234', description: 'Id of the REST API (an output of the CDK stack).' },
          region: { default: 'eu-west-1', description: 'AWS region of the stack.' },
        },
        'x-internal': false,
      },
    ],
    tags: (Object.keys(tags) as Area[])
      .filter((area) => usedAreas.has(area))
      .map((area) => ({ name: area, description: tags[area] })),
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries({ ...catalog.components, [problemSchemaName]: problemSchema }).sort(([a], [b]) =>
          a < b ? -1 : a > b ? 1 : 0,
        ),
      ),
      responses: Object.fromEntries(
        [...problemStatuses].sort((a, b) => a - b).map((status) => [problemResponseName(status), problemResponse(status)]),
      ),
      headers: headerComponents,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: bearerDescription },
      },
    },
  };
};

/** The service's OpenAPI document: every operation of the manifest. */
export const buildOpenApiDocument = (options: OpenApiDocumentOptions = {}): OpenApiDocument =>
  buildOpenApiDocumentFrom(manifestOperations, options);

/** Where `npm run openapi` writes the document (committed with the code it describes). */
export const openApiJsonUrl = new URL('./openapi.json', import.meta.url);

/** The file's exact text: two-space indentation and a trailing newline. */
export const serializeOpenApiDocument = (document: OpenApiDocument): string => `${JSON.stringify(document, null, 2)}\n`;
