// End to end: every value the API accepts can be stored (issue 14, section 2); a lookup by a text whose key would be
// too long once normalised finds nothing without asking DynamoDB (a 500 before). A number DynamoDB cannot store, or
// one a double does not hold exactly as written, is refused with 400 and a pointer, in JSON, XML and forms, in every
// area; a record too large for one DynamoDB item is refused with 413 naming its size and the limit. Either way the
// tenant's items are unchanged, its ID sequences included: the next create gets the ID the refused one would have had.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { toForm, toXml } from '#test/support/bodies';
import { api, tokenFor, type ApiResponse } from '#test/support/http';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { postPayment } from '#test/e2e/payments/support';
import { saveReceipt } from '#test/e2e/delivery-receipts/support';
import { quarterHourly, saveTask } from '#test/e2e/scheduled-tasks/support';

const tenant = freshTenantId();
const table = openTenantTable();
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant });
});
afterAll(() => table.close());

const many = <T,>(count: number, item: T): T[] => Array.from({ length: count }, () => item);

interface Sent {
  readonly path: string;
  readonly body: string;
  readonly type: string;
}

const json = (path: string, body: string | object): Sent => ({ path, body: typeof body === 'string' ? body : JSON.stringify(body), type: 'application/json' });
const xml = (path: string, root: string, body: object): Sent => ({ path, body: toXml(root, body as never), type: 'application/xml' });
const form = (path: string, body: string): Sent => ({ path, body, type: 'application/x-www-form-urlencoded' });

const send = ({ path, body, type }: Sent): Promise<ApiResponse<Record<string, unknown>>> =>
  api<Record<string, unknown>>(path, { method: 'POST', token, body, headers: { 'Content-Type': type } });

/** Sends a request that must be refused, and proves the tenant's items (sequences included) did not change. */
const refusedUnchanged = async (request: Sent, status: number) => {
  const before = await table.items(tenant);
  const response = await send(request);
  expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status, type: 'application/problem+json; charset=utf-8' });
  expect(await table.items(tenant)).toEqual(before);
  return response;
};

const task = (extra: object) => ({ ...quarterHourly, ...extra });
const payments = '/Payment';
const receipts = '/v2/DeliveryReceipt/';
const tasks = '/ScheduledTasks/';
const locations = '/TenantLocation/Save';
const inexact = '0.1000000000000000000000000000000000000001';

