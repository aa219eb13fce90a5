// authenticate.ts alone: the principal from the authorizer's context onto request.internal, a lapsed token refused
// as the gateway refuses it, a context without a principal refused with the function's own 401.
import { describe, expect, it } from '@jest/globals';
import { Unauthorized } from '#shared/errors';
import { authenticate } from '#shared/http/middlewares/authenticate';
import { GatewayRefusal } from '#shared/http/middlewares/gateway-refusal';
import { apiEvent, authorizerContext, middlewareRequest, principal, run } from '../support';

const bearer = authenticate({ auth: 'bearer' });

describe('authenticate', () => {
  it('writes the principal of a valid context to request.internal.principal', async () => {
    const request = await run(bearer.before, middlewareRequest(apiEvent()));
    expect(request.internal.principal).toEqual(principal);
  });

  it('refuses a context without a principal with the function\'s own 401', async () => {
    await expect(run(bearer.before, middlewareRequest(apiEvent({ authorizer: null })))).rejects.toBeInstanceOf(Unauthorized);
    await expect(run(bearer.before, middlewareRequest(apiEvent({ authorizer: { tenantId: '7', websiteId: '1', userId: '3' } })))).rejects.toBeInstanceOf(
      Unauthorized,
    );
  });

  it('refuses a token expired since the gateway cached its Allow with the gateway\'s own refusal', async () => {
    const expired = apiEvent({ authorizer: { ...authorizerContext, exp: '1000' } });
    await expect(run(bearer.before, middlewareRequest(expired))).rejects.toEqual(new GatewayRefusal('UNAUTHORIZED', 'token expired'));
  });

  it('reads nothing for an operation without bearer authentication', async () => {
    const request = await run(authenticate({ auth: 'webhook-signature' }).before, middlewareRequest(apiEvent({ authorizer: null })));
    expect(request.internal.principal).toBeUndefined();
  });
});
