// Unit tests of shared/auth/tokens.ts and principal.ts: bearer-token verification (HS256 mode), its configuration
// and the authorizer-context round trip of the principal.
import { describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import {
  epochSeconds,
  principalFromAuthorizerContext,
  tokenClockToleranceSeconds,
  tokenLapse,
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
    return (await verify(authorization)).principal;
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

  it("returns the token's validity window with the principal: exp, and nbf when the token has one", async () => {
    const exp = now() + 600;
    const plain = await signClaims({ ...principal }, { exp });
    const withNbf = await new SignJWT({ ...principal })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(localIssuer)
      .setAudience(defaultAudience)
      .setNotBefore(now() - 30)
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(localDevSecret));

    expect([await verify(`Bearer ${plain}`), await verify(`Bearer ${withNbf}`)]).toEqual([
      { principal, validity: { exp } },
      { principal, validity: { exp, nbf: now() - 30 } },
    ]);
  });

  it('rounds a fractional exp or nbf up to whole seconds, which keeps the expiry rule exact', async () => {
    const exp = now() + 600.25;
    const token = await new SignJWT({ ...principal, nbf: now() - 30.5 })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(localIssuer)
      .setAudience(defaultAudience)
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(localDevSecret));

    expect((await verify(`Bearer ${token}`)).validity).toEqual({ exp: Math.ceil(exp), nbf: now() - 30 });
  });

  it('refuses a token whose exp is beyond the safe integers (one that would never expire)', async () => {
    const token = await signClaims({ ...principal }, { exp: 1e300 });

    expect(await outcome(`Bearer ${token}`)).toBe('InvalidToken: token validity out of range');
  });

  it(`accepts a token up to ${tokenClockToleranceSeconds} s past its exp, the clock tolerance every function applies too`, async () => {
    const token = await signClaims({ ...principal }, { exp: now() - tokenClockToleranceSeconds + 2 });

    expect(await outcome(`Bearer ${token}`)).toEqual(principal);
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
  const validity = { exp: 1_767_225_600, nbf: 1_767_222_000 };

  it('round-trips through the context with its validity window, as numbers or as the strings API Gateway makes of them', () => {
    const context = toAuthorizerContext({ ...principal, organisationId: 'org-1' }, validity);
    const asStrings = Object.fromEntries(Object.entries(context).map(([key, value]) => [key, String(value)]));

    expect([context, principalFromAuthorizerContext(context), principalFromAuthorizerContext(asStrings)]).toEqual([
      { tenantId: 7, websiteId: 1, userId: 3, organisationId: 'org-1', exp: 1_767_225_600, nbf: 1_767_222_000 },
      { principal: { ...principal, organisationId: 'org-1' }, validity },
      { principal: { ...principal, organisationId: 'org-1' }, validity },
    ]);
  });

  it('leaves organisationId and nbf out of the context when there are none', () => {
    expect(toAuthorizerContext(principal, { exp: 1_767_225_600 })).toStrictEqual({ tenantId: 7, websiteId: 1, userId: 3, exp: 1_767_225_600 });
    expect(principalFromAuthorizerContext({ tenantId: '7', websiteId: '1', userId: '3', exp: '1767225600' })).toStrictEqual({
      principal,
      validity: { exp: 1_767_225_600 },
    });
  });

  it.each([
    undefined,
    null,
    {},
    { tenantId: '7' },
    { tenantId: '', websiteId: '1', userId: '3', exp: '1767225600' },
    // A context without exp (an Allow cached before the authorizer passed it on): fail closed.
    { tenantId: '7', websiteId: '1', userId: '3' },
    { tenantId: '7', websiteId: '1', userId: '3', exp: '' },
    { tenantId: '7', websiteId: '1', userId: '3', exp: '1767225600.5' },
    { tenantId: '7', websiteId: '1', userId: '3', exp: '1e10' },
    { tenantId: '7', websiteId: '1', userId: '3', exp: ' 1767225600' },
    { tenantId: '7', websiteId: '1', userId: '3', exp: '017672256' },
    { tenantId: '7', websiteId: '1', userId: '3', exp: '99999999999999999' },
    { tenantId: '7', websiteId: '1', userId: '3', exp: 1_767_225_600.5 },
    { tenantId: '7', websiteId: '1', userId: '3', exp: true },
    { tenantId: '7', websiteId: '1', userId: '3', exp: '1767225600', nbf: 'soon' },
  ])('reads no principal from %j', (context) => {
    expect(principalFromAuthorizerContext(context)).toBeUndefined();
  });
});

describe('tokenLapse: the expiry rule every function applies to a cached principal', () => {
  const exp = 1_767_225_600;
  const tolerance = tokenClockToleranceSeconds;

  it('is the verifier\'s rule: served until exp + tolerance, refused from that second on', () => {
    expect([
      tokenLapse({ exp }, exp),
      tokenLapse({ exp }, exp + tolerance - 1),
      tokenLapse({ exp }, exp + tolerance),
      tokenLapse({ exp }, exp + 3600),
    ]).toEqual([undefined, undefined, 'expired', 'expired']);
  });

  it('refuses a token whose nbf lies beyond the tolerance ahead (a function whose clock is behind the authorizer\'s)', () => {
    const nbf = exp - 600;
    expect([
      tokenLapse({ exp, nbf }, nbf - tolerance - 1),
      tokenLapse({ exp, nbf }, nbf - tolerance),
      tokenLapse({ exp, nbf }, nbf),
    ]).toEqual(['not yet valid', undefined, undefined]);
  });

  it('agrees with the verifier at the edge: the second jose refuses a token is the second a function does', async () => {
    // A token that expired exactly `tolerance` seconds ago is refused by both; one a second younger is accepted by both.
    const edge = now() - tolerance;
    const [refused, accepted] = [await signClaims({ ...principal }, { exp: edge }), await signClaims({ ...principal }, { exp: edge + 2 })];

    expect([await outcome(`Bearer ${refused}`), tokenLapse({ exp: edge }, now())]).toEqual(['InvalidToken: token rejected: ERR_JWT_EXPIRED', 'expired']);
    expect([await outcome(`Bearer ${accepted}`), tokenLapse({ exp: edge + 2 }, now())]).toEqual([principal, undefined]);
  });

  it('counts whole seconds of the clock, as jose does', () => {
    expect([epochSeconds(1_767_225_600_999), epochSeconds(1_767_225_601_000)]).toEqual([1_767_225_600, 1_767_225_601]);
  });
});
