// Unit: the local gateway's REQUEST authorizer step (infra/local/gateway-authorizer.ts) keys its result cache by the
// one value the authorizer function verifies: the only Authorization line (issue 14). A request carrying Authorization
// on several lines, in any case form, is neither verified nor looked up in the cache.
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { createAuthorizer } from '#infra/local/gateway-authorizer';

const methodArn = 'arn:aws:execute-api:us-east-1:123456789012:localapi00/api/GET/Payment/1';

/** An authorizer fake: allows every token, with the token's tenant in the context, and records what it verified. */
const fakeAuthorizer = () => {
  const verified: string[] = [];
  const authorize = createAuthorizer({
    cacheTtlMs: 300_000,
    invoke: async (event) => {
      const token = String(Object.values(event.headers ?? {})[0]);
      verified.push(token);
      return {
        principalId: token,
        policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${methodArn.split('/')[0]}/*` }] },
        context: { tenant: token },
      };
    },
  });
  /** The event carries the lines as the gateway builds it: `headers` the last of each name, `multiValueHeaders` all. */
  const call = (rawHeaders: string[]) => {
    const headers: Record<string, string> = {};
    const multiValueHeaders: Record<string, string[]> = {};
    for (let index = 0; index < rawHeaders.length; index += 2) {
      const [name, value] = [rawHeaders[index] as string, rawHeaders[index + 1] as string];
      headers[name] = value;
      multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
    }
    return authorize({ type: 'REQUEST', methodArn, headers, multiValueHeaders } as unknown as APIGatewayRequestAuthorizerEvent, rawHeaders);
  };
  return { verified, call };
};

describe('the local authorizer step', () => {
  it.each([
    ['the same case twice', ['Authorization', 'A', 'Authorization', 'B']],
    ['two case forms', ['Authorization', 'A', 'authorization', 'B']],
    ['the same value twice', ['authorization', 'A', 'AUTHORIZATION', 'A']],
  ])('refuses Authorization on several lines (%s) without verifying or reading the cache', async (_case, rawHeaders) => {
    const { verified, call } = fakeAuthorizer();
    expect((await call(['Authorization', 'A'])).kind).toBe('allow');

    expect(await call(rawHeaders)).toEqual({ kind: 'unauthorized' });
    expect(verified).toEqual(['A']);
  });

  it("caches under the one line's value, in any case form, and never answers one token with another's result", async () => {
    const { verified, call } = fakeAuthorizer();

    const a = await call(['Authorization', 'A']);
    const aAgain = await call(['AUTHORIZATION', 'A']);
    const b = await call(['authorization', 'B']);

    expect([a, aAgain, b].map((outcome) => (outcome.kind === 'allow' ? outcome.authorizer.tenant : outcome.kind))).toEqual(['A', 'A', 'B']);
    expect(verified).toEqual(['A', 'B']);
  });
});
