// Unit tests of receipt lines: merging a save's Lines, the quantity rules and tolerance, derived fields, the
// add-inventory mapping and the LineTotal rule.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ValidationFailed } from '#shared/errors';
import {
  activeLines,
  applyInventoryList,
  lineCounts,
  linePolicy,
  matchLines,
  maxLinesPerReceipt,
  mergeLines,
  withDerivedFields,
  type StoredLine,
} from '#shared/delivery-receipts/lines';
import type { DeliveryLine, InventoryLine } from '#shared/schemas/delivery-receipt';

const guid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const guids = () => {
  let next = 1000;
  return () => guid((next += 1));
};

const line = (id: number, extra: Partial<StoredLine> = {}): StoredLine => ({
  ID: id,
  GUID: guid(id),
  GUIDstring: guid(id),
  SequenceNumber: id,
  IsActive: true,
  InventoryID: 100 + id,
  QuantityOrdered: 10,
  QuantityReceived: 0,
  ...extra,
});

const fieldErrors = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailed);
    return (error as ValidationFailed).errors;
  }
  throw new Error('expected a ValidationFailed');
};

describe('mergeLines', () => {
  const stored = [line(1, { Comment: 'keep me' }), line(2), line(3)];

  it('updates lines named by ID or GUID, adds new ones with the next line numbers, removes the rest', () => {
    const result = mergeLines({
      stored,
      lastLineNumber: 4,
      newGuid: guids(),
      body: [
        { ID: 3, QuantityReceived: 4 },
        { GUID: guid(1).toUpperCase(), QuantityReceived: 10, Comment: '' },
        { InventoryID: 500, QuantityOrdered: 2 },
        { GUID: guid(77), InventoryID: 501, SequenceNumber: 1, QuantityToBeReceived: 9, IsStockAdjustmentComplete: true, ReceivedByUserID: 1 },
      ],
    });
    expect(result).toEqual({
      lines: [
        { ...line(1), QuantityReceived: 10, QuantityToBeReceived: 0 },
        { ...line(3), QuantityReceived: 4, QuantityToBeReceived: 6 },
        { ID: 5, GUID: guid(1001), GUIDstring: guid(1001), SequenceNumber: 5, IsActive: true, InventoryID: 500, QuantityOrdered: 2, QuantityToBeReceived: 2 },
        { ID: 6, GUID: guid(77), GUIDstring: guid(77), SequenceNumber: 6, IsActive: true, InventoryID: 501 },
      ],
      removed: [line(2)],
      lastLineNumber: 6,
      LineCount: 4,
      TotalLines: 4,
    });
  });

  it('keeps a line sent with IsActive false, deactivated; LineCount counts active lines, TotalLines all', () => {
    const result = mergeLines({ stored, lastLineNumber: 3, body: [{ ID: 1 }, { ID: 2, IsActive: false }, { ID: 3 }] });
    expect([result.lines.map((each) => each.IsActive), result.LineCount, result.TotalLines, result.removed]).toEqual([
      [true, false, true],
      2,
      3,
      [],
    ]);
    expect(activeLines(result.lines).map((each) => each.ID)).toEqual([1, 3]);
  });

  it('never reuses a removed line number', () => {
    const result = mergeLines({ stored: [line(1)], lastLineNumber: 9, body: [{ InventoryID: 1 }], newGuid: guids() });
    expect(result.lines.map((each) => [each.ID, each.SequenceNumber])).toEqual([[10, 10]]);
  });

  it('refuses an unknown ID, an ID and GUID naming different lines, and two entries naming one line', () => {
    expect(
      fieldErrors(() =>
        mergeLines({ stored, lastLineNumber: 3, body: [{ ID: 9 }, { ID: 1, GUID: guid(2) }, { ID: 2 }, { GUID: guid(2) }] }),
      ),
    ).toEqual([
      { pointer: '/Value/Lines/0/ID', detail: 'no line of this receipt has this ID' },
      { pointer: '/Value/Lines/1/GUID', detail: 'names a different line than ID' },
      { pointer: '/Value/Lines/3', detail: 'names the same line as /Value/Lines/2' },
    ]);
  });

  it('refuses two new lines with one GUID, whatever its case, and two entries with one ID', () => {
    const upper = guid(50).toUpperCase();
    expect(
      fieldErrors(() =>
        mergeLines({
          stored,
          lastLineNumber: 3,
          body: [{ GUID: guid(50), InventoryID: 1 }, { GUID: guid(51) }, { GUID: upper, InventoryID: 2 }, { ID: 1 }, { ID: 1, GUID: guid(1).toUpperCase() }],
        }),
      ),
    ).toEqual([
      { pointer: '/Value/Lines/2/GUID', detail: 'repeats the GUID of /Value/Lines/0 (GUIDs are unique within a receipt, whatever their case)' },
      { pointer: '/Value/Lines/4', detail: 'names the same line as /Value/Lines/3' },
    ]);
  });

  it('reads the all-zero GUID (a typed client\'s unset one) as absent: new lines get GUIDs of their own, a line named by ID keeps its own (hostile client: a 400 before)', () => {
    const empty = '00000000-0000-0000-0000-000000000000';
    const merged = mergeLines({ stored, lastLineNumber: 3, newGuid: guids(), body: [{ ID: 1, GUID: empty }, { GUID: empty, InventoryID: 1 }, { GUID: empty, InventoryID: 2 }] });
    expect(merged.lines.map((line) => [line.ID, line.GUID === empty])).toEqual([[1, false], [4, false], [5, false]]);
    expect(new Set(merged.lines.map((line) => line.GUID)).size).toBe(3);
    expect(merged.lines[0]?.GUID).toBe(guid(1));
  });

  it('gives new lines GUIDs unique within the receipt, whatever the case sent (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 100, max: 110 }), fc.boolean()), { maxLength: 12 }), (sent) => {
        const body = sent.map(([n, upper]) => ({ GUID: upper ? guid(n).toUpperCase() : guid(n) }));
        let result: ReturnType<typeof mergeLines> | undefined;
        try {
          result = mergeLines({ stored, lastLineNumber: 3, body });
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationFailed);
          expect(new Set(sent.map(([n]) => n)).size).toBeLessThan(sent.length);
          return;
        }
        const all = result.lines.map((each) => each.GUID.toLowerCase());
        expect(new Set(all).size).toBe(all.length);
      }),
    );
  });

  it('checks quantities: >= 0, at most five decimals, and within QuantityOrdered; every error at once', () => {
    expect(
      fieldErrors(() =>
        mergeLines({
          stored,
          lastLineNumber: 3,
          body: [
            { ID: 1, QuantityReceived: -1 },
            { ID: 2, QuantityFaulty: 0.000001, CostPriceEx: -0.5 },
            { ID: 3, QuantityReceived: 6, QuantityFaulty: 2, QuantityOutOfDate: 1.5, QuantityIncorrect: 0.50001 },
          ],
        }),
      ),
    ).toEqual([
      { pointer: '/Value/Lines/0/QuantityReceived', detail: 'must be 0 or more' },
      { pointer: '/Value/Lines/1/QuantityFaulty', detail: 'must have at most 5 decimal places' },
      { pointer: '/Value/Lines/1/CostPriceEx', detail: 'must be 0 or more' },
      {
        pointer: '/Value/Lines/2',
        detail: 'QuantityReceived + QuantityFaulty + QuantityOutOfDate + QuantityIncorrect (10.00001) exceeds QuantityOrdered',
      },
    ]);
  });

  it('accepts exactly QuantityOrdered (no float drift), and anything when QuantityOrdered is unset', () => {
    const body: DeliveryLine[] = [
      { ID: 1, QuantityOrdered: 0.3, QuantityReceived: 0.1, QuantityFaulty: 0.2 },
      { ID: 2, QuantityOrdered: undefined, QuantityReceived: 5 },
      { InventoryID: 9, QuantityReceived: 1e9 },
    ];
    expect(mergeLines({ stored: [line(1), line(2, { QuantityOrdered: undefined })], lastLineNumber: 2, body }).LineCount).toBe(3);
  });

  it('lets an over-receipt tolerance allow more than ordered, exactly up to the limit', () => {
    const policy = linePolicy(5);
    const within = mergeLines({ stored, lastLineNumber: 3, policy, body: [{ ID: 1, QuantityReceived: 10, QuantityFaulty: 0.5 }] });
    expect(within.lines[0]).toMatchObject({ QuantityReceived: 10, QuantityFaulty: 0.5, QuantityToBeReceived: 0 });
    expect(fieldErrors(() => mergeLines({ stored, lastLineNumber: 3, policy, body: [{ ID: 1, QuantityReceived: 10.50001 }] }))).toEqual([
      {
        pointer: '/Value/Lines/0',
        detail: 'QuantityReceived + QuantityFaulty + QuantityOutOfDate + QuantityIncorrect (10.50001) exceeds QuantityOrdered plus 5%',
      },
    ]);
  });

  it('holds at most 1,000 lines', () => {
    const body = Array.from({ length: maxLinesPerReceipt + 1 }, (_, index) => ({ InventoryID: index + 1 }));
    expect(fieldErrors(() => mergeLines({ stored: [], lastLineNumber: 0, body, newGuid: guids() }))).toEqual([
      { pointer: '/Value/Lines', detail: 'a receipt holds at most 1,000 lines; this would make 1001' },
    ]);
    expect(mergeLines({ stored: [], lastLineNumber: 0, body: body.slice(1), newGuid: guids() }).TotalLines).toBe(1000);
  });

  it('changes nothing it was given when it refuses', () => {
    const before = JSON.stringify(stored);
    fieldErrors(() => mergeLines({ stored, lastLineNumber: 3, body: [{ ID: 1, QuantityReceived: 99 }] }));
    expect(JSON.stringify(stored)).toBe(before);
  });
});

