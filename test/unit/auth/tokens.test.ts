// Unit tests of shared/auth/tokens.ts and principal.ts: bearer-token verification (HS256 mode), its configuration
// and the authorizer-context round trip of the principal.
import { describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import {
  principalFromAuthorizerContext,
  toAuthorizerContext,
  type Principal,
} from '#shared/auth/principal';
import {
  createTokenVerifier,
  defaultAudience,
  InvalidToken,
  localDevSecret,
  localIssuer,
  signDevToken,
  tokenVerifierConfigFromEnv,
} from '#shared/auth/tokens';

const principal: Principal = { tenantId: 7, websiteId: 1, userId: 3 };
const verify = createTokenVerifier({ mode: 'hs256', secret: localDevSecret, issuer: localIssuer, audience: defaultAudience });
const now = () => Math.floor(Date.now() / 1000);
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs arbitrary claims with the dev secret, for tokens signDevToken would never make. */
const signClaims = (claims: Record<string, unknown>, { exp = now() + 600, secret = localDevSecret } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(localIssuer)
    .setAudience(defaultAudience)
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));

/** The reason verification gave, or the principal when it passed. */
const outcome = async (authorization: string | undefined) => {
  try {
    return await verify(authorization);
  } catch (error) {
    if (error instanceof InvalidToken) return `InvalidToken: ${error.message}`;
    throw error;
  }
};