const refusedNumbers: [string, Sent, string][] = [
  // The examples.
  ['a payment with ExchangeRate 1e-300', json(payments, { Object: { Amount: 1, ExchangeRate: 1e-300 } }), '/Object/ExchangeRate'],
  ['TotalInc 1e-200 in RefBusTrans (XML)', xml(payments, 'SaveRequestPaymentT', { Object: { Amount: 1, RefBusTrans: [{ TotalInc: 1e-200 }] } }), '/Object/RefBusTrans/0/TotalInc'],
  ['TotalInc 1e-200 in PurchaseOrders', json(receipts, { Value: { SupplierName: 'S', PurchaseOrders: [{ TotalInc: 1e-200 }] } }), '/Value/PurchaseOrders/0/TotalInc'],
  ['CreditLimit 1e-200 in a task', json(tasks, task({ AdaptorDetails: { DefaultCustomerClass: { CreditLimit: 1e-200 } } })), '/AdaptorDetails/DefaultCustomerClass/CreditLimit'],
  // More of each class: tiny magnitudes of either sign, in every format and area.
  ['ExchangeRate -1e-131 (form)', form(payments, 'Object[Amount]=1&Object[ExchangeRate]=-1e-131'), '/Object/ExchangeRate'],
  ['TotalInc 5e-324 in RefBusTrans (JSON)', json(payments, '{"Object":{"Amount":1,"RefBusTrans":[{"TotalInc":5e-324}]}}'), '/Object/RefBusTrans/0/TotalInc'],
  ['TotalInc 1e-200 in PurchaseOrders (XML)', xml(receipts, 'ActionRequestDeliveryReceiptT', { Value: { SupplierName: 'S', PurchaseOrders: [{ TotalInc: 1e-200 }] } }), '/Value/PurchaseOrders/0/TotalInc'],
  ['a line cost of 1e-300', json(receipts, { Value: { Lines: [{ InventoryID: 1, CostPriceEx: 1e-300 }] } }), '/Value/Lines/0/CostPriceEx'],
  ['FundingRate -1e-150 in a task', json(tasks, task({ AdaptorDetails: { DefaultCustomerClass: { FundingRate: -1e-150 } } })), '/AdaptorDetails/DefaultCustomerClass/FundingRate'],
  ['Latitude 1e-300', json(locations, { Name: 'L', Address: { Latitude: 1e-300 } }), '/Address/Latitude'],
  ['Longitude -1e-200 (XML)', xml(locations, 'TenantLocationInfo', { Name: 'L', Address: { Longitude: -1e-200 } }), '/Address/Longitude'],
  ['Latitude 1e-131 (form)', form(locations, 'Name=L&Address[Latitude]=1e-131'), '/Address/Latitude'],
  // Digits a double does not hold: the stored value would not be the one sent.
  ['an ExchangeRate of 41 significant digits', json(payments, `{"Object":{"Amount":1,"ExchangeRate":${inexact}}}`), '/Object/ExchangeRate'],
  ['an ExchangeRate of 41 significant digits (XML)', xml(payments, 'SaveRequestPaymentT', { Object: { Amount: 1, ExchangeRate: inexact } }), '/Object/ExchangeRate'],
  ['a Latitude a double rounds', json(locations, '{"Name":"L","Address":{"Latitude":-33.86881234567890123456}}'), '/Address/Latitude'],
  ['a Longitude a double rounds (form)', form(locations, `Name=L&Address[Longitude]=${inexact}`), '/Address/Longitude'],
  ['a CreditLimit a double rounds', json(tasks, `{"Name":"Export","TaskTypeID":7,"IsRecurringSchedule":true,"Interval":15,"IntervalType":1,"TimeOfDay":"2026-01-01T00:00:00Z","AdaptorDetails":{"DefaultCustomerClass":{"CreditLimit":1000.0000000000000000000001}}}`), '/AdaptorDetails/DefaultCustomerClass/CreditLimit'],
  ['a TotalInc a double rounds in PurchaseOrders', json(receipts, `{"Value":{"PurchaseOrders":[{"TotalInc":${inexact}}]}}`), '/Value/PurchaseOrders/0/TotalInc'],
  ['an integer past 2^53', json(receipts, '{"Value":{"Lines":[{"InventoryID":1,"QuantityOrdered":9007199254740993}]}}'), '/Value/Lines/0/QuantityOrdered'],
];

describe('numbers DynamoDB cannot store as sent are refused with 400 and change nothing', () => {
  it.each(refusedNumbers)('%s', async (_case, request, pointer) => {
    const response = await refusedUnchanged(request, 400);
    expect(response.json).toMatchObject({ status: 400, errors: expect.arrayContaining([expect.objectContaining({ pointer })]) });
  });
});

describe('a refusal stays small whatever the body holds (at most 100 errors, pointers of at most 2,048 characters)', () => {
  // Both were a 502 (the answer exceeded the 6 MB a Lambda function may return) before problems bounded their errors.
  it('170,000 numbers out of range in a 1 MiB body: 400 listing the first 100, nothing stored', async () => {
    const body = `{"Name":"Many","Address":{"Latitude":[${many(170_000, '1e999').join(',')}]}}`;
    const response = await refusedUnchanged(json(locations, body), 400);
    expect(response.json.errors).toEqual(many(100, 0).map((_, index) => ({ pointer: `/Address/Latitude/${index}`, detail: expect.any(String) })));
  });

  it('a member name of 900,000 < in a body refused in XML: 400, the pointer cut to an ancestor, nothing stored', async () => {
    const before = await table.items(tenant);
    const name = '<'.repeat(900_000);
    const response = await api(locations, { method: 'POST', token, body: JSON.stringify({ Name: 'Long', Address: { [name]: [1e999, 1e999] } }), headers: { 'Content-Type': 'application/json', Accept: 'application/xml' } });
    expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status: 400, type: 'application/problem+xml; charset=utf-8' });
    expect(response.text.length).toBeLessThan(10_000);
    expect(response.text).toContain('<pointer>/Address</pointer>');
    expect(await table.items(tenant)).toEqual(before);
  });
});

