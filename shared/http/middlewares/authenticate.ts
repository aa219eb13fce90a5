// HTTP middleware: who is calling, before anything else reads the request.
import { principalFromAuthorizerContext, tokenLapse } from '#shared/auth/principal';
import { Unauthorized } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { CompiledOperation } from '#shared/operations/compiled-operation';
import { GatewayRefusal } from './gateway-refusal';
import type { HttpMiddleware } from './request';

/**
 * The principal from the authorizer's context, written to `request.internal.principal` (the gateway runs its
 * authorizer before the function, after refusing a repeated once-only header). API Gateway serves the authorizer's
 * Allow from its cache for the result TTL whatever the token's `exp` says, so the context carries the token's window
 * and a token that has lapsed since is refused here, with the gateway's own 401 (the answer the gateway gives the same
 * token on a cache miss). A context without a valid principal or `exp` is refused too (401).
 */
export const authenticate = (operation: Pick<CompiledOperation, 'auth'>): HttpMiddleware => ({
  before: (request) => {
    if (operation.auth !== 'bearer') return;
    const authorized = principalFromAuthorizerContext(request.event.requestContext?.authorizer);
    if (!authorized) throw new Unauthorized();
    const lapse = tokenLapse(authorized.validity);
    if (lapse) throw new GatewayRefusal('UNAUTHORIZED', `token ${lapse}`);
    request.internal.principal = authorized.principal;
    logger.appendKeys({ tenantId: authorized.principal.tenantId });
  },
});
