// End to end (issue 14, section 1): a header that may appear once, sent on two lines through the local stack, in every
// case form (the same case twice, two cases; the same value twice, two values), is refused with a 400 problem naming
// it, before routing and the authorizer, and changes nothing. The cross-tenant sequence of the issue (token A and
// token B on two lines, then token B alone) no longer reads tenant A's data, and a repeated Idempotency-Key cannot
// make a second refund.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, apiLines, tokenFor, type ApiResponse } from '#test/support/http';
import { gatewayProblemHeaders, problem, viewOf } from '#test/support/responses';
import { freshTenantId, openTenantTable, type TenantTable } from '#test/support/tenant-items';

const tenantA = freshTenantId();
const tenantB = freshTenantId();
let table: TenantTable;
let tokenA: string;
let tokenB: string;
let paymentA: number;

beforeAll(async () => {
  table = openTenantTable();
  [tokenA, tokenB] = await Promise.all([tokenFor({ tenant: tenantA }), tokenFor({ tenant: tenantB })]);
  const created = await api<{ Object: { ID: number } }>('/Payment', { token: tokenA, body: { Object: { Amount: 10 } } });
  expect(created.status).toBe(201);
  paymentA = created.json.Object.ID;
});

afterAll(() => table.close());

const repeated = (header: string) => ({
  status: 400,
  headers: gatewayProblemHeaders(),
  body: problem({
    status: 400,
    title: 'Bad Request',
    detail: `The ${header} header appears on more than one line (header names are case-insensitive); send it once.`,
  }),
});

/** The four case forms of a header on two lines: same case or two cases, the same value or two values. */
const caseForms = (name: string, same: string, [first, second]: readonly [string, string]) =>
  [
    ['the same case, the same value', [name, same], [name, same]],
    ['the same case, two values', [name, first], [name, second]],
    ['two cases, the same value', [name, same], [name.toLowerCase(), same]],
    ['two cases, two values', [name, first], [name.toLowerCase(), second]],
    ['upper case first, two values', [name.toUpperCase(), first], [name, second]],
  ] as const;

describe.each([
  ['Authorization', 'Bearer <A>', ['Bearer <A>', 'Bearer <B>']],
  ['Content-Type', 'application/json', ['application/xml', 'application/json']],
  ['Content-Encoding', 'identity', ['gzip', 'identity']],
  ['Idempotency-Key', 'key-1', ['key-1', 'key-2']],
  ['Host', '127.0.0.1', ['127.0.0.1', 'elsewhere.example']],
] as const)('%s on two lines', (name, same, different) => {
  const resolve = (value: string) => value.replace('<A>', tokenA).replace('<B>', tokenB);

  it.each(caseForms(name, same, different))('%s: 400 naming the header, nothing stored', async (_form, one, two) => {
    const before = await table.items(tenantA);
    const lines: [string, string][] = [
      ...(name === 'Authorization' ? [] : ([['Authorization', `Bearer ${tokenA}`]] as [string, string][])),
      ...(name === 'Content-Type' ? [] : ([['Content-Type', 'application/json']] as [string, string][])),
      [one[0], resolve(one[1])],
      [two[0], resolve(two[1])],
    ];

    const response = await apiLines('/Payment', { method: 'POST', lines, body: JSON.stringify({ Object: { Amount: 1 } }) });

    expect(viewOf(response)).toEqual(repeated(name));
    expect(await table.items(tenantA)).toEqual(before);
  });
});

describe('the webhook', () => {
  it.each([
    ['Content-Type', 'application/json', 'content-type', 'application/json'],
    ['Content-Encoding', 'identity', 'CONTENT-ENCODING', 'gzip'],
  ])('refuses %s on two lines the same way (it has no bearer token, so nothing but the lines decides)', async (first, firstValue, second, secondValue) => {
    const lines: [string, string][] = [[first, firstValue], [second, secondValue]];
    if (first !== 'Content-Type') lines.unshift(['Content-Type', 'application/json']);

    const response = await apiLines('/Platform/DocumentAnalyser/Provider/Webhook', { method: 'POST', lines, body: '{"type":"document.uploaded"}' });

    expect(viewOf(response)).toEqual(repeated(first));
  });
});

describe('Content-Length on two lines', () => {
  it.each([
    ['the same value', '2', '2'],
    ['two values', '2', '3'],
  ])('%s, in two cases: 400 problem (node:http refuses the framing), nothing stored', async (_case, first, second) => {
    const before = await table.items(tenantA);

    const response = await apiLines('/Payment', {
      method: 'POST',
      lines: [['Authorization', `Bearer ${tokenA}`], ['Content-Type', 'application/json'], ['Content-Length', first], ['content-length', second]],
      body: '{}',
    });

    expect(viewOf(response)).toEqual({ status: 400, headers: gatewayProblemHeaders(), body: problem({ status: 400, title: 'Bad Request' }) });
    expect(await table.items(tenantA)).toEqual(before);
  });
});