describe('the tolerance rule (property)', () => {
  it('accepts a line exactly when 100 x counted <= ordered x (100 + tolerance), in exact hundredths', () => {
    const hundredths = fc.integer({ min: 0, max: 1_000_000 });
    fc.assert(
      fc.property(hundredths, hundredths, hundredths, fc.integer({ min: 0, max: 2_000 }), (ordered, received, faulty, tolerance) => {
        const body = [{ InventoryID: 1, QuantityOrdered: ordered / 100, QuantityReceived: received / 100, QuantityFaulty: faulty / 100 }];
        const accepts = BigInt(received + faulty) * 10_000n <= BigInt(ordered) * (10_000n + BigInt(tolerance));
        const act = () => mergeLines({ stored: [], lastLineNumber: 0, body, policy: linePolicy(tolerance / 100) });
        if (accepts) expect(act().LineCount).toBe(1);
        else expect(act).toThrow(ValidationFailed);
      }),
    );
  });

  it('refuses a tolerance policy outside 0 to 1,000% or finer than hundredths', () => {
    for (const bad of [-1, 1000.01, 0.001, Number.NaN]) expect(() => linePolicy(bad)).toThrow('over-receipt tolerance');
    expect(linePolicy(2.5)).toEqual({ overReceiptTolerancePercent: 2.5 });
  });
});

