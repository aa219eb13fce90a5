// End to end: input that used to be accepted and must not be (issue 14, section 3), through the local stack in every
// area: dates that do not exist, JSON objects that repeat a member, tenancy fields of another tenant below the top
// level, and receipt lines that share a GUID. Each is a 4xx problem naming the field, and changes nothing: every item
// of the tenant (its partition, the ID sequences, and every partition of its receipts, tasks and stock) is the same
// after. The items are read with one Query per partition; the file's last test proves by one Scan of the whole table
// that the tenant has no item outside the partitions those Queries read.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeBody, requestMediaTypes, type RequestMediaType } from '#test/support/bodies';
import { api, tokenFor } from '#test/support/http';
import { problem, problemType, validationProblem } from '#test/support/responses';
import { freshTenantId, openTenantTable, scanBetweenQueries } from '#test/support/tenant-items';

const tenant = freshTenantId();
const table = openTenantTable();
let token: string;
let paymentId: number;
let receiptId: number;
const lineGuid = '6f1c2a4e-9b7d-4c3e-8a21-5d0f9e8b7c6a';

type Body = Parameters<typeof encodeBody>[1];

interface Route {
  readonly path: () => string;
  readonly method: 'POST' | 'PUT';
  readonly xmlRoot: string;
}

const routes = {
  payment: { path: () => '/Payment', method: 'POST', xmlRoot: 'SaveRequestPaymentT' },
  refund: { path: () => `/Payment/${paymentId}/refund`, method: 'POST', xmlRoot: 'SaveRequestPaymentT' },
  task: { path: () => '/ScheduledTasks/', method: 'POST', xmlRoot: 'ScheduledTaskXml' },
  receipt: { path: () => '/v2/DeliveryReceipt/', method: 'POST', xmlRoot: 'ActionRequestDeliveryReceiptT' },
  receiptSearch: { path: () => '/v2/DeliveryReceipt/', method: 'PUT', xmlRoot: 'SearchFilter' },
  location: { path: () => '/TenantLocation/Save', method: 'POST', xmlRoot: 'TenantLocationInfo' },
  locationSearch: { path: () => '/TenantLocation/Search', method: 'PUT', xmlRoot: 'TenantLocationFilter' },
} as const satisfies Record<string, Route>;
type RouteName = keyof typeof routes;

const send = (route: RouteName, body: Body, type: RequestMediaType = 'application/json') => {
  const { path, method, xmlRoot } = routes[route];
  const encoded = encodeBody(type, body, xmlRoot);
  return api(path(), { method, token, body: encoded.body, headers: encoded.headers });
};

const sendRaw = (route: RouteName, text: string) => {
  const { path, method } = routes[route];
  return api(path(), { method, token, body: text, headers: { 'Content-Type': 'application/json' } });
};

/** Every item of the tenant, in key order (the stock of every item a case's lines name included): what a refused request must leave exactly as it was. */
const everything = () => table.everything(tenant, { inventoryIds: [1, 2, 3] });
const itemsBefore = everything;
const expectUnchanged = async (before: Record<string, unknown>[]) => {
  expect(await everything()).toEqual(before);
};

beforeAll(async () => {
  token = await tokenFor({ tenant });
  const payment = await send('payment', { Object: { Amount: 10 } });
  expect(payment.status).toBe(201);
  paymentId = (payment.json as { Object: { ID: number } }).Object.ID;
  const receipt = await send('receipt', { Value: { SupplierName: 'Paper Co', Lines: [{ InventoryID: 1, GUID: lineGuid, QuantityOrdered: 5 }] } });
  expect(receipt.status).toBe(201);
  receiptId = (receipt.json as { Value: { ID: number } }).Value.ID;
});
afterAll(() => table.close());

