// End to end: bad input to the payment operations gets a 4xx problem and changes nothing: the tenant's items are the
// same after each refused request (wrong types, prototype keys, oversized lists, bad money, card data, edits,
// contradicting flags, bad path ids and Idempotency-Keys, refunds the payment cannot take).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { toForm, toXml } from '#test/support/bodies';
import { api, tokenFor } from '#test/support/http';
import { viewOf } from '#test/support/responses';
import { refusedPathIds, refusedPayments, refusedRefunds, type RefundTarget } from '#test/support/refused-bodies';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { getPayment, postPayment, postRefund } from './support';

const tenant = freshTenantId();
const table = openTenantTable();
let token: string;
let paymentId: number;
let refundId: number;

beforeAll(async () => {
  token = await tokenFor({ tenant });
  paymentId = (await postPayment(token, { Object: { Amount: 10 } })).json.Object.ID as number;
  refundId = (await postRefund(token, paymentId, { Object: { Amount: 4 } })).json.Object.ID as number;
  await postPayment(token, { Object: { Amount: 5, Status: 'Pending' } });
  await postPayment(token, { Object: { Amount: 5, IsActive: false } });
});
afterAll(() => table.close());

const refundTargets = (): Record<RefundTarget, number> => ({
  payment: paymentId,
  refund: refundId,
  pending: refundId + 1,
  inactive: refundId + 2,
  missing: 999_999,
});

const refusedPaymentCases = refusedPayments(tenant).map(([name, body, status]) => [name, body, status] as const);
const refusedRefundCases = refusedRefunds.map(([name, target, body, status]) => [name, () => refundTargets()[target], body, status] as const);

const unchanged = async (send: () => Promise<{ status: number }>, status: number) => {
  const before = await table.items(tenant);
  expect((await send()).status).toBe(status);
  expect(await table.items(tenant)).toEqual(before);
};

describe('POST /Payment refuses', () => {
  it.each(refusedPaymentCases)('%s (%#) and stores nothing', async (_case, body, status) => {
    await unchanged(async () => {
      const response = await postPayment(token, body as Record<string, never>);
      expect(viewOf(response).headers['content-type']).toBe('application/problem+json; charset=utf-8');
      return response;
    }, status);
  });

  it('refuses the same bad bodies as XML and forms', async () => {
    for (const [type, body] of [
      ['application/xml', toXml('SaveRequestPaymentT', { Object: { Amount: 1.005 } })],
      ['text/xml', toXml('SaveRequestPaymentT', { Object: { Amount: 'ten' } })],
      ['application/x-www-form-urlencoded', toForm({ Object: { Amount: 1, CreditCard: { CardVerificationNumber: '123' } } })],
      ['application/x-www-form-urlencoded', 'Object[__proto__][Amount]=1'],
      ['application/xml', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><SaveRequestPaymentT><Object><Amount>1</Amount></Object></SaveRequestPaymentT>'],
    ] as const) {
      await unchanged(() => api('/Payment', { method: 'POST', token, body, headers: { 'Content-Type': type } }), 400);
    }
  });

  it.each(['1e3', '-1', '01'])('refuses a form list index [%s] (read as a one-item list before), naming the field', async (index) => {
    const field = `Object[RefBusTrans][${index}][ID]`;
    await unchanged(async () => {
      const response = await api('/Payment', {
        method: 'POST',
        token,
        body: `Object[Amount]=1&${encodeURIComponent(field).replace(/%5B/g, '[').replace(/%5D/g, ']')}=1`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(response.json).toMatchObject({
        status: 400,
        type: expect.stringMatching(/malformed-body$/),
        detail: `The form field "${field}" has a list index that is not a whole number from 0 to 499 in plain digits.`,
      });
      return response;
    }, 400);
  });
});

describe('POST /Payment/{id}/refund refuses', () => {
  it.each(refusedRefundCases)('%s and changes nothing', async (_case, id, body, status) => {
    await unchanged(() => postRefund(token, id(), body as Record<string, never>), status);
  });

  it('says how much can still be refunded', async () => {
    const refused = await postRefund(token, paymentId, { Object: { Amount: 6.01 } });
    expect(refused.json).toMatchObject({ status: 409, RefundableAmount: 6, Currency: 'AUD', errors: [{ pointer: '/Object/Amount' }] });
  });
});

describe('paths and headers', () => {
  it.each(refusedPathIds)('answers 400 to the path id %j', async (id) => {
    await unchanged(() => getPayment(token, id), 400);
    await unchanged(() => postRefund(token, id, { Object: { Amount: 1 } }), 400);
  });

  it.each(['', 'x'.repeat(256), 'with space', 'naïve'])('answers 400 to the Idempotency-Key %j', async (key) => {
    await unchanged(
      () => api('/Payment', { method: 'POST', token, body: { Object: { Amount: 1 } }, headers: { 'Idempotency-Key': key } }),
      400,
    );
  });

  it('still shows the payment as it was', async () => {
    expect((await getPayment(token, paymentId)).json.Value).toMatchObject({ RefundedAmount: 4, Balance: 6, Version: 2 });
  });
});