describe('createTokenVerifier (hs256)', () => {
  it('accepts a token signed by signDevToken and returns the principal', async () => {
    const token = await signDevToken({ ...principal, organisationId: 'org-42' });

    expect(await outcome(`Bearer ${token}`)).toEqual({ ...principal, organisationId: 'org-42' });
  });

  it('reads the scheme name case-insensitively, as HTTP defines it (RFC 9110 §11.1)', async () => {
    const token = await signDevToken(principal);

    expect([await outcome(`bearer ${token}`), await outcome(`BEARER ${token}`)]).toEqual([principal, principal]);
  });

  it('accepts surrounding whitespace around the header value', async () => {
    expect(await outcome(`  Bearer ${await signDevToken(principal)}  `)).toEqual(principal);
  });

  it.each([
    ['a missing header', undefined, 'missing bearer token'],
    ['an empty header', '', 'missing bearer token'],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'malformed bearer token'],
    ['a token that is not a JWT', 'Bearer not-a-jwt', 'malformed bearer token'],
    ['two tokens', 'Bearer a.b.c d.e.f', 'malformed bearer token'],
    ['an unsigned token (empty signature)', `Bearer ${encode({ alg: 'none' })}.${encode({ ...principal, exp: now() + 60 })}.`, 'malformed bearer token'],
    ['an oversized header', `Bearer ${'a'.repeat(8 * 1024)}.b.c`, 'token too long'],
  ])('rejects %s', async (_case, authorization, reason) => {
    expect(await outcome(authorization)).toBe(`InvalidToken: ${reason}`);
  });

  it('rejects alg "none" even with something in the signature place', async () => {
    const token = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ ...principal, iss: localIssuer, aud: defaultAudience, exp: now() + 60 })}.AAAA`;

    expect(await outcome(`Bearer ${token}`)).toBe('InvalidToken: token rejected: ERR_JOSE_ALG_NOT_ALLOWED');
  });

  it('rejects a token signed with another secret', async () => {
    const token = await signDevToken(principal, { secret: 'another-secret-that-is-long-enough-to-be-used-here' });

    expect(await outcome(`Bearer ${token}`)).toBe('InvalidToken: token rejected: ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it('rejects a token whose payload was changed after signing', async () => {
    const [header, , signature] = (await signDevToken(principal)).split('.');
    const forged = `${header}.${encode({ ...principal, tenantId: 8, iss: localIssuer, aud: defaultAudience, exp: now() + 600 })}.${signature}`;

    expect(await outcome(`Bearer ${forged}`)).toBe('InvalidToken: token rejected: ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it('rejects an expired token (beyond the 5 s clock tolerance)', async () => {
    const token = await signDevToken(principal, { expiresIn: now() - 60 });

    expect(await outcome(`Bearer ${token}`)).toBe('InvalidToken: token rejected: ERR_JWT_EXPIRED');
  });

  it('rejects a token without an expiry', async () => {
    const token = await new SignJWT({ ...principal })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(localIssuer)
      .setAudience(defaultAudience)
      .sign(new TextEncoder().encode(localDevSecret));

    expect(await outcome(`Bearer ${token}`)).toBe('InvalidToken: token rejected: ERR_JWT_CLAIM_VALIDATION_FAILED');
  });

  it.each([
    ['issuer', { issuer: 'someone-else' }],
    ['audience', { audience: 'another-api' }],
  ])('rejects a token for another %s', async (_case, options) => {
    const token = await signDevToken(principal, options);

    expect(await outcome(`Bearer ${token}`)).toBe('InvalidToken: token rejected: ERR_JWT_CLAIM_VALIDATION_FAILED');
  });

  it.each([
    ['no tenancy claims at all', {}],
    ['no tenantId', { websiteId: 1, userId: 3 }],
    ['no userId', { tenantId: 7, websiteId: 1 }],
    ['a fractional tenantId', { ...principal, tenantId: 7.5 }],
    ['a zero tenantId', { ...principal, tenantId: 0 }],
    ['a negative websiteId', { ...principal, websiteId: -1 }],
    ['a tenantId beyond int32', { ...principal, tenantId: 2 ** 31 }],
    ['a tenantId that is not a number', { ...principal, tenantId: 'seven' }],
    ['an organisationId with the key separator #', { ...principal, organisationId: 'org#1' }],
    ['an organisationId with a control character', { ...principal, organisationId: 'org\u0000' }],
    ['an organisationId longer than 128 characters', { ...principal, organisationId: 'o'.repeat(129) }],
  ])('rejects a validly signed token with %s', async (_case, claims) => {
    const token = await signClaims(claims);

    expect(await outcome(`Bearer ${token}`)).toBe('InvalidToken: token lacks tenancy claims');
  });

  it('never puts the token in its reason', async () => {
    const token = await signDevToken(principal, { secret: 'another-secret-that-is-long-enough-to-be-used-here' });

    expect(await outcome(`Bearer ${token}`)).not.toContain(token.split('.')[1]);
  });
});

describe('tokenVerifierConfigFromEnv', () => {
  it('configures HS256 from AUTH_HS256_SECRET with the local issuer and audience by default', () => {
    expect(tokenVerifierConfigFromEnv({ AUTH_HS256_SECRET: localDevSecret })).toEqual({
      mode: 'hs256',
      secret: localDevSecret,
      issuer: localIssuer,
      audience: defaultAudience,
    });
  });

  it('prefers JWKS when AUTH_JWKS_URL is set', () => {
    expect(
      tokenVerifierConfigFromEnv({ AUTH_JWKS_URL: 'https://idp.example/jwks', AUTH_ISSUER: 'https://idp.example/', AUTH_HS256_SECRET: localDevSecret }),
    ).toEqual({ mode: 'jwks', jwksUrl: 'https://idp.example/jwks', issuer: 'https://idp.example/' });
  });

  it.each([
    ['nothing is configured', {}, 'Token verification is not configured: set AUTH_JWKS_URL and AUTH_ISSUER, or AUTH_HS256_SECRET'],
    ['JWKS has no issuer', { AUTH_JWKS_URL: 'https://idp.example/jwks' }, 'AUTH_ISSUER must be set with AUTH_JWKS_URL'],
    ['the HS256 secret is short', { AUTH_HS256_SECRET: 'short' }, 'AUTH_HS256_SECRET must be at least 32 characters'],
  ])('fails fast when %s', (_case, env, message) => {
    expect(() => tokenVerifierConfigFromEnv(env)).toThrow(message);
  });
});

describe('principal and the authorizer context', () => {
  it('round-trips through the context, as numbers or as the strings API Gateway makes of them', () => {
    const context = toAuthorizerContext({ ...principal, organisationId: 'org-1' });
    const asStrings = Object.fromEntries(Object.entries(context).map(([key, value]) => [key, String(value)]));

    expect([context, principalFromAuthorizerContext(context), principalFromAuthorizerContext(asStrings)]).toEqual([
      { tenantId: 7, websiteId: 1, userId: 3, organisationId: 'org-1' },
      { ...principal, organisationId: 'org-1' },
      { ...principal, organisationId: 'org-1' },
    ]);
  });

  it('leaves organisationId out of the context when there is none', () => {
    expect(toAuthorizerContext(principal)).toStrictEqual({ tenantId: 7, websiteId: 1, userId: 3 });
  });

  it.each([undefined, null, {}, { tenantId: '7' }, { tenantId: '', websiteId: '1', userId: '3' }])(
    'reads no principal from %j',
    (context) => {
      expect(principalFromAuthorizerContext(context)).toBeUndefined();
    },
  );
});