describe('a date that does not exist is a 400 naming the field, in every area', () => {
  const cases: [string, RouteName, () => Body, string][] = [
    ['PaymentDateTime_utc on 30 February', 'payment', () => ({ Object: { Amount: 1, PaymentDateTime_utc: '2026-02-30T09:00:00+10:00' } }), '/Object/PaymentDateTime_utc'],
    ['PaymentDateTime_utc at hour 24', 'payment', () => ({ Object: { Amount: 1, PaymentDateTime_utc: '2026-03-01T24:00:00Z' } }), '/Object/PaymentDateTime_utc'],
    ['PaymentDateTime_utc at minute 60', 'payment', () => ({ Object: { Amount: 1, PaymentDateTime_utc: '2026-03-01T10:60:00Z' } }), '/Object/PaymentDateTime_utc'],
    ['PaymentDateTime_utc with an offset of +24:00', 'payment', () => ({ Object: { Amount: 1, PaymentDateTime_utc: '2026-03-01T10:00:00+24:00' } }), '/Object/PaymentDateTime_utc'],
    ['a SettlementDate of 31 April', 'payment', () => ({ Object: { Amount: 1, SettlementDate: '2026-04-31' } }), '/Object/SettlementDate'],
    ['a refund on 29 February 2025', 'refund', () => ({ Object: { Amount: 1, PaymentDateTime_utc: '2025-02-29T09:00:00Z' } }), '/Object/PaymentDateTime_utc'],
    ['a task TimeOfDay of 29 February 2027', 'task', () => ({ Name: 'x', TaskTypeID: 1, TimeOfDay: '2027-02-29T09:00:00+10:00' }), '/TimeOfDay'],
    ['a task token expiring on 31 June', 'task', () => ({ Name: 'x', TaskTypeID: 1, AdaptorDetails: { TokenDetails: { ExpiresAt: '2026-06-31T00:00:00Z' } } }), '/AdaptorDetails/TokenDetails/ExpiresAt'],
    ['a receipt DeliveryDate of 30 February', 'receipt', () => ({ Value: { SupplierName: 'x', DeliveryDate: '2026-02-30' } }), '/Value/DeliveryDate'],
    ['a receipt line received at second 60', 'receipt', () => ({ Value: { ID: receiptId, Lines: [{ GUID: lineGuid, ReceivedDateTime_utc: '2026-12-31T23:59:60Z' }] } }), '/Value/Lines/0/ReceivedDateTime_utc'],
    ['a receipt search from 31 April', 'receiptSearch', () => ({ StartDate: '2026-04-31T00:00:00Z' }), '/StartDate'],
    ['a location CreatedDateTime_utc of 30 February', 'location', () => ({ Name: 'Depot', CreatedDateTime_utc: '2026-02-30T00:00:00Z' }), '/CreatedDateTime_utc'],
  ];

  it.each(cases)('%s', async (_case, route, body, pointer) => {
    const before = await itemsBefore();
    for (const type of requestMediaTypes) {
      // The task's XML form (ScheduledTaskXml) has no AdaptorDetails; that case is checked in the other formats.
      if (route === 'task' && pointer.startsWith('/AdaptorDetails') && type.includes('xml')) continue;
      const response = await send(route, body(), type);
      expect({ type, status: response.status, errors: (response.json as { errors?: { pointer: string }[] }).errors?.map((error) => error.pointer) }).toEqual({
        type,
        status: 400,
        errors: [pointer],
      });
    }
    await expectUnchanged(before);
  });

  it('a leap day that exists is kept as the instant it names', async () => {
    const response = await send('payment', { Object: { Amount: 1, PaymentDateTime_utc: '2024-02-29T09:00:00+10:00' } });
    expect(response.status).toBe(201);
    expect((response.json as { Object: { PaymentDateTime_utc: string } }).Object.PaymentDateTime_utc).toBe('2024-02-28T23:00:00.000Z');
  });
});

describe('a JSON object that repeats a member is a 400 naming it, in every area', () => {
  const repeated = (pointer: string) =>
    validationProblem([{ pointer, detail: 'repeats a member name of the same object; each member may appear once' }], 'The body repeats a member name.');

  it.each([
    ['a payment of 1 or 1000', 'payment', '{"Object":{"Amount":1,"Amount":1000}}', '/Object/Amount'],
    ['a refund of 1 or 9', 'refund', '{"Object":{"Amount":1,"Amount":9}}', '/Object/Amount'],
    ['a refund amount spelt with an escape', 'refund', '{"Object":{"Amount":1,"\\u0041mount":9}}', '/Object/Amount'],
    ['a top-level member', 'payment', '{"Object":{"Amount":1},"IsRunNow":true,"Object":{"Amount":2}}', '/Object'],
    ['a receipt line member', 'receipt', '{"Value":{"SupplierName":"x","Lines":[{"InventoryID":1},{"InventoryID":2,"QuantityOrdered":1,"QuantityOrdered":9}]}}', '/Value/Lines/1/QuantityOrdered'],
    ['a task adaptor member', 'task', '{"Name":"x","TaskTypeID":1,"AdaptorDetails":{"Name":"a","Name":"b"}}', '/AdaptorDetails/Name'],
    ['an address member', 'location', '{"Name":"Depot","Address":{"City":"Perth","City":"Hobart"}}', '/Address/City'],
    ['a search member', 'locationSearch', '{"SortField":"Name","SortField":"ID"}', '/SortField'],
    ['a receipt search member', 'receiptSearch', '{"IncludeDeleted":false,"IncludeDeleted":true}', '/IncludeDeleted'],
    ['a __proto__ member twice', 'location', '{"Name":"Depot","__proto__":1,"__proto__":2}', '/__proto__'],
  ] as const)('%s', async (_case, route, text, pointer) => {
    const before = await itemsBefore();
    const response = await sendRaw(route, text);
    expect({ status: response.status, body: response.json }).toEqual({ status: 400, body: repeated(pointer) });
    await expectUnchanged(before);
  });
});

