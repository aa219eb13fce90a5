// End to end (issue 21, section 1): a token that expires between two calls, within the authorizer's cache TTL (the
// template's AuthorizerResultTtlInSeconds, 300 s, which the local gateway reads). The first call is served and its
// Allow cached; the second, once the token has expired (past exp and the clock tolerance), is refused with the same
// 401 the gateway gives an expired token it verifies itself, and a write stores nothing. The stack log shows who
// answered: the function (the cached Allow reached it) for the second call, the gateway for a token it never cached.
//
// To stay fast, the tokens are minted at the edge of the clock tolerance: their exp lies just under the tolerance in
// the past, so they are accepted for `acceptedForSeconds` more seconds and then refused; the test waits for the
// clock to pass that second (no fixed sleep).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { epochSeconds, tokenClockToleranceSeconds } from '#shared/auth/principal';
import { readStackLog } from '#test/support/document-events-http';
import { api, tokenFor, type ApiResponse } from '#test/support/http';
import { gatewayProblemHeaders, problem, viewOf } from '#test/support/responses';
import { freshTenantId, openTenantTable, type TenantTable } from '#test/support/tenant-items';

const tenant = freshTenantId();
let table: TenantTable;

/** Long enough for the first call to be served on a loaded machine (the functions are warmed first): exp is whole seconds, so the window is 5 to 6 s (at 3, a CI run's write took past its 2 to 3). */
const acceptedForSeconds = 6;

/** The gateway's own 401 (test/e2e/tenant-locations/authentication.test.ts asserts it for every refused token). */
const unauthorized = {
  status: 401,
  headers: gatewayProblemHeaders({ 'www-authenticate': 'Bearer realm="api"' }),
  body: problem({ status: 401, title: 'Unauthorized', detail: 'A valid bearer token is required.' }),
};

beforeAll(async () => {
  table = openTenantTable();
  // Warm the authorizer and both functions, so the first call of each test is served well within its window.
  const warm = await tokenFor({ tenant });
  expect((await api('/TenantLocation/Save', { token: warm, body: { Name: 'Warm-up' } })).status).toBe(201);
  expect((await api('/TenantLocation/GetAll', { token: warm })).status).toBe(200);
});

afterAll(() => table.close());

/**
 * A token the verifier accepts for `acceptedForSeconds` more seconds: its exp is that much less than the tolerance
 * ago. `refusedFromMs` is the first instant both the verifier and the functions refuse it (exp + tolerance).
 */
const tokenAtTheEdge = async () => {
  const exp = epochSeconds() - tokenClockToleranceSeconds + acceptedForSeconds;
  return { token: await tokenFor({ tenant, expiresIn: exp }), refusedFromMs: (exp + tokenClockToleranceSeconds) * 1000 };
};

/** Waits for the clock to reach `instantMs`, polling it (never longer than needed). */
const clockPast = async (instantMs: number) => {
  while (Date.now() < instantMs) await new Promise((resolve) => setTimeout(resolve, Math.min(100, instantMs - Date.now() + 1)));
};

/** The gateway's access-log line of a request: `... 401 12ms <id>` when a function answered, `... <id> UNAUTHORIZED` when the gateway did. */
const gatewayLogLineOf = async (response: ApiResponse) => {
  const requestId = response.headers.get('x-request-id') as string;
  const { text, ours } = await readStackLog([`${requestId}`]);
  return { ours, line: text.split('\n').find((line) => line.startsWith('[gateway]') && line.includes(requestId)) };
};

/** A cached refusal and a fresh one are the same answer; the log says the function gave the first, the gateway the second. */
const expectRefusedByTheFunctionAfterACacheHit = async (cachedRefusal: ApiResponse, freshRefusal: ApiResponse, route: string) => {
  expect(viewOf(cachedRefusal)).toEqual(unauthorized);
  expect(viewOf(freshRefusal)).toEqual(unauthorized);
  const [cached, fresh] = [await gatewayLogLineOf(cachedRefusal), await gatewayLogLineOf(freshRefusal)];
  if (!cached.ours || !fresh.ours) return; // another run shares the log file: only the answers can be checked
  const cachedId = cachedRefusal.headers.get('x-request-id') as string;
  const freshId = freshRefusal.headers.get('x-request-id') as string;
  expect([cached.line, fresh.line]).toEqual([
    expect.stringMatching(new RegExp(`^\\[gateway\\] ${route} 401 \\d+ms ${cachedId}$`)),
    expect.stringMatching(new RegExp(`^\\[gateway\\] ${route} 401 \\d+ms ${freshId} UNAUTHORIZED$`)),
  ]);
};

describe('a token that expires while the authorizer cache holds its Allow', () => {
  it('a read: 200 while valid, then the 401 problem with WWW-Authenticate once expired, though the Allow is still cached', async () => {
    const { token, refusedFromMs } = await tokenAtTheEdge();

    const first = await api('/TenantLocation/GetAll', { token });
    expect(first.status).toBe(200);
    expect(Date.now()).toBeLessThan(refusedFromMs); // served while valid, so its Allow is in the cache

    await clockPast(refusedFromMs);
    const second = await api('/TenantLocation/GetAll', { token });
    const neverCached = await api('/TenantLocation/GetAll', { token: await tokenFor({ tenant, expiresIn: epochSeconds() - 3600 }) });

    await expectRefusedByTheFunctionAfterACacheHit(second, neverCached, 'GET /api/TenantLocation/GetAll');
  });

  it('a write: 201 while valid, then 401 once expired, and the refused write stores nothing', async () => {
    const { token, refusedFromMs } = await tokenAtTheEdge();

    const first = await api('/TenantLocation/Save', { token, body: { Name: 'Saved while valid' } });
    expect(first.status).toBe(201);
    expect(Date.now()).toBeLessThan(refusedFromMs);

    await clockPast(refusedFromMs);
    const before = await table.items(tenant);
    const second = await api('/TenantLocation/Save', { token, body: { Name: 'Saved after expiry' } });
    const neverCached = await api('/TenantLocation/Save', {
      token: await tokenFor({ tenant, expiresIn: epochSeconds() - 3600 }),
      body: { Name: 'Saved with a token never cached' },
    });

    await expectRefusedByTheFunctionAfterACacheHit(second, neverCached, 'POST /api/TenantLocation/Save');
    expect(await table.items(tenant)).toEqual(before);
  });
});
