// Unit tests of completion's stock effects and their plan of transaction chunks, with properties over arbitrary
// receipts and a model of the chunked protocol (crashes between chunks, duplicate and stale deliveries).
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ValidationFailed } from '#shared/errors';
import { numberToUnits as toUnits } from '#shared/decimal/index';
import { quantityScale } from '#shared/schemas/limits';
import type { StoredLine } from '#shared/delivery-receipts/lines';
import {
  chunkAt,
  chunkRequestToken,
  itemBytes,
  planCompletion,
  stockEffects,
  transactionLimits,
  type CompletionPlan,
  type CompletionRequest,
  type TransactionAction,
} from '#shared/delivery-receipts/stock-effects';

const completionId = '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f';
const actor = { userId: 42, at: '2026-03-02T01:02:03.004Z' };

const line = (id: number, inventoryId: number, received: number, extra: Partial<StoredLine> = {}): StoredLine => ({
  ID: id,
  GUID: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  SequenceNumber: id,
  IsActive: true,
  InventoryID: inventoryId,
  QuantityReceived: received,
  ...extra,
});

const request = (lines: readonly StoredLine[], extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  tenantId: 7,
  receiptId: 900,
  warehouseId: 3,
  completionId,
  actor,
  lines,
  ...extra,
});

const itemOf = (action: TransactionAction) => `${action.role}:${JSON.stringify(action.key)}`;
const units = (value: string | number) => toUnits(Number(value), quantityScale) as bigint;

describe('stockEffects', () => {
  it('adds only QuantityReceived of active lines, grouped per InventoryID in InventoryID order', () => {
    const lines = [
      line(1, 20, 5, { QuantityFaulty: 3, QuantityOutOfDate: 2, QuantityIncorrect: 1 }),
      line(2, 10, 0.1),
      line(3, 20, 2.5),
      line(4, 10, 0.2),
      line(5, 30, 0, { QuantityFaulty: 9 }),
      line(6, 40, 7, { IsActive: false }),
    ];
    expect(stockEffects(lines, 3)).toEqual([
      { inventoryId: 10, warehouseId: 3, quantity: '0.3', lines: [{ lineId: 2, quantity: '0.1' }, { lineId: 4, quantity: '0.2' }] },
      { inventoryId: 20, warehouseId: 3, quantity: '7.5', lines: [{ lineId: 1, quantity: '5' }, { lineId: 3, quantity: '2.5' }] },
    ]);
  });

  it('refuses a line that received stock without an InventoryID (400), before planning anything', () => {
    const error = (() => {
      try {
        return stockEffects([line(1, 0, 1), line(2, 5, 0), line(3, 5, 1)], 3);
      } catch (thrown) {
        return thrown;
      }
    })() as ValidationFailed;
    expect(error).toBeInstanceOf(ValidationFailed);
    expect(error.errors).toEqual([{ pointer: '/Value/Lines', detail: 'line 1 (SequenceNumber 1) received stock but has no InventoryID' }]);
  });
});

