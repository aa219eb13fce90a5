// Unit test: the OpenAPI document teaches the API. Every request body, every 2xx and every problem response has a
// realistic example, and every example (bodies, parameter values) is valid against its own schema in the committed
// document (ajv, JSON Schema 2020-12, ajv-formats). Request examples carry no tenancy (TenantID, WebsiteID and UserID
// 0 or absent), so "Try it out" works with any token. The example run covers every operation, in the tags' order.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { buildOpenApiDocument } from '#shared/openapi/document';
import { exampleRun, operationExamples } from '#shared/openapi/examples/index';
import { buildRequestCollection, requestCollectionUrl } from '#shared/openapi/request-collection';
import type { JsonValue, MediaTypeObject, OperationObject, ParameterObject, ResponseObject } from '#shared/openapi/types';
import { operations } from '#shared/operations/index';
import { committedDocument, documentAjv } from '#test/support/openapi-ajv';

const document = committedDocument;
const { ajv, compile } = documentAjv();

const documentOperations: OperationObject[] = Object.values(document.paths).flatMap((item) => Object.values(item));
const jsonTypes = ['application/json', 'text/json'];

/** Every example of a content map's JSON media types, with where it is. */
const jsonExamples = (where: string, content: Record<string, MediaTypeObject> | undefined) =>
  Object.entries(content ?? {})
    .filter(([type]) => jsonTypes.includes(type))
    .flatMap(([type, media]) => [
      ...(media.example === undefined ? [] : [{ where: `${where} ${type}`, schema: media.schema, value: media.example }]),
      ...Object.entries(media.examples ?? {}).map(([name, example]) => ({ where: `${where} ${type} ${name}`, schema: media.schema, value: example.value })),
    ]);

const isResponse = (value: unknown): value is ResponseObject => typeof value === 'object' && value !== null && !('$ref' in value);

const successResponses = documentOperations.flatMap((operation) =>
  Object.entries(operation.responses)
    .filter(([status]) => status.startsWith('2'))
    .map(([status, response]) => ({ operation, status, response })),
);

const invalid = (examples: readonly { where: string; schema: object; value: unknown }[]): string[] =>
  examples.flatMap(({ where, schema, value }) => {
    const validate = compile(schema);
    return validate(value) ? [] : [`${where}: ${ajv.errorsText(validate.errors)}`];
  });