describe('tenancy fields of another tenant below the top level are a 403, in every area', () => {
  const mismatch = (field: string, pointer: string) =>
    problem({
      status: 403,
      title: 'Tenancy mismatch',
      type: problemType('tenancy-mismatch'),
      detail: `${field} at ${pointer} does not match the caller's token.`,
      errors: [{ pointer, detail: "differs from the caller's token" }],
    });

  it.each([
    ['AdaptorDetails.TenantID of a task', 'task', () => ({ Name: 'x', TaskTypeID: 1, AdaptorDetails: { TenantID: tenant + 1 } }), 'TenantID', '/AdaptorDetails/TenantID', false],
    ['a translator action WebsiteID of a task', 'task', () => ({ Name: 'x', TaskTypeID: 1, AdaptorDetails: { Actions: [{ TranslatorActionDetails: [{ WebsiteID: 2 }] }] } }), 'WebsiteID', '/AdaptorDetails/Actions/0/TranslatorActionDetails/0/WebsiteID', false],
    ['a translator UserID of a task', 'task', () => ({ Name: 'x', TaskTypeID: 1, AdaptorDetails: { TranslatorDetails: [{ UserID: 2 }] } }), 'UserID', '/AdaptorDetails/TranslatorDetails/0/UserID', false],
    ['Value.TenantID of a new receipt', 'receipt', () => ({ Value: { SupplierName: 'x', TenantID: tenant + 1 } }), 'TenantID', '/Value/TenantID', true],
    ['Value.TenantID of a receipt update', 'receipt', () => ({ Value: { ID: receiptId, TenantID: tenant + 1 } }), 'TenantID', '/Value/TenantID', true],
    ['a payment log UserID', 'payment', () => ({ Object: { Amount: 1, PaymentLogs: [{ Code: 'X', UserID: 2 }] } }), 'UserID', '/Object/PaymentLogs/0/UserID', true],
  ] as const)('%s', async (_case, route, body, field, pointer, inXml) => {
    const before = await itemsBefore();
    for (const type of requestMediaTypes) {
      if (!inXml && type.includes('xml')) continue; // the task's XML form has no AdaptorDetails
      const response = await send(route, body(), type);
      expect({ type, status: response.status, body: response.json }).toEqual({ type, status: 403, body: mismatch(field, pointer) });
    }
    await expectUnchanged(before);
  });

  it("takes a zero tenancy field below the top level as the token's", async () => {
    const response = await send('receipt', { Value: { SupplierName: 'Tenancy Co', TenantID: 0 } });
    expect(response.status).toBe(201);
    expect((response.json as { Value: { TenantID?: number } }).Value.TenantID).toBe(tenant);
  });
});

describe('receipt lines that share a GUID are a 400 naming the line', () => {
  const upper = lineGuid.toUpperCase();
  const fresh = 'a3b1c2d4-0e5f-4a6b-9c7d-8e9f0a1b2c3d';

  it.each([
    ['two new lines of a new receipt, differing in case', () => ({ Value: { SupplierName: 'x', Lines: [{ InventoryID: 1, GUID: fresh }, { InventoryID: 2, GUID: fresh.toUpperCase() }] } }), '/Value/Lines/1/GUID'],
    ['two new lines added to a receipt', () => ({ Value: { ID: receiptId, Lines: [{ GUID: lineGuid }, { InventoryID: 2, GUID: fresh }, { InventoryID: 3, GUID: fresh }] } }), '/Value/Lines/2/GUID'],
    ['a stored line named by GUID twice, in two cases', () => ({ Value: { ID: receiptId, Lines: [{ GUID: lineGuid, QuantityOrdered: 6 }, { GUID: upper, QuantityOrdered: 7 }] } }), '/Value/Lines/1'],
    ['a stored line named by ID twice', () => ({ Value: { ID: receiptId, Lines: [{ ID: 1 }, { ID: 1, QuantityOrdered: 7 }] } }), '/Value/Lines/1'],
  ])('%s', async (_case, body, pointer) => {
    const before = await itemsBefore();
    for (const type of requestMediaTypes) {
      const response = await send('receipt', body(), type);
      expect({ type, status: response.status, errors: (response.json as { errors?: { pointer: string }[] }).errors?.map((error) => error.pointer) }).toEqual({
        type,
        status: 400,
        errors: [pointer],
      });
    }
    await expectUnchanged(before);
  });

  it('a save naming the stored GUID in another case updates that one line and keeps the rest', async () => {
    const response = await send('receipt', { Value: { ID: receiptId, Lines: [{ GUID: upper, QuantityOrdered: 8 }] } });
    expect(response.status).toBe(200);
    const lines = (response.json as { Value: { Lines: { GUID: string; QuantityOrdered: number }[] } }).Value.Lines;
    expect(lines.map((line) => [line.GUID, line.QuantityOrdered])).toEqual([[lineGuid, 8]]);
  });
});

describe('the snapshot the refused cases are held to', () => {
  it('reads every item the tenant has (a Scan of the whole table finds none elsewhere)', async () => {
    const { scanned, queried } = await scanBetweenQueries(() => table.scanned(tenant), everything);
    expect(scanned.length).toBeGreaterThan(0);
    expect(queried).toEqual(scanned);
  });
});
