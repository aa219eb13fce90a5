// Unit tests: the local gateway renders a gateway response as API Gateway does, from the response set it is given
// (the template's): `$context` variables in the body, header mappings, and the DEFAULT_4XX/5XX fallback.
import { describe, expect, it } from '@jest/globals';
import { renderGatewayResponse, type GatewayResponseSpec } from '#infra/local/gateway-responses';

const set = (entries: Record<string, GatewayResponseSpec>) => new Map(Object.entries(entries));

describe('renderGatewayResponse', () => {
  it('substitutes $context variables in the body and context.* header mappings, and keeps literals', () => {
    const rendered = renderGatewayResponse(
      set({
        UNAUTHORIZED: {
          statusCode: '401',
          headers: { 'X-Request-Id': 'context.requestId', 'WWW-Authenticate': "'Bearer'", 'Content-Type': "'application/problem+json'" },
          templates: { 'application/problem+json': '{"instance":"$context.requestId","type":"$context.error.responseType","stage":"${context.stage}","x":"$context.unknown"}' },
        },
      }),
      'UNAUTHORIZED',
      { requestId: 'r-1', stage: 'api' },
    );
    expect(rendered.status).toBe(401);
    expect(JSON.parse(rendered.body)).toEqual({ instance: 'r-1', type: 'UNAUTHORIZED', stage: 'api', x: '' });
    expect(rendered.headers).toMatchObject({ 'X-Request-Id': 'r-1', 'WWW-Authenticate': 'Bearer', 'Content-Type': 'application/problem+json' });
    expect(rendered.headers['Content-Length']).toBe(String(Buffer.byteLength(rendered.body)));
  });

  it('answers a type the API does not define with its DEFAULT_4XX or DEFAULT_5XX, at the type\'s own status', () => {
    const defaults = set({
      DEFAULT_4XX: { headers: {}, templates: { 'application/json': '{"d":"4xx","id":"$context.requestId"}' } },
      DEFAULT_5XX: { headers: {}, templates: { 'application/json': '{"d":"5xx"}' } },
    });
    expect(renderGatewayResponse(defaults, 'THROTTLED', { requestId: 'r' })).toMatchObject({ status: 429, body: '{"d":"4xx","id":"r"}' });
    expect(renderGatewayResponse(defaults, 'INTEGRATION_TIMEOUT', { requestId: 'r' })).toMatchObject({ status: 504, body: '{"d":"5xx"}' });
  });

  it('falls back to API Gateway\'s own answer when the API defines neither', () => {
    expect(renderGatewayResponse(new Map(), 'ACCESS_DENIED', { requestId: 'r' })).toMatchObject({ status: 403, body: '{"message":"Forbidden"}' });
  });

  it('takes the status the template declares over the type\'s default', () => {
    const rendered = renderGatewayResponse(set({ MISSING_AUTHENTICATION_TOKEN: { statusCode: '404', headers: {}, templates: { 'application/json': '{}' } } }), 'MISSING_AUTHENTICATION_TOKEN', { requestId: 'r' });
    expect(rendered.status).toBe(404);
  });
});