describe('derived fields', () => {
  it('QuantityToBeReceived is ordered - received, never below 0, absent when nothing was ordered', () => {
    expect([
      withDerivedFields(line(1, { QuantityOrdered: 10, QuantityReceived: 3.3, QuantityFaulty: 5 })).QuantityToBeReceived,
      withDerivedFields(line(1, { QuantityOrdered: 10, QuantityReceived: 10.5 })).QuantityToBeReceived,
      withDerivedFields(line(1, { QuantityOrdered: 0.3, QuantityReceived: 0.1 })).QuantityToBeReceived,
      'QuantityToBeReceived' in withDerivedFields(line(1, { QuantityOrdered: undefined, QuantityToBeReceived: 4 })),
    ]).toEqual([6.7, 0, 0.2, false]);
  });

  it('counts lines', () => {
    expect(lineCounts([line(1), line(2, { IsActive: false })])).toEqual({ LineCount: 1, TotalLines: 2 });
  });

  it('matches lines without naming any as new when the body is empty', () => {
    expect(matchLines([line(1)], [])).toEqual([]);
  });
});

describe('applyInventoryList', () => {
  const stored = [line(1, { InventoryID: 501, QuantityOrdered: 4, CostPriceEx: 2 }), line(2, { InventoryID: 502 })];

  it('maps Quantity, AdjustedQuantityReceived and BuyPriceEx onto a new line, keeping lines it does not name', () => {
    const result = applyInventoryList({
      stored,
      lastLineNumber: 2,
      newGuid: guids(),
      list: [{ InventoryID: 900, Quantity: 12, AdjustedQuantityReceived: 11.5, BuyPriceEx: 3.25, BuyPriceTax: 0.33, LineTotal: 42.96 }],
    });
    expect(result.lines).toEqual([
      { ...stored[0], QuantityToBeReceived: 4 },
      { ...stored[1], QuantityToBeReceived: 10 },
      {
        ID: 3,
        GUID: guid(1001),
        GUIDstring: guid(1001),
        SequenceNumber: 3,
        IsActive: true,
        InventoryID: 900,
        QuantityOrdered: 12,
        QuantityReceived: 11.5,
        CostPriceEx: 3.25,
        QuantityToBeReceived: 0.5,
      },
    ]);
    expect([result.lastLineNumber, result.LineCount, result.TotalLines, result.removed]).toEqual([3, 3, 3, []]);
  });

  it('updates the line of an InventoryID already on the receipt, so the same request twice changes nothing more', () => {
    const list: InventoryLine[] = [{ InventoryID: 501, Quantity: 6, AdjustedQuantityReceived: 6 }, { InventoryID: 777, Quantity: 1 }];
    const once = applyInventoryList({ stored, lastLineNumber: 2, list, newGuid: guids() });
    const twice = applyInventoryList({ stored: once.lines, lastLineNumber: once.lastLineNumber, list, newGuid: guids() });
    expect(once.lines[0]).toEqual({ ...stored[0], QuantityOrdered: 6, QuantityReceived: 6, QuantityToBeReceived: 0 });
    expect(twice).toEqual(once);
  });

  it('deactivates a line with IsActive false, reactivates it when sent again, and adds nothing for an unknown item', () => {
    const off = applyInventoryList({ stored, lastLineNumber: 2, list: [{ InventoryID: 502, IsActive: false }, { InventoryID: 999, IsActive: false }] });
    expect([off.lines.map((each) => [each.ID, each.IsActive]), off.LineCount, off.TotalLines, off.lastLineNumber]).toEqual([
      [
        [1, true],
        [2, false],
      ],
      1,
      2,
      2,
    ]);
    const on = applyInventoryList({ stored: off.lines, lastLineNumber: 2, list: [{ InventoryID: 502, Quantity: 1 }] });
    expect(on.lines[1]).toMatchObject({ ID: 2, IsActive: true, QuantityOrdered: 1 });
  });

  it('updates the first active line of an item that several lines carry', () => {
    const lines = [line(1, { InventoryID: 5, IsActive: false }), line(2, { InventoryID: 5 }), line(3, { InventoryID: 5 })];
    const result = applyInventoryList({ stored: lines, lastLineNumber: 3, list: [{ InventoryID: 5, Quantity: 7 }] });
    expect(result.lines.map((each) => each.QuantityOrdered)).toEqual([10, 7, 10]);
  });

  it('refuses entries without InventoryID, repeated ones, and quantities breaking the line rules', () => {
    expect(
      fieldErrors(() =>
        applyInventoryList({
          stored,
          lastLineNumber: 2,
          list: [{ Quantity: 1 }, { InventoryID: 8, Quantity: -1 }, { InventoryID: 8 }, { InventoryID: 501, AdjustedQuantityReceived: 5 }, { InventoryID: 9, BuyPriceEx: 0.000001, BuyPriceTax: -1 }],
        }),
      ),
    ).toEqual([
      { pointer: '/Value/InventoryList/0/InventoryID', detail: 'is required' },
      { pointer: '/Value/InventoryList/1/Quantity', detail: 'must be 0 or more' },
      { pointer: '/Value/InventoryList/2/InventoryID', detail: 'repeats /Value/InventoryList/1/InventoryID' },
      {
        pointer: '/Value/InventoryList/3',
        detail: 'QuantityReceived + QuantityFaulty + QuantityOutOfDate + QuantityIncorrect (5) exceeds QuantityOrdered',
      },
      { pointer: '/Value/InventoryList/4/BuyPriceTax', detail: 'must be 0 or more' },
      { pointer: '/Value/InventoryList/4/BuyPriceEx', detail: 'must have at most 5 decimal places' },
    ]);
  });

  it('holds at most 1,000 lines', () => {
    const full = Array.from({ length: maxLinesPerReceipt }, (_, index) => line(index + 1));
    expect(fieldErrors(() => applyInventoryList({ stored: full, lastLineNumber: 1000, list: [{ InventoryID: 1 }] }))).toEqual([
      { pointer: '/Value/InventoryList', detail: 'a receipt holds at most 1,000 lines; this would make 1001' },
    ]);
    expect(applyInventoryList({ stored: full, lastLineNumber: 1000, list: [{ InventoryID: 101, Quantity: 3 }] }).TotalLines).toBe(1000);
  });
});

