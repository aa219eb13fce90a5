// Black-box tests of functions/authorizer.ts, the API Gateway REQUEST authorizer. Its verifier is configured from
// the environment when the module loads, so the environment is set before the module is imported.
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { localDevSecret, signDevToken } from '#shared/auth/tokens';
import { logger } from '#shared/observability/logger';
import { requestIdentity } from '#infra/local/gateway-event';

type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
let handler: AuthorizerHandler;

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  delete process.env.AUTH_JWKS_URL;
  delete process.env.AUTH_ISSUER;
  delete process.env.AUTH_AUDIENCE;
  process.env.AUTH_HS256_SECRET = localDevSecret;
  ({ handler } = (await import('#functions/authorizer')) as { handler: AuthorizerHandler });
});

const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123def4/api/GET/TenantLocation/Get/5';

const authorizerEvent = (headers: Record<string, string>): APIGatewayRequestAuthorizerEvent => ({
  type: 'REQUEST',
  methodArn,
  resource: '/TenantLocation/Get/{id}',
  path: '/TenantLocation/Get/5',
  httpMethod: 'GET',
  headers,
  multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
  pathParameters: { id: '5' },
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  stageVariables: null,
  requestContext: {
    accountId: '123456789012',
    apiId: 'abc123def4',
    authorizer: undefined,
    protocol: 'HTTP/1.1',
    httpMethod: 'GET',
    identity: requestIdentity('203.0.113.10', 'unit-test'),
    path: '/api/TenantLocation/Get/5',
    stage: 'api',
    requestId: 'c0ffee00-0000-4000-8000-000000000002',
    requestTimeEpoch: 1_767_225_600_000,
    resourceId: 'res123',
    resourcePath: '/TenantLocation/Get/{id}',
  },
});

/** What the handler decided: the policy, or the message of what it threw. */
const decide = async (headers: Record<string, string>) => {
  try {
    return await handler(authorizerEvent(headers));
  } catch (error) {
    return { threw: (error as Error).message };
  }
};

describe('authorizer', () => {
  it("allows the whole API (every stage, method and path) and hands the tenancy and the token's exp on as context", async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const token = await signDevToken({ tenantId: 7, websiteId: 1, userId: 3 }, { expiresIn: exp });

    expect(await decide({ Authorization: `Bearer ${token}` })).toEqual({
      principalId: 'tenant-7/user-3',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123def4/*' }],
      },
      context: { tenantId: 7, websiteId: 1, userId: 3, exp },
    });
  });

  it('reads a lower-case authorization header and passes the organisation id on', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const token = await signDevToken({ tenantId: 9, websiteId: 2, userId: 4, organisationId: 'org-9' }, { expiresIn: exp });

    expect(await decide({ authorization: `Bearer ${token}` })).toEqual(
      expect.objectContaining({ principalId: 'tenant-9/user-4', context: { tenantId: 9, websiteId: 2, userId: 4, organisationId: 'org-9', exp } }),
    );
  });

  it.each([
    ['no Authorization header', async () => ({})],
    ['a malformed header', async () => ({ Authorization: 'Bearer nope' })],
    ['a token signed with another secret', async () => ({ Authorization: `Bearer ${await signDevToken({ tenantId: 7, websiteId: 1, userId: 3 }, { secret: 'x'.repeat(40) })}` })],
    ['an expired token', async () => ({ Authorization: `Bearer ${await signDevToken({ tenantId: 7, websiteId: 1, userId: 3 }, { expiresIn: Math.floor(Date.now() / 1000) - 60 })}` })],
    ['a token for another issuer', async () => ({ Authorization: `Bearer ${await signDevToken({ tenantId: 7, websiteId: 1, userId: 3 }, { issuer: 'elsewhere' })}` })],
  ])('throws Error("Unauthorized") for %s, which API Gateway answers with 401', async (_case, headers) => {
    expect(await decide(await headers())).toEqual({ threw: 'Unauthorized' });
  });
});

// Issue 14: API Gateway caches the answer under the identity source's value, and does not document which line that is
// when Authorization comes on several lines. The authorizer verifies only a request where exactly one line carries it,
// so whatever API Gateway keys its cache by, an Allow is only ever cached under the token that was verified.
describe('authorizer: Authorization on more than one line', () => {
  /** What the handler decided for an event with these maps, as API Gateway (or a forger) could build them. */
  const decideMaps = async (headers: Record<string, string>, multiValueHeaders: Record<string, string[]>) => {
    try {
      return await handler({ ...authorizerEvent({}), headers, multiValueHeaders });
    } catch (error) {
      return { threw: (error as Error).message };
    }
  };
  const tokens = async () => ({
    a: `Bearer ${await signDevToken({ tenantId: 1, websiteId: 1, userId: 1 })}`,
    b: `Bearer ${await signDevToken({ tenantId: 2, websiteId: 1, userId: 1 })}`,
  });

  it.each([
    ['the same case twice, two tenants', (a: string, b: string) => [{ Authorization: b }, { Authorization: [a, b] }]],
    ['the same case twice, the same token', (a: string) => [{ Authorization: a }, { Authorization: [a, a] }]],
    ['different cases, two tenants', (a: string, b: string) => [{ Authorization: a, authorization: b }, { Authorization: [a], authorization: [b] }]],
    ['different cases, the same token', (a: string) => [{ Authorization: a, AUTHORIZATION: a }, { Authorization: [a], AUTHORIZATION: [a] }]],
    ['a repeat in multiValueHeaders only', (a: string, b: string) => [{}, { Authorization: [a, b] }]],
    ['headers and multiValueHeaders that disagree', (a: string, b: string) => [{ Authorization: a }, { Authorization: [b] }]],
    ['one case form in each map', (a: string, b: string) => [{ authorization: b }, { Authorization: [a] }]],
  ] as const)('refuses %s (401) without verifying either', async (_case, build) => {
    const { a, b } = await tokens();
    const [headers, multiValueHeaders] = build(a, b) as [Record<string, string>, Record<string, string[]>];

    expect(await decideMaps(headers, multiValueHeaders)).toEqual({ threw: 'Unauthorized' });
  });

  it('allows the one token of a request that carries Authorization once, in whichever map and case form', async () => {
    const { b } = await tokens();

    for (const [headers, multiValueHeaders] of [
      [{ authorization: b }, { authorization: [b] }],
      [{}, { AUTHORIZATION: [b] }],
      [{ Authorization: b }, {}],
    ] as [Record<string, string>, Record<string, string[]>][]) {
      expect(await decideMaps(headers, multiValueHeaders)).toEqual(expect.objectContaining({ principalId: 'tenant-2/user-1' }));
    }
  });
});
