// End to end: record a payment, read it, refund it, over HTTP against the local stack: every request media type for
// POST /Payment and refund, XML answers read back, Location headers, exact partial refunds, the refunds list, queued
// refunds completed by the payments consumer, Idempotency-Key replays, and tenancy (another tenant's payment is 404).
import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { isXml, requestMediaTypes } from '#test/support/bodies';
import { tokenFor } from '#test/support/http';
import { parseXmlAs, successHeaders, viewOf } from '#test/support/responses';
import { freshTenantId } from '#test/support/tenant-items';
import { eventually } from '#test/support/document-events';
import { getPayment, postPayment, postRefund, readSchema, savedSchema } from './support';

let token: string;
let otherToken: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: freshTenantId(), user: 7 });
  otherToken = await tokenFor({ tenant: freshTenantId() });
});

const payment = {
  Amount: 120.5,
  Currency: 'AUD',
  Method: 'CreditCard',
  Description: 'Counter sale & <gift> wrap',
  IsManuallyRecorded: true,
  CustomerID: 501,
  CreditCard: { CardType: 'Visa', CardNumber: '4111111111111111', CardHolderName: 'A CUSTOMER', ExpiryMMYY: '0829' },
};

describe('POST /Payment and GET /Payment/{id}', () => {
  it.each(requestMediaTypes)('records a payment sent as %s: 201, Location, SynkSaveQueueResponse', async (type) => {
    const response = await postPayment(token, { Object: payment, IsRunNow: true }, { type });
    const view = viewOf(response);
    expect(view.status).toBe(201);
    const id = response.json.Object.ID as number;
    expect(view.headers).toMatchObject(successHeaders('application/json', { location: `/api/Payment/${id}` }));
    expect(response.json).toMatchObject({
      Object: {
        ID: id,
        RefNumber: `PY-${String(id).padStart(6, '0')}`,
        Amount: 120.5,
        AmountString: '$120.50',
        Balance: 120.5,
        RefundedAmount: 0,
        IsRefund: false,
        IsRefunded: false,
        IsPaid: true,
        Status: 'Paid',
        Version: 1,
        CreditCardLastFour: '1111',
        CreditCard: { CardType: 'Visa', CardNumber: '411111******1111', CardHolderName: 'A CUSTOMER', ExpiryMMYY: '0829' },
        Description: 'Counter sale & <gift> wrap',
        CreatedByUserID: 7,
        Refunds: [],
      },
      IsQueued: false,
      IsQueuePrompt: false,
      Value: { ID: id, GUID: response.json.Object.GUID, RefNumber: response.json.Object.RefNumber, StatusString: 'Ok', SyncStatus: 'Ready' },
      IsSuccess: true,
      Messages: [],
    });
    const read = await getPayment(token, id);
    expect(viewOf(read).status).toBe(200);
    expect(read.json).toEqual({ Value: response.json.Object, IsSuccess: true, Messages: [] });
  });

  it('answers in XML what it answers in JSON', async () => {
    const json = await postPayment(token, { Object: payment });
    // With a refund, so its Refunds list is not empty (XML cannot tell an empty optional list from an absent one).
    expect((await postRefund(token, json.json.Object.ID as number, { Object: { Amount: 0.5 } })).status).toBe(201);
    for (const accept of ['application/xml', 'text/xml']) {
      const read = await getPayment(token, json.json.Object.ID as number, accept);
      expect(viewOf(read).headers['content-type']).toBe(`${accept}; charset=utf-8`);
      expect(read.text).toMatch(/^<\?xml[^>]*\?><EditResponse_PaymentT_/);
      expect(parseXmlAs(readSchema, read.text)).toEqual((await getPayment(token, json.json.Object.ID as number)).json);
      const saved = await postPayment(token, { Object: { Amount: 1 } }, { accept });
      expect(saved.status).toBe(201);
      expect(isXml(accept) && saved.text.includes('<SynkSaveQueueResponse_PaymentT_')).toBe(true);
      expect(parseXmlAs(savedSchema, saved.text)).toMatchObject({ IsQueued: false, Object: { Amount: 1, AmountString: '$1.00' } });
    }
  });

  it("answers 404 for another tenant's payment and for one that does not exist", async () => {
    const { json } = await postPayment(token, { Object: { Amount: 5 } });
    for (const [who, id] of [
      [otherToken, json.Object.ID],
      [token, 999_999],
    ] as const) {
      expect(viewOf(await getPayment(who, id as number)).status).toBe(404);
      expect(viewOf(await postRefund(who, id as number, { Object: { Amount: 1 } })).status).toBe(404);
    }
    expect((await getPayment(token, json.Object.ID as number)).json.Value.RefundedAmount).toBe(0);
  });
});

