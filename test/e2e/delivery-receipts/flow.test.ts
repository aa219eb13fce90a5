// End to end: save, get and add inventory of delivery receipts over HTTP against the local stack: every request
// media type, JSON and XML answers (lists repeat their element; a 200-line receipt round-trips through XML),
// Location headers, Version, lines replaced and matched by ID or GUID, add inventory applied once, and tenancy
// (another tenant's receipt is 404 everywhere).
import { beforeAll, describe, expect, it } from '@jest/globals';
import { requestMediaTypes } from '#test/support/bodies';
import { api, tokenFor } from '#test/support/http';
import { parseXmlAs, problemHeaders, successHeaders, uuidPattern, viewOf } from '#test/support/responses';
import { freshTenantId } from '#test/support/tenant-items';
import { addInventory, getReceipt, linesOf, readSchema, saveReceipt, savedSchema, type Receipt } from './support';

let token: string;
let otherToken: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: freshTenantId(), user: 7 });
  otherToken = await tokenFor({ tenant: freshTenantId() });
});

const receipt = {
  SupplierID: 61,
  SupplierName: 'Paper & <Pulp> Co',
  DeliveryDate: '2026-03-02',
  NoteFromSupplier: 'Two cartons back-ordered',
  Lines: [
    { InventoryID: 11, SKU: 'A4-80', Description: 'A4 paper, 80 gsm', QuantityOrdered: 10, QuantityReceived: 8, QuantityFaulty: 1, CostPriceEx: 4.25 },
    { InventoryID: 12, SKU: 'TONER-K', QuantityOrdered: 2.5, QuantityReceived: 0.125 },
  ],
};

describe('POST /v2/DeliveryReceipt/ and GET /v2/DeliveryReceipt/{id}', () => {
  it.each(requestMediaTypes)('creates a receipt sent as %s: 201, Location, ActionResults, the same as Get', async (type) => {
    const saved = await saveReceipt(token, receipt, { type });
    const view = viewOf(saved);
    expect(view.status).toBe(201);
    const id = saved.json.Value.ID;
    expect(view.headers).toEqual(successHeaders('application/json', { location: `/api/v2/DeliveryReceipt/${id}` }));
    expect(saved.json).toEqual({
      Value: {
        ID: id,
        GUID: expect.stringMatching(uuidPattern),
        GUIDstring: saved.json.Value.GUID,
        RefNumber: `DR-${String(id).padStart(6, '0')}`,
        Status: 'Draft',
        FriendlyStatus: 'Draft',
        TenantID: expect.any(Number),
        SupplierID: 61,
        SupplierName: 'Paper & <Pulp> Co',
        DeliveryDate: '2026-03-02',
        NoteFromSupplier: 'Two cartons back-ordered',
        LineCount: 2,
        TotalLines: 2,
        CreatedByUserID: 7,
        CreatedDateTime_utc: expect.any(String),
        ModifiedByUserID: 7,
        ModifiedDateTime_utc: saved.json.Value.CreatedDateTime_utc,
        Version: 1,
        IsReadOnly: false,
        IsActive: true,
        Lines: [
          {
            ID: 1,
            GUID: expect.stringMatching(uuidPattern),
            GUIDstring: saved.json.Value.Lines[0]?.GUID,
            SequenceNumber: 1,
            InventoryID: 11,
            SKU: 'A4-80',
            Description: 'A4 paper, 80 gsm',
            CostPriceEx: 4.25,
            QuantityOrdered: 10,
            QuantityReceived: 8,
            QuantityFaulty: 1,
            QuantityToBeReceived: 2,
            IsActive: true,
          },
          {
            ID: 2,
            GUID: expect.stringMatching(uuidPattern),
            GUIDstring: saved.json.Value.Lines[1]?.GUID,
            SequenceNumber: 2,
            InventoryID: 12,
            SKU: 'TONER-K',
            QuantityOrdered: 2.5,
            QuantityReceived: 0.125,
            QuantityToBeReceived: 2.375,
            IsActive: true,
          },
        ],
      },
      IsSuccess: true,
      Messages: [],
    });
    const read = await getReceipt(token, id);
    expect(viewOf(read).status).toBe(200);
    expect(read.json).toEqual({ AllowedStatuses: ['InProgress', 'Cancelled'], Value: saved.json.Value, IsSuccess: true, Messages: [] });
  });

  it('updates with the Version read (200), replaces the lines by ID or GUID, and refuses a stale Version (409)', async () => {
    const { json } = await saveReceipt(token, receipt);
    const [first, second] = json.Value.Lines;
    const updated = await saveReceipt(token, {
      ID: json.Value.ID,
      Version: 1,
      InternalNote: 'Checked',
      Lines: [{ GUID: second?.GUID?.toUpperCase(), QuantityReceived: 2.5 }, { InventoryID: 13, QuantityOrdered: 1 }],
    });
    expect(viewOf(updated).status).toBe(200);
    expect(updated.headers.get('location')).toBeNull();
    expect(updated.json.Value).toMatchObject({ Version: 2, InternalNote: 'Checked', LineCount: 2, TotalLines: 2 });
    expect(updated.json.Value.Lines.map((line) => [line.ID, line.InventoryID, line.QuantityReceived, line.QuantityToBeReceived])).toEqual([
      [2, 12, 2.5, 0],
      [3, 13, undefined, 1],
    ]);
    expect(updated.json.Value.Lines.some((line) => line.ID === first?.ID)).toBe(false);
    const stale = await saveReceipt(token, { ID: json.Value.ID, Version: 1, InternalNote: 'Late' });
    expect(viewOf(stale)).toMatchObject({ status: 409, headers: problemHeaders('json'), body: { type: expect.stringMatching(/stale-version$/) } });
    expect((await getReceipt(token, json.Value.ID)).json.Value).toEqual(updated.json.Value);
  });

  it('answers in XML what it answers in JSON; AllowedStatuses and Lines repeat their element', async () => {
    const saved = await saveReceipt(token, receipt);
    const id = saved.json.Value.ID;
    for (const accept of ['application/xml', 'text/xml']) {
      const read = await getReceipt(token, id, accept);
      expect(viewOf(read).headers['content-type']).toBe(`${accept}; charset=utf-8`);
      expect(read.text).toMatch(/^<\?xml[^>]*\?><DeliveryReceiptEditResponse><AllowedStatuses>InProgress<\/AllowedStatuses><AllowedStatuses>Cancelled<\/AllowedStatuses><Value>/);
      expect(read.text.match(/<Lines>/g)).toHaveLength(2);
      expect(parseXmlAs(readSchema, read.text)).toEqual((await getReceipt(token, id)).json);
      const added = await addInventory(token, id, [{ InventoryID: 11, Quantity: 10 }], { accept });
      expect(added.text).toMatch(/^<\?xml[^>]*\?><ActionResults_DeliveryReceiptT_><Value>/);
      expect(parseXmlAs(savedSchema, added.text)).toEqual({ Value: saved.json.Value, IsSuccess: true, Messages: [] });
    }
  });

  it('round-trips a 200-line receipt through XML: sent as XML, read as XML, sent back unchanged (nothing written)', async () => {
    const created = await saveReceipt(token, { SupplierName: 'Bulk', Lines: linesOf(200) }, { type: 'application/xml', accept: 'application/xml' });
    expect(created.status).toBe(201);
    const id = parseXmlAs(savedSchema, created.text).Value.ID as number;
    const asXml = await getReceipt(token, id, 'application/xml');
    const read = parseXmlAs(readSchema, asXml.text);
    expect(read.Value.Lines).toHaveLength(200);
    expect(read).toEqual((await getReceipt(token, id)).json);
    const again = await saveReceipt(token, read.Value as never, { type: 'text/xml', accept: 'text/xml' });
    expect(again.status).toBe(200);
    const after = parseXmlAs(savedSchema, again.text).Value;
    // Unchanged, so nothing is written: the same Version and ModifiedDateTime_utc (a save that changes nothing moved them).
    expect(after).toEqual(read.Value);
  });
});