describe('numbers at the edge of what DynamoDB stores are stored as sent', () => {
  it('keeps 1e-130, 1.5e-7 and 17 significant digits exactly', async () => {
    const payment = await send(json(payments, { Object: { Amount: 1, ExchangeRate: 1e-130, RefBusTrans: [{ TotalInc: 0.30000000000000004 }] } }));
    const location = await send(json(locations, { Name: 'Edge', Address: { Latitude: -1.5e-7, Longitude: 151.20929999999998 } }));

    expect(payment.status).toBe(201);
    expect(location.status).toBe(201);
    const paymentId = (payment.json?.Object as { ID: number }).ID;
    const read = await api<{ Value: { ExchangeRate: number; RefBusTrans: { TotalInc: number }[] } }>(`/Payment/${paymentId}`, { token });
    expect(read.json?.Value).toMatchObject({ ExchangeRate: 1e-130, RefBusTrans: [{ TotalInc: 0.30000000000000004 }] });
    const stored = await api<{ Address: { Latitude: number; Longitude: number } }>(`/TenantLocation/Get/${location.json?.ID as number}`, { token });
    expect(stored.json?.Address).toMatchObject({ Latitude: -1.5e-7, Longitude: 151.20929999999998 });
  });
});

const sizeOf = (response: ApiResponse<Record<string, unknown>>) => response.json as { detail: string; ItemSize: number; ItemSizeLimit: number };

describe('records too large for one DynamoDB item are refused with 413, and the next create gets the next ID', () => {
  const tooLarge: [string, Sent, Sent, (response: ApiResponse<Record<string, unknown>>) => number][] = [
    [
      'a task whose AdaptorDetails hold about 900 KB within every field limit',
      json(tasks, task({ AdaptorDetails: { Messages: many(225, 'm'.repeat(4_000)) } })),
      json(tasks, task({ AdaptorDetails: { Messages: many(90, 'm'.repeat(4_000)) } })),
      (response) => (response.json?.Value as { ID: number }).ID,
    ],
    [
      'a payment with 120 RefBusTrans summaries of 4,000 characters',
      json(payments, { Object: { Amount: 1, RefBusTrans: many(120, { Summary: 'x'.repeat(4_000) }) } }),
      json(payments, { Object: { Amount: 1, RefBusTrans: many(90, { Summary: 'x'.repeat(4_000) }) } }),
      (response) => (response.json?.Object as { ID: number }).ID,
    ],
    [
      'a receipt header with 110 attachment captions of 4,000 characters (XML)',
      xml(receipts, 'ActionRequestDeliveryReceiptT', { Value: { SupplierName: 'S', Attachments: many(110, { Caption: 'c'.repeat(4_000) }) } }),
      json(receipts, { Value: { SupplierName: 'S', Attachments: many(90, { Caption: 'c'.repeat(4_000) }) } }),
      (response) => (response.json?.Value as { ID: number }).ID,
    ],
  ];

  it.each(tooLarge)('%s', async (_case, refused, fits, idOf) => {
    const first = await send(fits);
    expect(first.status).toBe(201);

    const response = await refusedUnchanged(refused, 413);
    const next = await send(fits);

    expect(response.json).toMatchObject({
      type: 'tag:business-platform.api,2026:problems/record-too-large',
      title: 'Record too large to store',
      status: 413,
      IsSuccess: false,
      ErrorCode: 413,
    });
    expect(sizeOf(response)).toMatchObject({ ItemSize: expect.any(Number), ItemSizeLimit: expect.any(Number) });
    expect(sizeOf(response).ItemSize).toBeGreaterThan(sizeOf(response).ItemSizeLimit);
    expect(sizeOf(response).ItemSizeLimit).toBeLessThanOrEqual(409_600);
    expect(sizeOf(response).detail).toContain(`${sizeOf(response).ItemSize} bytes`);
    expect(sizeOf(response).detail).toContain(`${sizeOf(response).ItemSizeLimit} bytes`);
    expect(next.status).toBe(201);
    expect(idOf(next)).toBe(idOf(first) + 1);
  });

  it('refuses an update that would grow a task past the limit, and keeps the stored task', async () => {
    const created = await send(json(tasks, task({ AdaptorDetails: { Messages: ['small'] } })));
    const id = (created.json?.Value as { ID: number }).ID;

    await refusedUnchanged(json(tasks, task({ ID: id, AdaptorDetails: { Messages: many(225, 'm'.repeat(4_000)) } })), 413);
    const read = await api<{ Value: { AdaptorDetails: { Messages: string[] }; Version: number } }>(`/ScheduledTasks/${id}`, { token });

    expect(read.json?.Value).toMatchObject({ Version: 1, AdaptorDetails: { Messages: ['small'] } });
  });
});