describe('POST /Payment/{id}/refund', () => {
  it.each(requestMediaTypes)('refunds part of a payment sent as %s: a new payment record, 201 with Location', async (type) => {
    const { json: original } = await postPayment(token, { Object: { Amount: 10, Currency: 'KWD', ExchangeRate: 0.25, Method: 'Eftpos' } });
    const id = original.Object.ID as number;
    const response = await postRefund(token, id, { Object: { Amount: 2.125, Description: 'Damaged box', RefNumber: `RF-${type}` } }, { type });
    const view = viewOf(response);
    expect(view.status).toBe(201);
    const refundId = response.json.Object.ID as number;
    expect(view.headers.location).toBe(`/api/Payment/${refundId}`);
    expect(response.json.Object).toMatchObject({
      IsRefund: true,
      OriginalPaymentID: id,
      Currency: 'KWD',
      ExchangeRate: 0.25,
      Method: 'Eftpos',
      Amount: 2.125,
      Status: 'Refunded',
      RefNumber: `RF-${type}`,
      Description: 'Damaged box',
      PaymentLogs: [{ ID: 1, Code: 'REFUNDED', PaymentStatus: 'Refunded', UserID: 7, LogDateTime_utc: expect.any(String), Message: expect.any(String) }],
    });
    expect(response.json.Value).toMatchObject({ ID: refundId, RefNumber: `RF-${type}`, StatusString: 'Ok' });
    expect((await getPayment(token, id)).json.Value).toMatchObject({
      RefundedAmount: 2.125,
      Balance: 7.875,
      IsRefunded: false,
      Version: 2,
      Refunds: [{ ID: refundId, Amount: 2.125, Status: 'Refunded', RefNumber: `RF-${type}` }],
    });
    expect((await getPayment(token, refundId)).json.Value).toMatchObject({ IsRefund: true, OriginalPaymentID: id });
  });

  it('refunds 0.30 with 0.10 then 0.20, then refuses 0.01 with the refundable amount', async () => {
    const { json } = await postPayment(token, { Object: { Amount: 0.3 } });
    const id = json.Object.ID as number;
    expect((await postRefund(token, id, { Object: { Amount: 0.1 } })).status).toBe(201);
    expect((await postRefund(token, id, { Object: { Amount: 0.2 } })).status).toBe(201);
    expect((await getPayment(token, id)).json.Value).toMatchObject({ RefundedAmount: 0.3, Balance: 0, IsRefunded: true });
    const refused = await postRefund(token, id, { Object: { Amount: 0.01 } });
    expect(viewOf(refused).status).toBe(409);
    expect(refused.json).toMatchObject({
      type: 'tag:business-platform.api,2026:problems/refund-exceeds-balance',
      status: 409,
      RefundableAmount: 0,
      Currency: 'AUD',
    });
  });

  it('refunds the whole remaining balance when no amount is given, with an empty body', async () => {
    const { json } = await postPayment(token, { Object: { Amount: 50 } });
    const id = json.Object.ID as number;
    await postRefund(token, id, { Object: { Amount: 20 } });
    const rest = await postRefund(token, id, undefined);
    expect(rest.status).toBe(201);
    expect(rest.json.Object.Amount).toBe(30);
    expect((await getPayment(token, id)).json.Value).toMatchObject({ IsRefunded: true, Balance: 0 });
    expect((await postRefund(token, rest.json.Object.ID as number, undefined)).status).toBe(409);
  });

  it('queues a refund (202, IsQueued) and the payments consumer completes it', async () => {
    const { json } = await postPayment(token, { Object: { Amount: 10 } });
    const id = json.Object.ID as number;
    const queued = await postRefund(token, id, { IsQueue: true, Object: { Amount: 4 } });
    expect(viewOf(queued).status).toBe(202);
    expect(queued.json).toMatchObject({ IsQueued: true, IsQueuePrompt: false, Object: { Status: 'Queued', Amount: 4, IsPaid: false } });
    expect(queued.headers.get('location')).toBe(`/api/Payment/${queued.json.Object.ID as number}`);
    const done = await eventually(
      async () => {
        const read = await getPayment(token, queued.json.Object.ID as number);
        return read.json.Value.Status === 'Refunded' ? read.json.Value : undefined;
      },
      'the queued refund completed by the consumer',
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(done.PaymentLogs?.map((log) => log.Code)).toEqual(['REFUND_QUEUED', 'REFUNDED']);
    expect((await getPayment(token, id)).json.Value).toMatchObject({ RefundedAmount: 4, Refunds: [{ Status: 'Refunded' }] });
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body (JSON or XML), without a second record', async () => {
    const key = randomUUID();
    const body = { Object: { Amount: 33.3, CreditCard: { CardNumber: '4111111111111111', CardHolderName: 'REPLAY HOLDER' } } };
    const first = await postPayment(token, body, { key });
    const again = await postPayment(token, body, { key, type: 'application/xml' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const refundKey = randomUUID();
    const id = first.json.Object.ID as number;
    const refund = await postRefund(token, id, { Object: { Amount: 3.3 } }, { key: refundKey });
    expect((await postRefund(token, id, { Object: { Amount: 3.3 } }, { key: refundKey })).text).toBe(refund.text);
    expect((await getPayment(token, id)).json.Value).toMatchObject({ RefundedAmount: 3.3, Refunds: [{ ID: refund.json.Object.ID }] });
  });

  it('replays the same request whose members come in another order (JSON, a form), without a second record', async () => {
    // A client that rebuilds its body for the retry need not keep its serializer's member order: the order of an
    // object's members means nothing (RFC 8259), and a 422 would send it to a new key, and a second payment.
    const key = randomUUID();
    const card = { CardType: 'Visa', CardNumber: '4111111111111111', CardHolderName: 'ORDER HOLDER' };
    const first = await postPayment(token, { Object: { Amount: 12.5, Description: 'Reordered', CreditCard: card } }, { key });
    expect(first.status).toBe(201);
    const reorderedCard = { CardHolderName: 'ORDER HOLDER', CardNumber: '4111111111111111', CardType: 'Visa' };
    const reordered = { Object: { CreditCard: reorderedCard, Description: 'Reordered', Amount: 12.5 } };
    expect((await postPayment(token, reordered, { key })).text).toBe(first.text);
    expect((await postPayment(token, reordered, { key, type: 'application/x-www-form-urlencoded' })).text).toBe(first.text);
    const next = await postPayment(token, { Object: { Amount: 1 } });
    expect(next.json.Object.ID).toBe((first.json.Object.ID as number) + 1);
  });

  it('answers 422 for the same key with another body, and treats another tenant\'s same key as its own', async () => {
    const key = randomUUID();
    expect((await postPayment(token, { Object: { Amount: 1 } }, { key })).status).toBe(201);
    const reused = await postPayment(token, { Object: { Amount: 2 } }, { key });
    expect(viewOf(reused).status).toBe(422);
    expect(reused.json).toMatchObject({ type: 'tag:business-platform.api,2026:problems/idempotency-key-reused', status: 422 });
    const other = await postPayment(otherToken, { Object: { Amount: 2 } }, { key });
    expect(other.status).toBe(201);
    expect(other.json.Object.Amount).toBe(2);
  });
});