describe('POST /v2/DeliveryReceipt/{id}/inventory', () => {
  it.each(requestMediaTypes)('adds lines sent as %s, updates the line of an InventoryID already there, and applies a repeat once', async (type) => {
    const { json } = await saveReceipt(token, { Lines: [{ InventoryID: 11, QuantityOrdered: 1 }] });
    const id = json.Value.ID;
    const list = [
      { InventoryID: 11, Quantity: 6, AdjustedQuantityReceived: 5, BuyPriceEx: 0.3333, BuyPriceTax: 0.0333, LineTotal: 2.2 },
      { InventoryID: 40, Quantity: 3, BuyPriceEx: 1.5, LineTotal: 4.5 },
    ];
    const added = await addInventory(token, id, list, { type });
    expect(viewOf(added).status).toBe(200);
    expect(added.json.Value).toMatchObject({ Version: 2, LineCount: 2, TotalLines: 2 });
    expect(added.json.Value.Lines.map((line: Receipt['Lines'][number]) => [line.ID, line.InventoryID, line.QuantityOrdered, line.QuantityReceived, line.CostPriceEx])).toEqual([
      [1, 11, 6, 5, 0.3333],
      [2, 40, 3, undefined, 1.5],
    ]);
    const repeated = await addInventory(token, id, list, { type });
    expect(repeated.json).toEqual(added.json);
    const deactivated = await addInventory(token, id, [{ InventoryID: 40, IsActive: false }]);
    expect(deactivated.json.Value).toMatchObject({ Version: 3, LineCount: 1, TotalLines: 2 });
    expect((await getReceipt(token, id)).json.Value.Lines.map((line) => line.InventoryID)).toEqual([11]);
  });
});

describe('tenancy', () => {
  it("answers 404 for another tenant's receipt on Get, Save and add inventory, and changes nothing", async () => {
    const { json } = await saveReceipt(token, receipt);
    const id = json.Value.ID;
    const attempts = [
      () => getReceipt(otherToken, id),
      () => saveReceipt(otherToken, { ID: id, InternalNote: 'mine now' }),
      () => addInventory(otherToken, id, [{ InventoryID: 1, Quantity: 1 }]),
      () => api(`/v2/DeliveryReceipt/${id + 1_000_000}`, { token }),
    ];
    for (const attempt of attempts) {
      const response = await attempt();
      expect(viewOf(response)).toMatchObject({ status: 404, headers: problemHeaders('json'), body: { status: 404, IsSuccess: false } });
    }
    expect((await getReceipt(token, id)).json.Value).toEqual(json.Value);
  });
});