describe('planCompletion', () => {
  it('completes a small receipt in one transaction: increments, movements, line marks, then the header', () => {
    const plan = planCompletion(request([line(1, 20, 5), line(2, 10, 1.5), line(3, 20, 1), line(4, 30, 0)]));
    expect([plan.mode, plan.chunks.length, plan.chunks[0]?.clientRequestToken, plan.chunks[0]?.last]).toEqual([
      'single',
      1,
      '6b1c8a571e8c4d2f9f0a2b9b3c4d5e6f0000',
      true,
    ]);
    const stamps = { IsStockAdjustmentComplete: true, ReceivedByUserID: 42, ReceivedDateTime_utc: actor.at };
    const movement = (lineId: number, inventoryId: number, quantity: string) => ({
      role: 'stockMovement',
      key: { tenantId: 7, receiptId: 900, lineId },
      update: { put: { InventoryID: inventoryId, WarehouseID: 3, Quantity: quantity, CompletionID: completionId, MovedByUserID: 42, MovedDateTime_utc: actor.at } },
    });
    const mark = (lineId: number) => ({ role: 'line', key: { tenantId: 7, receiptId: 900, lineId }, update: { set: stamps } });
    expect(plan.chunks[0]?.actions.map(({ bytes: _bytes, ...action }) => action)).toEqual([
      { role: 'stockOnHand', key: { tenantId: 7, inventoryId: 10, warehouseId: 3 }, update: { add: '1.5' } },
      movement(2, 10, '1.5'),
      mark(2),
      { role: 'stockOnHand', key: { tenantId: 7, inventoryId: 20, warehouseId: 3 }, update: { add: '6' } },
      movement(1, 20, '5'),
      mark(1),
      movement(3, 20, '1'),
      mark(3),
      {
        role: 'header',
        key: { tenantId: 7, receiptId: 900 },
        expect: { status: 'InProgress' },
        update: { set: { Status: 'Complete', CompletedByUserID: 42, CompletedDateTime_utc: actor.at } },
      },
    ]);
  });

  it('completes a receipt that received nothing with the header alone', () => {
    const plan = planCompletion(request([line(1, 20, 0), line(2, 0, 0)]));
    expect([plan.mode, plan.effects, plan.chunks[0]?.actions.map((action) => action.role)]).toEqual(['single', [], ['header']]);
  });

  it('requires a warehouse', () => {
    expect(() => planCompletion(request([line(1, 20, 1)], { warehouseId: 0 }))).toThrow(ValidationFailed);
  });

  it('splits 1,000 lines into chunks of at most 100 actions, each conditional on its cursor; the last completes the header', () => {
    const lines = Array.from({ length: 1000 }, (_, index) => line(index + 1, (index % 250) + 1, 1));
    const plan = planCompletion(request(lines));
    expect(plan.mode).toBe('chunked');
    expect(plan.effects).toHaveLength(250);
    // 250 increments + 2 x 1,000 line actions = 2,250 actions, at most 98 per chunk beside the completion item and
    // header; a line's pair is never split, so a chunk may stop at 97.
    expect(plan.chunks.length).toBe(24);
    plan.chunks.forEach((chunk, index) => {
      expect(chunk.actions.length).toBeLessThanOrEqual(transactionLimits.maxActions);
      const closing = chunk.actions.filter((action) => action.role === 'completion' || action.role === 'header');
      expect(closing.map(({ bytes: _bytes, ...action }) => action)).toEqual([
        { role: 'completion', key: { tenantId: 7, receiptId: 900 }, expect: { completionId, cursor: index }, update: { set: { CompletionCursor: index + 1 } } },
        ...(index === 23
          ? [
              {
                role: 'header',
                key: { tenantId: 7, receiptId: 900 },
                expect: { status: 'Completing', completionId },
                update: { set: { Status: 'Complete', CompletedByUserID: 42, CompletedDateTime_utc: actor.at } },
              },
            ]
          : []),
      ]);
      expect(chunk.actions.slice(-closing.length)).toEqual(closing);
      expect([chunk.index, chunk.cursor, chunk.last]).toEqual([index, index, index === 23]);
    });
    expect([chunkAt(plan, 23)?.last, chunkAt(plan, 24)]).toEqual([true, undefined]);
  });

  it('keeps a line movement and its received mark in the same chunk', () => {
    const plan = planCompletion(request(Array.from({ length: 300 }, (_, index) => line(index + 1, index + 1, 1))));
    for (const chunk of plan.chunks) {
      const movements = chunk.actions.filter((action) => action.role === 'stockMovement').map(itemOf);
      const marks = chunk.actions.filter((action) => action.role === 'line').map(itemOf);
      expect(marks.map((mark) => mark.replace('line:', 'stockMovement:'))).toEqual(movements);
    }
  });

  it('splits by size when large lines would pass 4 MB, keeping room for a full 400 KB header', () => {
    // 60 lines of 200 KB: 180 actions would fit 2 chunks by count; by size, 17 lines (3.4 MB) fill one.
    const description = 'x'.repeat(200_000);
    const plan = planCompletion(request(Array.from({ length: 60 }, (_, index) => line(index + 1, index + 1, 1, { Description: description }))));
    expect(plan.chunks.map((chunk) => chunk.actions.filter((action) => action.role === 'line').length)).toEqual([17, 17, 17, 9]);
    for (const chunk of plan.chunks) {
      expect(chunk.bytes).toBeLessThanOrEqual(transactionLimits.maxBytes);
      expect(chunk.actions.length).toBeLessThan(transactionLimits.maxActions);
    }
    expect(plan.chunks.at(-1)?.actions.at(-1)).toMatchObject({ role: 'header', bytes: itemBytes.header });
  });
});

