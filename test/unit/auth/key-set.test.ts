// Unit: a provider's key set that cannot be had is not a bad token (shared/auth/tokens.ts `KeySetUnavailable`). The
// verifier fetches the JWKS from a real HTTP server on a free port: while it answers 500, answers what is not a key
// set, or is not there at all, no token can be judged, and the authorizer must fail (its ERROR line is what the
// stack's alarm counts), not answer 401 as if every valid token were bad. A token whose key the set lacks stays 401.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createTokenVerifier, InvalidToken, KeySetUnavailable } from '#shared/auth/tokens';

const issuer = 'https://idp.example/';
let answer: { status: number; body: string } = { status: 200, body: '' };
let server: Server;
let base = '';
let privateKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  answer = { status: 200, body: JSON.stringify({ keys: [jwk] }) };
  server = createServer((_request, response) => response.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const token = (kid = 'k1') =>
  new SignJWT({ tenantId: 7, websiteId: 1, userId: 3 }).setProtectedHeader({ alg: 'RS256', kid }).setIssuer(issuer).setIssuedAt().setExpirationTime('5m').sign(privateKey);

/** A verifier of its own (jose keeps a fetched key set): each case starts without one. */
const verify = async (jwksUrl: string, bearer: string) => createTokenVerifier({ mode: 'jwks', jwksUrl, issuer })(`Bearer ${bearer}`);

describe('a token verified against a remote key set', () => {
  it('is accepted when the set holds its key', async () => {
    await expect(verify(`${base}/jwks`, await token())).resolves.toMatchObject({ principal: { tenantId: 7, userId: 3 } });
  });

  it('is refused (401) when the set lacks its key', async () => {
    await expect(verify(`${base}/jwks`, await token('unknown'))).rejects.toBeInstanceOf(InvalidToken);
  });

  it.each([
    ['answers 500', { status: 500, body: 'down' }],
    ['answers 200 with what is not JSON', { status: 200, body: '<html>' }],
    ['answers 200 with what is not a key set', { status: 200, body: '{"keys":"none"}' }],
  ])('cannot be judged when the key set endpoint %s: KeySetUnavailable, not InvalidToken', async (_case, broken) => {
    const kept = answer;
    answer = broken;
    try {
      const failure = await verify(`${base}/jwks`, await token()).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(KeySetUnavailable);
    } finally {
      answer = kept;
    }
  });

  it('cannot be judged when nothing answers at the key set endpoint', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await verify(`http://127.0.0.1:${port}/jwks`, await token()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KeySetUnavailable);
  });

  it('is refused (401) when the set lacks its key and fetching the set again fails, while the set held is fresh', async () => {
    const verifier = createTokenVerifier({ mode: 'jwks', jwksUrl: `${base}/jwks`, issuer });
    await expect(verifier(`Bearer ${await token()}`)).resolves.toBeDefined();
    const kept = answer;
    answer = { status: 500, body: 'down' };
    try {
      // jose fetches again for a kid it lacks once its 30 s cool-down has passed: moved past it here.
      const later = Date.now() + 31_000;
      const now = jest.spyOn(Date, 'now').mockReturnValue(later);
      try {
        await expect(verifier(`Bearer ${await token('unknown')}`)).rejects.toBeInstanceOf(InvalidToken);
      } finally {
        now.mockRestore();
      }
    } finally {
      answer = kept;
    }
  });

  it('is refused (401) before any key is fetched when it is malformed', async () => {
    await expect(verify('http://127.0.0.1:1/jwks', 'a.b.c')).rejects.toBeInstanceOf(InvalidToken);
  });
});
