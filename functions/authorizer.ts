// Entry: the API Gateway REQUEST authorizer. Verifies the bearer token and hands the tenancy claims to every
// function through the authorizer context. API Gateway caches the answer per Authorization header, so the policy
// allows the whole API (all stages, methods and paths), not only the method that was first called.
//
// The cache is keyed by the identity source's value, and API Gateway does not document which line that is when a
// request carries Authorization on several lines (or in several case forms). So the authorizer verifies a token only
// when exactly one line carries Authorization, in any case form: then the cache key can only be that value, and an
// Allow can never be cached under one tenant's token for another tenant's. Anything else is refused (401).
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { toAuthorizerContext } from '#shared/auth/principal';
import { onceOnlyValue } from '#shared/http/header-lines';
import { createTokenVerifier, InvalidToken, tokenVerifierConfigFromEnv } from '#shared/auth/tokens';
import { describeError, logger } from '#shared/observability/logger';

const verify = createTokenVerifier(tokenVerifierConfigFromEnv());

/** `arn:aws:execute-api:region:account:apiId/stage/METHOD/path` -> `arn:aws:execute-api:region:account:apiId/*` */
const wholeApiArn = (methodArn: string): string => {
  const [apiArn] = methodArn.split('/', 1); // `arn:aws:execute-api:region:account:apiId`
  return `${apiArn}/*`;
};

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  // API Gateway passes header names as the client spelled them; HTTP header names are case-insensitive.
  const authorization = onceOnlyValue(event, 'Authorization');
  if (authorization === 'ambiguous') {
    logger.info('token refused', { reason: 'Authorization header on several lines', requestId: event.requestContext?.requestId });
    throw new Error('Unauthorized');
  }
  try {
    const { principal, validity } = await verify(authorization);
    return {
      principalId: `tenant-${principal.tenantId}/user-${principal.userId}`,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiArn(event.methodArn) }],
      },
      // The token's window goes with the tenancy: API Gateway serves this answer from its cache until the result TTL
      // ends, and each function refuses it once the token has expired (principal.ts `tokenLapse`).
      context: toAuthorizerContext(principal, validity),
    };
  } catch (error) {
    if (error instanceof InvalidToken) {
      // The reason is safe to log (it never contains the token); API Gateway answers 401 for this exact message.
      logger.info('token refused', { reason: error.message, requestId: event.requestContext?.requestId });
      throw new Error('Unauthorized');
    }
    logger.error('authorizer failed', describeError(error));
    throw error;
  }
};