describe('chunkRequestToken', () => {
  it('is 36 characters, the same for a replay, and distinct per completion and chunk', () => {
    const tokens = [0, 1, 35, 36, 1_679_615].map((index) => chunkRequestToken(completionId, index));
    expect(tokens).toEqual([
      '6b1c8a571e8c4d2f9f0a2b9b3c4d5e6f0000',
      '6b1c8a571e8c4d2f9f0a2b9b3c4d5e6f0001',
      '6b1c8a571e8c4d2f9f0a2b9b3c4d5e6f000z',
      '6b1c8a571e8c4d2f9f0a2b9b3c4d5e6f0010',
      '6b1c8a571e8c4d2f9f0a2b9b3c4d5e6fzzzz',
    ]);
    expect(chunkRequestToken(completionId.toUpperCase(), 1)).toBe(tokens[1]);
    expect(chunkRequestToken('00000000-0000-4000-8000-000000000001', 1)).not.toBe(tokens[1]);
  });

  it('refuses a completion id that is not a UUID and an index out of range', () => {
    expect(() => chunkRequestToken('not-a-uuid', 0)).toThrow('UUID');
    expect(() => chunkRequestToken(completionId, 36 ** 4)).toThrow('out of range');
    expect(() => chunkRequestToken(completionId, -1)).toThrow('out of range');
  });
});

/** Arbitrary receipts: few items (so lines share them), quantities in hundred-thousandths, some lines inactive. */
const quantity = fc.integer({ min: 0, max: 100_000_000 }).map((value) => value / 1e5);
const arbitraryLines = fc
  .array(
    fc.record({
      inventoryId: fc.integer({ min: 1, max: 40 }),
      received: fc.oneof(fc.constant(0), quantity),
      faulty: quantity,
      outOfDate: quantity,
      active: fc.boolean(),
      stamped: fc.boolean(),
    }),
    { maxLength: 400 },
  )
  .map((specs) =>
    specs.map((spec, index) =>
      line(index + 1, spec.inventoryId, spec.received, {
        QuantityFaulty: spec.faulty,
        QuantityOutOfDate: spec.outOfDate,
        IsActive: spec.active,
        ...(spec.stamped ? { IsStockAdjustmentComplete: true, ReceivedByUserID: 42, ReceivedDateTime_utc: actor.at } : {}),
      }),
    ),
  );

/** Stock each item gains from a plan, summed exactly. */
const stockAdded = (plan: CompletionPlan): Map<number, bigint> => {
  const added = new Map<number, bigint>();
  for (const action of plan.chunks.flatMap((chunk) => chunk.actions)) {
    if (action.role === 'stockOnHand') added.set(action.key.inventoryId, (added.get(action.key.inventoryId) ?? 0n) + units(action.update.add));
  }
  return added;
};