describe('the LineTotal rule', () => {
  const check = (entry: InventoryLine, minorUnits = 2) => () =>
    applyInventoryList({ stored: [], lastLineNumber: 0, list: [{ InventoryID: 1, ...entry }], currency: { minorUnits }, newGuid: guids() });

  it('accepts any correct rounding of Quantity x (BuyPriceEx + BuyPriceTax) to the minor unit', () => {
    // 3 x (0.3333 + 0.0333) = 1.0998 -> 1.10; 1 x 0.125 = 0.125 -> 0.12 (half even) or 0.13 (half up).
    for (const entry of [
      { Quantity: 3, BuyPriceEx: 0.3333, BuyPriceTax: 0.0333, LineTotal: 1.1 },
      { Quantity: 1, BuyPriceEx: 0.125, LineTotal: 0.12 },
      { Quantity: 1, BuyPriceEx: 0.125, LineTotal: 0.13 },
      { Quantity: 0.1, BuyPriceEx: 0.1, BuyPriceTax: 0.2, LineTotal: 0.03 },
      { Quantity: 9999999, BuyPriceEx: 999999.99999, LineTotal: 9999998999900 },
    ]) {
      expect(check(entry)().LineCount).toBe(1);
    }
    expect(check({ Quantity: 7, BuyPriceEx: 150, BuyPriceTax: 15, LineTotal: 1155 }, 0)().LineCount).toBe(1);
  });

  it('refuses a LineTotal off by more than half a minor unit, finer than the minor unit, or without its factors', () => {
    expect(fieldErrors(check({ Quantity: 3, BuyPriceEx: 0.3333, BuyPriceTax: 0.0333, LineTotal: 1.09 }))).toEqual([
      { pointer: '/Value/InventoryList/0/LineTotal', detail: 'must equal Quantity x (BuyPriceEx + BuyPriceTax) = 1.0998, rounded to 2 decimal places' },
    ]);
    expect(fieldErrors(check({ Quantity: 1, BuyPriceEx: 0.125, LineTotal: 0.125 }))).toEqual([
      { pointer: '/Value/InventoryList/0/LineTotal', detail: 'must have at most 2 decimal places' },
    ]);
    expect(fieldErrors(check({ BuyPriceEx: 1, LineTotal: 1 }))).toEqual([
      { pointer: '/Value/InventoryList/0/LineTotal', detail: 'needs a valid Quantity and BuyPriceEx in the same entry' },
    ]);
  });

  it('decides exactly, in integers, for any quantity and price (property)', () => {
    const amount = fc.integer({ min: 0, max: 10_000_000 });
    fc.assert(
      fc.property(amount, amount, amount, fc.integer({ min: -100, max: 100 }), (quantity, ex, tax, offset) => {
        // Hundred-thousandths in, cents out: exact = q x (ex + tax) / 10^10; the nearest cent rounds half up.
        const exact = BigInt(quantity) * BigInt(ex + tax);
        const cents = (exact + 50_000_000n) / 100_000_000n + BigInt(offset);
        const distance = cents * 100_000_000n - exact;
        const accepts = (distance < 0n ? -distance : distance) <= 50_000_000n;
        const entry = { Quantity: quantity / 1e5, BuyPriceEx: ex / 1e5, BuyPriceTax: tax / 1e5, LineTotal: Number(cents) / 100 };
        if (cents < 0n) return;
        if (accepts) expect(check(entry)().LineCount).toBe(1);
        else expect(check(entry)).toThrow(ValidationFailed);
      }),
    );
  });
});