describe('every request body and every response of the document has an example', () => {
  it('has examples for every operation of the manifest, and none for another', () => {
    expect([...operationExamples.keys()].sort()).toEqual(operations.map((operation) => operation.operationId).sort());
  });

  it('has an example on every JSON media type of every request body', () => {
    const missing = documentOperations.flatMap((operation) =>
      Object.entries(operation.requestBody?.content ?? {})
        .filter(([type, media]) => jsonTypes.includes(type) && Object.keys(media.examples ?? {}).length === 0)
        .map(([type]) => `${operation.operationId} ${type}`),
    );
    expect(missing).toEqual([]);
  });

  it('has an example on every JSON media type of every 2xx response', () => {
    expect(successResponses.length).toBeGreaterThanOrEqual(operations.length);
    const missing = successResponses.flatMap(({ operation, status, response }) =>
      isResponse(response)
        ? Object.entries(response.content ?? {})
            .filter(([type, media]) => jsonTypes.includes(type) && media.example === undefined)
            .map(([type]) => `${operation.operationId} ${status} ${type}`)
        : [`${operation.operationId} ${status} is a reference`],
    );
    expect(missing).toEqual([]);
  });

  it('has an example on every problem response', () => {
    const missing = Object.entries(document.components.responses).filter(([, response]) => response.content?.['application/problem+json']?.example === undefined);
    expect(missing.map(([name]) => name)).toEqual([]);
  });

  it('has a value for every required path and query parameter', () => {
    const missing = documentOperations.flatMap((operation) =>
      (operation.parameters ?? [])
        .filter((parameter: ParameterObject) => parameter.required && parameter.example === undefined)
        .map((parameter) => `${operation.operationId} ${parameter.name}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('every example is valid against its schema', () => {
  it('request bodies', () => {
    const examples = documentOperations.flatMap((operation) => jsonExamples(`${operation.operationId} request`, operation.requestBody?.content));
    expect(examples.length).toBeGreaterThan(documentOperations.filter((operation) => operation.requestBody).length);
    expect(invalid(examples)).toEqual([]);
  });

  it('2xx responses', () => {
    const examples = successResponses.flatMap(({ operation, status, response }) =>
      isResponse(response) ? jsonExamples(`${operation.operationId} ${status}`, response.content) : [],
    );
    expect(examples.length).toBeGreaterThan(successResponses.length);
    expect(invalid(examples)).toEqual([]);
  });

  it('problem responses', () => {
    const examples = Object.entries(document.components.responses).flatMap(([name, response]) =>
      Object.entries(response.content ?? {}).flatMap(([type, media]) =>
        media.example === undefined ? [] : [{ where: `${name} ${type}`, schema: media.schema, value: media.example }],
      ),
    );
    expect(examples.length).toBe(Object.keys(document.components.responses).length);
    expect(invalid(examples)).toEqual([]);
  });

  it('parameter values', () => {
    const examples = documentOperations.flatMap((operation) =>
      (operation.parameters ?? []).flatMap((parameter) =>
        parameter.example === undefined ? [] : [{ where: `${operation.operationId} ${parameter.name}`, schema: parameter.schema, value: parameter.example }],
      ),
    );
    expect(examples.length).toBeGreaterThan(0);
    expect(invalid(examples)).toEqual([]);
  });
});

const tenancyMembers = new Set(['TenantID', 'WebsiteID', 'UserID']);

/** Paths of tenancy members with a value other than 0, anywhere in a body. */
const tenancyIn = (value: JsonValue, path = ''): string[] => {
  if (Array.isArray(value)) return value.flatMap((item, index) => tenancyIn(item, `${path}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) => [
    ...(tenancyMembers.has(key) && member !== 0 ? [`${path}/${key}`] : []),
    ...tenancyIn(member, `${path}/${key}`),
  ]);
};

describe('the examples work with any token', () => {
  it('no request example carries a tenancy other than 0', () => {
    const found = [...operationExamples].flatMap(([operationId, examples]) =>
      Object.entries(examples.requests ?? {}).flatMap(([name, request]) =>
        request.body === undefined ? [] : tenancyIn(request.body).map((path) => `${operationId} ${name} ${path}`),
      ),
    );
    expect(found).toEqual([]);
  });
});

describe('the example run', () => {
  it('calls every operation, each step with a request example its operation has (or none when it takes no body)', () => {
    expect([...new Set(exampleRun.map((step) => step.operationId))].sort()).toEqual([...operationExamples.keys()].sort());
    const wrong = exampleRun.filter((step) => {
      const operation = operations.find((candidate) => candidate.operationId === step.operationId);
      const requests = operationExamples.get(step.operationId)?.requests ?? {};
      return operation?.requestBody ? step.request === undefined || requests[step.request] === undefined : step.request !== undefined;
    });
    expect(wrong).toEqual([]);
  });

  it('follows the order of the tags (the README\'s), and every request example is used', () => {
    const areaOf = new Map(operations.map((operation) => [operation.operationId, operation.area]));
    const areas = [...new Set(exampleRun.map((step) => areaOf.get(step.operationId)))];
    expect(areas).toEqual(document.tags.map((tag) => tag.name));
    const unused = [...operationExamples].flatMap(([operationId, examples]) =>
      Object.keys(examples.requests ?? {}).filter((name) => !exampleRun.some((step) => step.operationId === operationId && step.request === name)).map((name) => `${operationId} ${name}`),
    );
    expect(unused).toEqual([]);
  });

  it('states a documented status for every step, and why when it is not a 2xx', () => {
    const wrong = exampleRun.filter((step) => {
      const operation = documentOperations.find((candidate) => candidate.operationId === step.operationId);
      return operation?.responses[String(step.status)] === undefined || (step.status >= 300 && step.note === undefined);
    });
    expect(wrong).toEqual([]);
  });

  it('states the status from the reference page only where the page makes a difference: a documented 2xx, for the webhook it signs', () => {
    const fromPage = exampleRun.filter((step) => step.pageStatus !== undefined);
    expect(fromPage.map((step) => step.operationId)).toEqual(['providerWebhook']);
    for (const step of fromPage) {
      const operation = documentOperations.find((candidate) => candidate.operationId === step.operationId);
      expect([step.pageStatus, operation?.responses[String(step.pageStatus)] !== undefined]).toEqual([202, true]);
      expect(step.pageStatus).not.toBe(step.status);
    }
  });
});

describe('the request collection (docs/business-platform.http)', () => {
  it('is what npm run openapi writes from the examples (run npm run openapi when this fails)', () => {
    expect(readFileSync(requestCollectionUrl, 'utf8')).toBe(buildRequestCollection(buildOpenApiDocument()));
  });
});
