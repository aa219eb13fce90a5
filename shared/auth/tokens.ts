// Authentication: bearer-token verification with jose. Locally an HS256 dev secret; on AWS the JWKS and issuer
// of any OIDC provider. Configuration is read once, when the authorizer loads, and fails its cold start when incomplete.
import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import { environmentVariables } from '#shared/environment';
import { PrincipalClaims, tokenClockToleranceSeconds, wholeSeconds, type AuthorizedPrincipal, type Principal } from './principal';

/** Used only by the local stack and tests. Never set on AWS (the stack configures JWKS instead). */
export const localDevSecret = 'local-dev-secret-for-the-business-platform-api-only';
export const localIssuer = 'business-platform-local';
export const defaultAudience = 'business-platform-api';

export type TokenVerifierConfig =
  | { readonly mode: 'hs256'; readonly secret: string; readonly issuer: string; readonly audience: string }
  | { readonly mode: 'jwks'; readonly jwksUrl: string; readonly issuer: string; readonly audience?: string };

export class InvalidToken extends Error {
  override readonly name = 'InvalidToken';
}

/**
 * The provider's key set could not be had (its endpoint timed out, was unreachable, answered other than 200 or
 * answered what is not a key set): no token can be judged. Not InvalidToken: the authorizer fails (logged at ERROR,
 * which the stack's alarm counts; API Gateway answers its 5xx), where every valid token was answered 401, as if bad,
 * and nothing alerted (a hostile-client review).
 */
export class KeySetUnavailable extends Error {
  override readonly name = 'KeySetUnavailable';
}

/** jose's codes for a key set it could not get: a timeout, a response that is not a key set, a status other than 200. */
const keySetFailures = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

/**
 * The remote key set, its failures to get the keys told apart from a token's: a key the set lacks (an unknown `kid`)
 * or names twice is the token's problem (InvalidToken); anything else that fails while the keys are fetched (a code
 * above, or no code at all: fetch's own TypeError) is KeySetUnavailable.
 */
const remoteKeySet = (jwksUrl: string): JWTVerifyGetKey => {
  const keys = createRemoteJWKSet(new URL(jwksUrl));
  return async (header, token) => {
    try {
      return await keys(header, token);
    } catch (error) {
      // With a key set still fresh, a fetch that failed was asked for by the token: a `kid` the set lacks makes jose
      // fetch again (once per 30 s), and the set it holds judges the token (401), whatever that fetch did.
      if (keys.fresh) throw error;
      const code = (error as { code?: unknown } | undefined)?.code;
      if (typeof code !== 'string' || keySetFailures.has(code)) throw new KeySetUnavailable('the token provider\'s key set could not be fetched', { cause: error });
      throw error;
    }
  };
};

export const tokenVerifierConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): TokenVerifierConfig => {
  const { authJwksUrl, authIssuer, authAudience, authHs256Secret } = environmentVariables;
  const jwksUrl = env[authJwksUrl];
  const issuer = env[authIssuer];
  const audience = env[authAudience];
  const secret = env[authHs256Secret];
  if (jwksUrl) {
    if (!issuer) throw new Error(`${authIssuer} must be set with ${authJwksUrl}`);
    return {
      mode: 'jwks',
      jwksUrl,
      issuer,
      ...(audience ? { audience } : {}),
    };
  }
  if (secret) {
    if (secret.length < 32) throw new Error(`${authHs256Secret} must be at least 32 characters`);
    return {
      mode: 'hs256',
      secret,
      issuer: issuer ?? localIssuer,
      audience: audience ?? defaultAudience,
    };
  }
  throw new Error(`Token verification is not configured: set ${authJwksUrl} and ${authIssuer}, or ${authHs256Secret}`);
};

/** The scheme name is case-insensitive (RFC 9110 §11.1); the token is base64url. */
const bearerPattern = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;
const maxTokenLength = 8 * 1024;

/**
 * Verifies `Authorization: Bearer <JWT>` and returns the principal with its token's validity window (for the
 * authorizer context: principal.ts); throws InvalidToken with a safe message.
 */
export const createTokenVerifier = (config: TokenVerifierConfig) => {
  const key: Uint8Array | JWTVerifyGetKey =
    config.mode === 'hs256' ? new TextEncoder().encode(config.secret) : remoteKeySet(config.jwksUrl);
  const algorithms = config.mode === 'hs256' ? ['HS256'] : ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'PS256'];

  return async (authorization: string | undefined): Promise<AuthorizedPrincipal> => {
    if (!authorization) throw new InvalidToken('missing bearer token');
    if (authorization.length > maxTokenLength) throw new InvalidToken('token too long');
    const match = bearerPattern.exec(authorization.trim());
    if (!match?.[1]) throw new InvalidToken('malformed bearer token');
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(match[1], key as Uint8Array, {
        algorithms,
        issuer: config.issuer,
        ...(config.audience ? { audience: config.audience } : {}),
        clockTolerance: tokenClockToleranceSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof KeySetUnavailable) throw error;
      throw new InvalidToken(`token rejected: ${(error as { code?: string }).code ?? 'invalid'}`);
    }
    const claims = PrincipalClaims.safeParse(payload);
    if (!claims.success) throw new InvalidToken('token lacks tenancy claims');
    // jose checked exp (required) and nbf are finite numbers; the window must also be whole seconds a function can
    // compare exactly, so a NumericDate beyond the safe integers (1e300: a token that never expires) is refused.
    const exp = wholeSeconds(payload.exp);
    const nbf = payload.nbf === undefined ? undefined : wholeSeconds(payload.nbf);
    if (exp === undefined || (payload.nbf !== undefined && nbf === undefined)) throw new InvalidToken('token validity out of range');
    // The claims the principal names, and no other member of the token (the schema lets a token carry others).
    const { tenantId, websiteId, userId, organisationId } = claims.data;
    const principal: Principal = { tenantId, websiteId, userId, ...(organisationId === undefined ? {} : { organisationId }) };
    return { principal, validity: { exp, ...(nbf === undefined ? {} : { nbf }) } };
  };
};

export interface DevTokenOptions {
  readonly secret?: string;
  readonly issuer?: string;
  readonly audience?: string;
  readonly expiresIn?: string | number;
  readonly subject?: string;
}

/** Signs a token for the local stack (npm run token) and the tests. */
export const signDevToken = async (principal: Principal, options: DevTokenOptions = {}): Promise<string> =>
  new SignJWT({ ...principal })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(options.issuer ?? localIssuer)
    .setAudience(options.audience ?? defaultAudience)
    .setSubject(options.subject ?? `user-${principal.userId}`)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '12h')
    .sign(new TextEncoder().encode(options.secret ?? localDevSecret));
