// parse-request.ts alone: path, query and body parsed, coerced, given the caller's tenancy and validated, and the
// handler's input written to request.context.operationRequest; every refusal before the handler.
import { describe, expect, it } from '@jest/globals';
import { PayloadTooLarge, UnsupportedMediaType, ValidationFailed } from '#shared/errors';
import { parseRequest } from '#shared/http/middlewares/parse-request';
import { compileOperation } from '#infra/build/compiled-operations';
import { operationsById } from '#shared/operations/index';
import { apiEvent, jsonEvent, middlewareRequest, principal, requestId, run } from '../support';

const save = parseRequest(compileOperation(operationsById.tenantLocationSave));
const defaultAddress = parseRequest(compileOperation(operationsById.tenantLocationGetDefaultAddress));
/** The header map as case-insensitive-headers.ts leaves it (lower-case names), which this middleware reads. */
const lowerCase = (headers: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).flatMap(([name, value]) => (value === undefined ? [] : [[name.toLowerCase(), value]])));

describe('parseRequest', () => {
  it('writes the validated body, with the caller\'s tenancy, to request.context.operationRequest', async () => {
    const event = jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'Main' } });
    event.headers = lowerCase(event.headers);
    const request = await run(save.before, middlewareRequest(event, { principal }));
    expect(request.context.operationRequest).toEqual({
      body: expect.objectContaining({ Name: 'Main', TenantID: 7, WebsiteID: 1, UserID: 3 }),
      path: undefined,
      query: undefined,
      principal,
      requestId,
      headers: event.headers,
      rawBody: '{"Name":"Main"}',
      context: request.context,
    });
  });

  it('coerces and validates path and query parameters', async () => {
    const event = apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: '5' }, query: { addressType: 'Billing' } });
    const request = await run(defaultAddress.before, middlewareRequest(event, { principal }));
    expect(request.context.operationRequest).toMatchObject({ path: { id: 5 }, query: { addressType: 'Billing' }, body: undefined });
  });

  it('refuses a query parameter sent twice, naming it', async () => {
    const event = apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: '5' } });
    event.multiValueQueryStringParameters = { addressType: ['Billing', 'Delivery'] };
    event.queryStringParameters = { addressType: 'Delivery' };
    await expect(run(defaultAddress.before, middlewareRequest(event))).rejects.toEqual(
      new ValidationFailed([{ parameter: 'addressType', detail: 'appears more than once: send it once' }]),
    );
  });

  it('refuses a body in a content coding (415), a body too large (413), an unsupported media type (415) and no body (400)', async () => {
    const body = (headers: Record<string, string>, text: string) => apiEvent({ method: 'POST', resource: '/TenantLocation/Save', headers: lowerCase(headers), body: text });
    await expect(run(save.before, middlewareRequest(body({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, '{}')))).rejects.toMatchObject({
      status: 415,
      headers: { 'Accept-Encoding': 'identity' },
    });
    await expect(run(save.before, middlewareRequest(body({ 'Content-Type': 'application/json' }, 'x'.repeat(1024 * 1024 + 1))))).rejects.toBeInstanceOf(PayloadTooLarge);
    await expect(run(save.before, middlewareRequest(body({ 'Content-Type': 'text/plain' }, 'Name=Main')))).rejects.toBeInstanceOf(UnsupportedMediaType);
    await expect(run(save.before, middlewareRequest(body({ 'Content-Type': 'application/json' }, '')))).rejects.toMatchObject({
      status: 400,
      detail: 'A request body is required.',
    });
  });

  it('leaves no input on the context when it refuses', async () => {
    const request = middlewareRequest(apiEvent({ resource: '/TenantLocation/GetDefaultAddress/{id}', pathParameters: { id: 'x' } }));
    await expect(run(defaultAddress.before, request)).rejects.toBeInstanceOf(ValidationFailed);
    expect(request.context.operationRequest).toBeUndefined();
  });
});
