// The response middlewares alone: content-negotiation.ts (406 first, then the answer serialised into the chosen type),
// problem-responses.ts (an error becomes a problem; a gateway refusal the gateway's own answer) and access-log.ts
// (request id and security headers on every answer, one log line, the logger's keys reset after it).
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { NotAcceptable, ValidationFailed } from '#shared/errors';
import { gatewaySecurityHeaders } from '#shared/http/headers';
import { accessLog } from '#shared/http/middlewares/access-log';
import { contentNegotiation } from '#shared/http/middlewares/content-negotiation';
import { GatewayRefusal } from '#shared/http/middlewares/gateway-refusal';
import { problemResponses } from '#shared/http/middlewares/problem-responses';
import { respond } from '#shared/http/result';
import { logger } from '#shared/observability/logger';
import { apiEvent, middlewareRequest, read, requestId, run, securityHeaders, validationProblem } from '../support';

const xmlRoot = { name: 'Thing' };
const negotiation = contentNegotiation({ media: 'standard', success: { status: 200, xmlRoot } });

describe('contentNegotiation', () => {
  it('writes the chosen media type to request.internal.responseType', async () => {
    const request = await run(negotiation.before, middlewareRequest(apiEvent({ headers: { accept: 'text/xml, application/json;q=0.5' } })));
    expect(request.internal.responseType).toBe('text/xml');
  });

  it('refuses an Accept it cannot serve before any work (406)', async () => {
    await expect(run(negotiation.before, middlewareRequest(apiEvent({ headers: { accept: 'text/html' } })))).rejects.toBeInstanceOf(NotAcceptable);
  });

  it('serialises a plain answer with the success status, in XML when XML was chosen', async () => {
    const request = middlewareRequest(apiEvent(), { responseType: 'application/xml' });
    request.response = { ID: 5 };
    await run(negotiation.after, request);
    expect(request.response).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/xml; charset=utf-8', Vary: 'Accept' },
      body: '<?xml version="1.0" encoding="utf-8"?><Thing><ID>5</ID></Thing>',
    });
  });

  it('keeps the status and headers of respond(...), and answers 204 for a 200 without a body', async () => {
    const created = middlewareRequest(apiEvent(), { responseType: 'application/json' });
    created.response = respond(201, { ID: 5 }, { Location: '/api/Thing/5' });
    await run(negotiation.after, created);
    expect(created.response).toEqual({
      statusCode: 201,
      headers: { Location: '/api/Thing/5', 'Content-Type': 'application/json; charset=utf-8', Vary: 'Accept' },
      body: '{"ID":5}',
    });
    const empty = middlewareRequest(apiEvent(), { responseType: 'application/json' });
    empty.response = undefined;
    await run(negotiation.after, empty);
    expect(empty.response).toEqual({ statusCode: 204, headers: { Vary: 'Accept' }, body: '' });
  });
});

describe('problemResponses', () => {
  const onError = problemResponses({ media: 'standard', method: 'POST' }).onError;

  it('writes the problem of the error to request.response, in XML when the client prefers it', async () => {
    const request = middlewareRequest(apiEvent({ headers: { accept: 'application/xml' } }));
    request.error = new ValidationFailed([{ pointer: '/Name', detail: 'is required' }]);
    await run(onError, request);
    expect((request.response as APIGatewayProxyResult).statusCode).toBe(400);
    expect((request.response as APIGatewayProxyResult).headers?.['Content-Type']).toBe('application/problem+xml; charset=utf-8');
  });

  it('answers a JSON problem otherwise', async () => {
    const request = middlewareRequest(apiEvent());
    request.error = new ValidationFailed([{ pointer: '/Name', detail: 'is required' }]);
    await run(onError, request);
    expect(read(request.response)).toEqual({
      statusCode: 400,
      headers: { 'Content-Type': 'application/problem+json; charset=utf-8' },
      body: validationProblem([{ pointer: '/Name', detail: 'is required' }]),
    });
  });

  it('answers a write that ran out of time 504 without Retry-After, and a read 503 with it', async () => {
    const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    const write = middlewareRequest(apiEvent());
    write.error = timeout;
    await run(onError, write);
    expect(read(write.response).statusCode).toBe(504);
    expect(read(write.response).headers['Retry-After']).toBeUndefined();
    const readRequest = middlewareRequest(apiEvent());
    readRequest.error = timeout;
    await run(problemResponses({ media: 'standard', method: 'GET' }).onError, readRequest);
    expect(read(readRequest.response).statusCode).toBe(503);
    expect(read(readRequest.response).headers['Retry-After']).toBeDefined();
  });

  it('answers a gateway refusal with the gateway\'s own response and notes it on request.internal', async () => {
    const request = middlewareRequest(apiEvent({ headers: { accept: 'application/xml' } }));
    request.error = new GatewayRefusal('UNAUTHORIZED', 'token expired');
    await run(onError, request);
    expect(request.internal.gatewayAnswer).toBe(true);
    const answer = read(request.response);
    expect(answer.statusCode).toBe(401);
    expect(answer.headers['Content-Type']).toBe('application/problem+json');
    expect(answer.headers['WWW-Authenticate']).toBe('Bearer realm="api"');
  });
});

describe('accessLog', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });
  const log = accessLog({ operationId: 'tenantLocationGet' });

  it('adds the request id and the security headers to the answer, logs one line, then resets the logger\'s keys', async () => {
    const info = jest.spyOn(logger, 'info');
    const append = jest.spyOn(logger, 'appendKeys');
    const request = await run(log.before, middlewareRequest(apiEvent()));
    expect(request.internal.startedAt).toEqual(expect.any(Number));
    expect(append).toHaveBeenCalledWith({ requestId, operationId: 'tenantLocationGet' });
    const reset = jest.spyOn(logger, 'resetKeys');
    request.response = { statusCode: 200, headers: { Vary: 'Accept' }, body: '' };
    await run(log.after, request);
    expect(request.response).toEqual({ statusCode: 200, headers: { Vary: 'Accept', ...securityHeaders, 'X-Request-Id': requestId }, body: '' });
    expect(info).toHaveBeenCalledWith('request completed', { operationId: 'tenantLocationGet', status: 200, durationMs: expect.any(Number) });
    expect(reset).toHaveBeenCalledTimes(1);
  });

  it('keeps the gateway\'s security headers on a gateway answer', async () => {
    const request = middlewareRequest(apiEvent(), { gatewayAnswer: true });
    request.response = { statusCode: 401, headers: {}, body: '' };
    await run(log.onError, request);
    expect(request.response).toEqual({ statusCode: 401, headers: { ...gatewaySecurityHeaders, 'X-Request-Id': requestId }, body: '' });
  });

  it('resets the logger\'s keys even when no answer was made', async () => {
    const reset = jest.spyOn(logger, 'resetKeys');
    await run(log.onError, middlewareRequest(apiEvent()));
    expect(reset).toHaveBeenCalledTimes(1);
  });
});