describe('completion plan properties', () => {
  it('adds, per item, exactly the sum of QuantityReceived over active lines, never faulty or out-of-date stock', () => {
    fc.assert(
      fc.property(arbitraryLines, (lines) => {
        const expected = new Map<number, bigint>();
        for (const each of lines) {
          if (each.IsActive && units(each.QuantityReceived ?? 0) > 0n) {
            expected.set(each.InventoryID as number, (expected.get(each.InventoryID as number) ?? 0n) + units(each.QuantityReceived ?? 0));
          }
        }
        expect(stockAdded(planCompletion(request(lines)))).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('covers every effect exactly once, never touches an item twice in a chunk, and fits every chunk in one transaction', () => {
    fc.assert(
      fc.property(arbitraryLines, (lines) => {
        const plan = planCompletion(request(lines));
        const receiving = lines.filter((each) => each.IsActive && units(each.QuantityReceived ?? 0) > 0n);
        const isEffect = (action: TransactionAction) => action.role !== 'header' && action.role !== 'completion';
        const effects = plan.chunks.flatMap((chunk) => chunk.actions.filter(isEffect).map(itemOf));
        expect(new Set(effects).size).toBe(effects.length);
        expect(effects.length).toBe(plan.effects.length + 2 * receiving.length);
        expect(new Set(plan.effects.map((effect) => effect.inventoryId)).size).toBe(plan.effects.length);
        for (const chunk of plan.chunks) {
          const items = chunk.actions.map(itemOf);
          expect(new Set(items).size).toBe(items.length);
          expect(chunk.actions.length).toBeLessThanOrEqual(transactionLimits.maxActions);
          expect(chunk.bytes).toBeLessThanOrEqual(transactionLimits.maxBytes);
          const closing = chunk.actions.filter((action) => !isEffect(action)).map((action) => action.role);
          expect(closing).toEqual(plan.mode === 'single' ? ['header'] : chunk.last ? ['completion', 'header'] : ['completion']);
          expect(chunk.clientRequestToken).toHaveLength(36);
        }
        expect(new Set(plan.chunks.map((chunk) => chunk.clientRequestToken)).size).toBe(plan.chunks.length);
        expect(plan.mode).toBe(plan.chunks.length === 1 ? 'single' : 'chunked');
      }),
      { numRuns: 60 },
    );
  });

  it('is deterministic: the same plan whatever the order of the lines and whichever lines earlier chunks stamped', () => {
    fc.assert(
      fc.property(arbitraryLines, fc.integer(), (lines, seed) => {
        const shuffled = fc.sample(fc.shuffledSubarray(lines, { minLength: lines.length }), { numRuns: 1, seed })[0] as StoredLine[];
        const unstamped = lines.map(({ IsStockAdjustmentComplete: _a, ReceivedByUserID: _b, ReceivedDateTime_utc: _c, ...rest }) => rest as StoredLine);
        const plan = planCompletion(request(lines));
        expect(planCompletion(request(shuffled))).toEqual(plan);
        expect(planCompletion(request(unstamped))).toEqual(plan);
      }),
      { numRuns: 40 },
    );
  });
});

/**
 * A model of the chunked protocol as the repository runs it: a chunk applies atomically only if every condition
 * holds (the completion item at the chunk's cursor, the header Completing), else it changes nothing.
 */
const runDeliveries = (plan: CompletionPlan, deliveries: readonly number[]) => {
  const header = { cursor: 0, status: 'Completing' as string };
  const stock = new Map<number, bigint>();
  const written = new Set<string>();
  for (const index of deliveries) {
    const chunk = chunkAt(plan, index);
    if (!chunk) continue;
    const holds = chunk.actions.every((action) =>
      action.role === 'completion' ? header.cursor === action.expect.cursor : action.role === 'header' ? header.status === action.expect.status : true,
    );
    if (!holds) continue;
    for (const action of chunk.actions) {
      if (action.role === 'stockOnHand') stock.set(action.key.inventoryId, (stock.get(action.key.inventoryId) ?? 0n) + units(action.update.add));
      if (action.role === 'stockMovement') {
        if (written.has(itemOf(action))) throw new Error('a movement was written twice');
        written.add(itemOf(action));
      }
      if (action.role === 'completion') header.cursor = action.update.set.CompletionCursor;
      if (action.role === 'header') header.status = action.update.set.Status;
    }
  }
  return { header, stock };
};

describe('the chunked protocol (model)', () => {
  const lines = Array.from({ length: 700 }, (_, index) => line(index + 1, (index % 90) + 1, ((index % 7) + 1) / 4));

  it('leaves stock exactly right after any crash, duplicate or out-of-order delivery, once the queue drains', () => {
    const plan = planCompletion(request(lines));
    const expected = stockAdded(plan);
    const count = plan.chunks.length;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: count + 1 }), { maxLength: 80 }), (noise) => {
        // Noise: redeliveries, stale and future chunks, a consumer that died after some of them. Then the queue
        // keeps redelivering from the header's cursor until the receipt is Complete.
        const first = runDeliveries(plan, noise);
        const rest = Array.from({ length: count - first.header.cursor }, (_, offset) => first.header.cursor + offset);
        const final = runDeliveries(plan, [...noise, ...rest, ...rest, ...noise]);
        expect(final.header).toEqual({ cursor: count, status: 'Complete' });
        expect(final.stock).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });
});