describe('a refused number leaves the sequences alone', () => {
  it('the next payment, receipt and task get the IDs the refused ones would have had', async () => {
    const first = {
      payment: await postPayment(token, { Object: { Amount: 2 } }),
      receipt: await saveReceipt(token, { SupplierName: 'S' }),
      task: await saveTask(token, task({})),
    };
    await refusedUnchanged(json(payments, { Object: { Amount: 1, ExchangeRate: 1e-300 } }), 400);
    await refusedUnchanged(json(receipts, { Value: { PurchaseOrders: [{ TotalInc: 1e-200 }] } }), 400);
    await refusedUnchanged(json(tasks, task({ AdaptorDetails: { DefaultCustomerClass: { CreditLimit: 1e-200 } } })), 400);
    const next = {
      payment: await postPayment(token, { Object: { Amount: 2 } }),
      receipt: await saveReceipt(token, { SupplierName: 'S' }),
      task: await saveTask(token, task({})),
    };

    expect(next.payment.json.Object.ID).toBe((first.payment.json.Object.ID as number) + 1);
    expect(next.receipt.json.Value.ID).toBe(first.receipt.json.Value.ID + 1);
    expect(next.task.json.Value.ID).toBe((first.task.json.Value.ID as number) + 1);
  });
});

describe('a create refused by a conflict in its write leaves the sequence alone too', () => {
  it('a location whose name is taken and a payment whose GUID is taken give their IDs back', async () => {
    const location = await send(json(locations, { Name: 'Taken' }));
    const guid = 'f6a5d1e0-8c2b-4c1e-9d3a-1b2c3d4e5f60';
    const payment = await send(json(payments, { Object: { Amount: 3, GUID: guid } }));

    await refusedUnchanged(json(locations, { Name: ' TAKEN ' }), 409);
    await refusedUnchanged(json(payments, { Object: { Amount: 3, GUID: guid.toUpperCase() } }), 409);
    const nextLocation = await send(json(locations, { Name: 'Free' }));
    const nextPayment = await send(json(payments, { Object: { Amount: 3 } }));

    expect(nextLocation.json?.ID).toBe((location.json?.ID as number) + 1);
    expect((nextPayment.json?.Object as { ID: number }).ID).toBe((payment.json?.Object as { ID: number }).ID + 1);
  });
});

describe('a text whose key would be longer than DynamoDB allows once normalised is never sent to DynamoDB', () => {
  // U+FDFA is one character that NFKC turns into 18 (33 bytes): 31 of them make a name key of over 1,024 bytes.
  const expanding = '\ufdfa'.repeat(31);

  it('GetByName with such a name, exact or as a prefix: 404 (no stored name can be it), never a 500', async () => {
    await send(json(locations, { Name: 'Main' }));
    for (const body of [{ SearchString: expanding, IsExactMatch: true }, { SearchString: expanding }, { SearchString: `main${expanding}` }]) {
      const before = await table.items(tenant);
      const response = await send(json('/TenantLocation/GetByName', body));
      expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status: 404, type: 'application/problem+json; charset=utf-8' });
      expect(await table.items(tenant)).toEqual(before);
    }
  });

  it('a receipt RefNumber of such a text, at its create or its update: 413, the receipt and the sequence as they were', async () => {
    const saved = await saveReceipt(token, { SupplierName: 'S' });
    expect(saved.status).toBe(201);
    await refusedUnchanged(json(receipts, { Value: { SupplierName: 'S', RefNumber: expanding } }), 413);
    await refusedUnchanged(json(receipts, { Value: { ID: saved.json.Value.ID, RefNumber: expanding } }), 413);
  });
});