describe('the cross-tenant sequence of issue 14', () => {
  const get = (path: string, authorizations: readonly (readonly [string, string])[]) => apiLines(path, { lines: authorizations });
  const view = (response: ApiResponse) => ({ status: response.status, body: response.json });

  it.each([
    ['A then B', () => [['Authorization', `Bearer ${tokenA}`], ['authorization', `Bearer ${tokenB}`]] as const],
    ['B then A', () => [['Authorization', `Bearer ${tokenB}`], ['authorization', `Bearer ${tokenA}`]] as const],
    ['A then B, same case', () => [['Authorization', `Bearer ${tokenA}`], ['Authorization', `Bearer ${tokenB}`]] as const],
  ])('token lines %s are refused, and token B alone then reads and writes only tenant B', async (_order, lines) => {
    const path = `/Payment/${paymentA}`;
    // Tenant A reads its payment (the authorizer's answer for A is now cached).
    expect((await get(path, [['Authorization', `Bearer ${tokenA}`]])).status).toBe(200);
    const itemsOfA = await table.items(tenantA);

    expect(viewOf(await get(path, lines()))).toEqual(repeated('Authorization'));

    // Token B alone, within the cache's TTL: tenant A's payment does not exist for it (tenant B has no payment at
    // all), and its writes land in tenant B. (A location, so tenant B's payment IDs stay unused.)
    const asB = await get(path, [['Authorization', `Bearer ${tokenB}`]]);
    expect(view(asB)).toEqual({ status: 404, body: expect.objectContaining({ status: 404 }) });
    const written = await api<{ ID: number; TenantID: number }>('/TenantLocation/Save', { token: tokenB, body: { Name: `B ${randomUUID()}` } });
    expect({ status: written.status, tenant: written.json.TenantID }).toEqual({ status: 201, tenant: tenantB });
    expect(await table.location(tenantB, written.json.ID)).toBeDefined();
    expect(await table.items(tenantA)).toEqual(itemsOfA);
  });
});

describe('Idempotency-Key on two lines of a refund', () => {
  it('is refused and writes nothing; a retry with the first key then refunds once', async () => {
    const created = await api<{ Object: { ID: number } }>('/Payment', { token: tokenA, body: { Object: { Amount: 10 } } });
    const id = created.json.Object.ID;
    const [first, second] = [randomUUID(), randomUUID()];
    const before = await table.items(tenantA);
    const refund = (lines: readonly (readonly [string, string])[]) =>
      apiLines<{ Object: { ID: number } }>(`/Payment/${id}/refund`, {
        method: 'POST',
        lines: [['Authorization', `Bearer ${tokenA}`], ['Content-Type', 'application/json'], ...lines],
        body: JSON.stringify({ Object: { Amount: 1 } }),
      });

    for (const lines of [
      [['Idempotency-Key', first], ['idempotency-key', second]],
      [['Idempotency-Key', first], ['Idempotency-Key', first]],
    ] as const) {
      expect(viewOf(await refund(lines))).toEqual(repeated('Idempotency-Key'));
    }
    expect(await table.items(tenantA)).toEqual(before);

    const once = await refund([['Idempotency-Key', first]]);
    const retried = await refund([['idempotency-key', first]]);
    expect(once.status).toBeLessThan(300);
    expect(retried.text).toBe(once.text);
    const payment = await api<{ Value: { RefundedAmount: number; Refunds: unknown[] } }>(`/Payment/${id}`, { token: tokenA });
    expect(payment.json.Value).toMatchObject({ RefundedAmount: 1, Refunds: [{ ID: once.json.Object.ID }] });
  });
});

describe('header names are case-insensitive for a once-only header on one line', () => {
  it('reads CONTENT-TYPE and idempotency-key in any case form', async () => {
    const key = randomUUID();
    const send = () =>
      apiLines<{ Object: { ID: number } }>('/Payment', {
        method: 'POST',
        lines: [['authorization', `Bearer ${tokenA}`], ['CONTENT-TYPE', 'application/json'], ['IDEMPOTENCY-KEY', key]],
        body: JSON.stringify({ Object: { Amount: 3 } }),
      });

    const first = await send();
    const again = await send();

    expect(first.status).toBe(201);
    expect(again.text).toBe(first.text);
  });
});
