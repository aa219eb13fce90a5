// End to end: bad input to the payment operations gets a 4xx problem and changes nothing: the tenant's items are the
// same after each refused request (wrong types, prototype keys, oversized lists, bad money, card data, edits,
// contradicting flags, bad path ids and Idempotency-Keys, refunds the payment cannot take).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { toForm, toXml } from '../../support/bodies';
import { api, tokenFor } from '../../support/http';
import { viewOf } from '../../support/responses';
import { freshTenantId, openTenantTable } from '../../support/tenant-items';
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

const many = (count: number, item: object) => Array.from({ length: count }, () => item);

const refusedPayments: [string, unknown, number][] = [
  ['no Object', {}, 400],
  ['a non-zero ID (payments are not edited)', { Object: { ID: 1, Amount: 10 } }, 400],
  ['a zero amount', { Object: { Amount: 0 } }, 400],
  ['a negative amount', { Object: { Amount: -1 } }, 400],
  ['three decimals in AUD', { Object: { Amount: 1.005 } }, 400],
  ['a fraction of a yen', { Object: { Amount: 1.5, Currency: 'JPY' } }, 400],
  ['four decimals in KWD', { Object: { Amount: 1.0005, Currency: 'KWD' } }, 400],
  ['an unknown currency', { Object: { Amount: 1, Currency: 'XYZ' } }, 400],
  ['a prototype name as currency', { Object: { Amount: 1, Currency: '__proto__' } }, 400],
  ['a string amount', { Object: { Amount: '10' } }, 400],
  ['a number for a string', { Object: { Amount: 1, RefNumber: 5 } }, 400],
  ['a CVV', { Object: { Amount: 1, CreditCard: { CardVerificationNumber: '123' } } }, 400],
  ['an 11-digit card number', { Object: { Amount: 1, CreditCard: { CardNumber: '41111111111' } } }, 400],
  ['a card number failing Luhn', { Object: { Amount: 1, CreditCard: { CardNumber: '4111111111111112' } } }, 400],
  ['a masked card number', { Object: { Amount: 1, CreditCard: { CardNumber: '411111******1111' } } }, 400],
  ['a refund claim', { Object: { Amount: 1, IsRefund: true, OriginalPaymentID: 1 } }, 400],
  ['a refund status', { Object: { Amount: 1, Status: 'Refunded' } }, 400],
  ['IsQueue (recording is never queued)', { IsQueue: true, Object: { Amount: 1 } }, 400],
  ['501 RefBusTrans', { Object: { Amount: 1, RefBusTrans: many(501, { ID: 1 }) } }, 400],
  ['501 InvoicePaymentAllocations', { Object: { Amount: 1, InvoicePaymentAllocations: many(501, { ID: 1 }) } }, 400],
  ['501 PaymentLogs', { Object: { Amount: 1, PaymentLogs: many(501, { Code: 'X' }) } }, 400],
  ['a payment too large for one DynamoDB item', { Object: { Amount: 1, RefBusTrans: many(120, { Summary: 'x'.repeat(4000) }) } }, 413],
  ['an unknown field', { Object: { Amount: 1, amount: 2 } }, 400],
  ['a __proto__ key', JSON.parse('{"Object":{"Amount":1,"__proto__":{"IsAdmin":true}}}') as unknown, 400],
  ['a constructor key', { Object: { Amount: 1, CreditCard: { constructor: { prototype: 1 } } } }, 400],
  ['another tenant', { TenantID: tenant + 1, Object: { Amount: 1 } }, 403],
];

const refusedRefunds: [string, () => number, unknown, number][] = [
  ['a zero amount', () => paymentId, { Object: { Amount: 0 } }, 400],
  ['a negative amount', () => paymentId, { Object: { Amount: -0.01 } }, 400],
  ['three decimals', () => paymentId, { Object: { Amount: 0.001 } }, 400],
  ['another currency', () => paymentId, { Object: { Amount: 1, Currency: 'USD' } }, 400],
  ['a CVV', () => paymentId, { Object: { CreditCard: { CardVerificationNumber: '123' } } }, 400],
  ['a field that is not a refund detail', () => paymentId, { Object: { Amount: 1, CustomerID: 3 } }, 400],
  ['IsQueue with IsRunNow', () => paymentId, { IsQueue: true, IsRunNow: true, Object: { Amount: 1 } }, 400],
  ['a __proto__ key', () => paymentId, JSON.parse('{"Object":{"__proto__":{"Amount":1}}}') as unknown, 400],
  ['more than the refundable balance', () => paymentId, { Object: { Amount: 6.01 } }, 409],
  ['a refund of a refund', () => refundId, { Object: { Amount: 1 } }, 409],
  ['a pending payment', () => refundId + 1, { Object: { Amount: 1 } }, 409],
  ['an inactive payment', () => refundId + 2, { Object: { Amount: 1 } }, 409],
  ['a payment that does not exist', () => 999_999, { Object: { Amount: 1 } }, 404],
];

const unchanged = async (send: () => Promise<{ status: number }>, status: number) => {
  const before = await table.items(tenant);
  expect((await send()).status).toBe(status);
  expect(await table.items(tenant)).toEqual(before);
};

describe('POST /Payment refuses', () => {
  it.each(refusedPayments)('%s (%#) and stores nothing', async (_case, body, status) => {
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
});

describe('POST /Payment/{id}/refund refuses', () => {
  it.each(refusedRefunds)('%s and changes nothing', async (_case, id, body, status) => {
    await unchanged(() => postRefund(token, id(), body as Record<string, never>), status);
  });

  it('says how much can still be refunded', async () => {
    const refused = await postRefund(token, paymentId, { Object: { Amount: 6.01 } });
    expect(refused.json).toMatchObject({ status: 409, RefundableAmount: 6, Currency: 'AUD', errors: [{ pointer: '/Object/Amount' }] });
  });
});

describe('paths and headers', () => {
  it.each(['0', '-1', '1.5', 'abc', '2147483648', '%20'])('answers 400 to the path id %j', async (id) => {
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
