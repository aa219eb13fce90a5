// End to end: the original platform's own payment sample (its public client's `Json Examples/Payment/`, as fixtures in
// test/support/fixtures/platform/), posted unchanged, keeps the platform's meaning: the payment's date is the
// sample's DateTime (no offset: UTC), stored and answered as such, with the derived strings in the platform's format;
// our answers carry the platform's field names, envelopes included.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusTrans, PaymentT } from '#shared/schemas/payment';
import { SynkValidation } from '#shared/schemas/synk-validation';
import { tokenFor } from '#test/support/http';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { getPayment, postPayment } from './support';

const fixture = <T>(name: string): T => JSON.parse(readFileSync(`test/support/fixtures/platform/${name}`, 'utf8')) as T;
const request = fixture<Parameters<typeof postPayment>[1]>('new-payment.json');
const sample = request.Object as { readonly DateTime: string; readonly RefNumber: string };
const platform = fixture<{
  envelopes: { SynkSaveQueueResponse: string[]; EditResponse: string[] };
  synkValidation: Record<string, string>;
  synkValidationFieldNames: string[];
  answer: Record<string, unknown> & { PaymentDateTime_utc: string; DateString: string; DateTimeString: string; PaymentDateTime_offset: number };
  paymentFieldNames: string[];
  busTransFieldNames: string[];
}>('payment-answer.json');

/** The platform writes a UTC value without an offset; the instant it names. */
const platformInstant = (text: string) => Date.parse(`${text}Z`);

const tenant = freshTenantId();
const table = openTenantTable();
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant });
});
afterAll(() => table.close());

describe("the platform's payment sample", () => {
  it("names only fields our schemas have: PaymentT, its RefBusTrans and the SynkValidation", () => {
    const names = (schema: { shape: Record<string, unknown> }) => Object.keys(schema.shape);
    expect(platform.paymentFieldNames.filter((name) => !names(PaymentT).includes(name))).toEqual([]);
    expect(platform.busTransFieldNames.filter((name) => !names(BusTrans).includes(name))).toEqual([]);
    expect(platform.synkValidationFieldNames.filter((name) => !names(SynkValidation).includes(name))).toEqual([]);
  });

  it("posted unchanged, is stored and answered at the sample's date, with the platform's envelopes and strings", async () => {
    const saved = await postPayment(token, request);
    expect(saved.status).toBe(201);
    expect(Object.keys(saved.json)).toEqual(expect.arrayContaining(platform.envelopes.SynkSaveQueueResponse));
    expect(saved.json).toMatchObject({ IsQueued: false, IsQueuePrompt: false, IsSuccess: true, Messages: [], Value: platform.synkValidation });
    const answered = saved.json.Object;
    const date = platformInstant(platform.answer.PaymentDateTime_utc);
    expect(Date.parse(sample.DateTime + 'Z')).toBe(date);
    expect(Date.parse(answered.DateTime as string)).toBe(date);
    expect(Date.parse(answered.PaymentDateTime_utc as string)).toBe(date);
    // No offset sent, none written: shown at UTC (the platform's 480 was its tenant's; see shared/payments/README.md).
    expect(answered).toMatchObject({ PaymentDateTime_offset: 0, DateString: platform.answer.DateString, DateTimeString: '21 Apr 2020 12:00 AM' });
    expect(answered).toMatchObject({
      AmountString: '$1,056.35',
      Currency: platform.answer.Currency,
      Status: platform.answer.Status,
      IsPaid: platform.answer.IsPaid,
      IsActive: platform.answer.IsActive,
      IsRefund: platform.answer.IsRefund,
      IsRefunded: platform.answer.IsRefunded,
      Method: platform.answer.Method,
      CustomerID: platform.answer.CustomerID,
      CustomerName: platform.answer.CustomerName,
      TransactionTypeDatTypeID: platform.answer.TransactionTypeDatTypeID,
      CreatedWith: platform.answer.CreatedWith,
      // Applied in full to its invoice (RefBusTrans): nothing of it is left unallocated, as the platform answers.
      Balance: platform.answer.Balance,
    });

    const stored = (await table.items(tenant)).find((item) => item.ID === answered.ID && item.RefNumber === sample.RefNumber);
    expect(stored).toMatchObject({ DateTime: '2020-04-21T00:00:00.000Z', PaymentDateTime_utc: '2020-04-21T00:00:00.000Z', PaymentDateTime_offset: 0 });

    const read = await getPayment(token, answered.ID as number);
    expect(read.status).toBe(200);
    expect(Object.keys(read.json)).toEqual(expect.arrayContaining(platform.envelopes.EditResponse));
    expect(read.json.Value).toMatchObject({
      DateTime: answered.DateTime,
      PaymentDateTime_utc: answered.PaymentDateTime_utc,
      PaymentDateTime_offset: 0,
      DateString: platform.answer.DateString,
      DateTimeString: '21 Apr 2020 12:00 AM',
      Balance: platform.answer.Balance,
    });
  });

  it("with the platform's offset (480, its tenant's), answers exactly the platform's date strings", async () => {
    const saved = await postPayment(token, { Object: { ...(request.Object as Record<string, never>), RefNumber: 'PY-SAMPLE-2', PaymentDateTime_offset: platform.answer.PaymentDateTime_offset } });
    expect(saved.status).toBe(201);
    const answered = saved.json.Object;
    expect(Date.parse(answered.PaymentDateTime_utc as string)).toBe(platformInstant(platform.answer.PaymentDateTime_utc));
    expect(answered).toMatchObject({
      PaymentDateTime_offset: platform.answer.PaymentDateTime_offset,
      DateString: platform.answer.DateString,
      DateTimeString: platform.answer.DateTimeString,
    });
    expect((await getPayment(token, answered.ID as number)).json.Value).toMatchObject({ DateTimeString: platform.answer.DateTimeString });
  });
});
