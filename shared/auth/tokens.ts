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
    config.mode === 'hs256' ? new TextEncoder().encode(config.secret) : createRemoteJWKSet(new URL(config.jwksUrl));
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
