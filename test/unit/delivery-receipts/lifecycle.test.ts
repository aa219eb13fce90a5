// Unit tests of the receiving lifecycle: the state table, refused transitions, the read-only rule and the stamps.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { InvalidTransition, ReadOnlyRecord, ValidationFailed, problemKinds } from '#shared/errors';
import { toProblem } from '#shared/http/problem';
import {
  actorOf,
  allowedStatuses,
  applyTransition,
  assertCompletable,
  assertEditable,
  changesValue,
  completionTransition,
  friendlyStatus,
  isReadOnly,
  parseStatus,
  receiptStatuses,
  requestedTransition,
  sameValue,
  statusOf,
  statusView,
  type ReceiptStatus,
} from '#shared/delivery-receipts/lifecycle';
import type { StoredLine } from '#shared/delivery-receipts/lines';
import type { DeliveryReceiptT } from '#shared/schemas/delivery-receipt';

const caught = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

const principal = { tenantId: 7, websiteId: 3, userId: 42 };
const clock = () => new Date('2026-03-02T01:02:03.004Z');
const actor = actorOf(principal, clock);

describe('the state table', () => {
  it('names, for each status, what a client may request, how it reads and whether it is read-only', () => {
    expect(
      receiptStatuses.map((status) => [status, allowedStatuses(status), friendlyStatus(status), isReadOnly(status)]),
    ).toEqual([
      ['Draft', ['InProgress', 'Cancelled'], 'Draft', false],
      ['InProgress', ['Complete', 'Cancelled'], 'In progress', false],
      ['Completing', [], 'Completing', true],
      ['Complete', [], 'Complete', true],
      ['Cancelled', [], 'Cancelled', true],
    ]);
  });

  it('gives the status fields of a view', () => {
    expect([statusView('InProgress'), statusView('Completing')]).toEqual([
      { Status: 'InProgress', FriendlyStatus: 'In progress', IsReadOnly: false },
      { Status: 'Completing', FriendlyStatus: 'Completing', IsReadOnly: true },
    ]);
  });

  it('parses status names case-insensitively and refuses anything else with a 400 at the field', () => {
    expect([parseStatus('inprogress'), parseStatus(' COMPLETE '), statusOf({}), statusOf({ Status: 'Cancelled' })]).toEqual([
      'InProgress',
      'Complete',
      'Draft',
      'Cancelled',
    ]);
    for (const raw of ['Done', 'In progress', '__proto__', 'constructor', '']) {
      const error = caught(() => parseStatus(raw, '/Value/Status'));
      expect(error).toBeInstanceOf(ValidationFailed);
      expect((error as ValidationFailed).errors).toEqual([
        { pointer: '/Value/Status', detail: 'must be one of Draft, InProgress, Completing, Complete, Cancelled' },
      ]);
    }
  });
});

describe('requestedTransition', () => {
  it('allows exactly the transitions of the state table', () => {
    expect([
      requestedTransition('Draft', 'InProgress'),
      requestedTransition('Draft', 'Cancelled'),
      requestedTransition('InProgress', 'Complete'),
      requestedTransition('InProgress', 'cancelled'),
    ]).toEqual([
      { from: 'Draft', to: 'InProgress' },
      { from: 'Draft', to: 'Cancelled' },
      { from: 'InProgress', to: 'Complete' },
      { from: 'InProgress', to: 'Cancelled' },
    ]);
  });

  it('treats an absent, blank or unchanged Status as no transition, in every status', () => {
    for (const status of receiptStatuses) {
      for (const requested of [undefined, '', '  ', status, status.toUpperCase()]) {
        expect(requestedTransition(status, requested)).toEqual({ from: status, to: status });
      }
    }
  });

  it('starts a new receipt as Draft, which may go straight to InProgress but not to Complete', () => {
    expect([requestedTransition(undefined, undefined), requestedTransition(undefined, 'InProgress')]).toEqual([
      { from: 'Draft', to: 'Draft' },
      { from: 'Draft', to: 'InProgress' },
    ]);
    expect(caught(() => requestedTransition(undefined, 'Complete'))).toBeInstanceOf(InvalidTransition);
  });

  it('refuses every other transition with a 409 that names the allowed ones', () => {
    const error = caught(() => requestedTransition('Draft', 'Complete')) as InvalidTransition;
    expect(toProblem(error, 'r')).toEqual({
      type: problemKinds.conflict.type,
      title: 'Conflict',
      status: 409,
      detail: 'The status cannot change from Draft to Complete; allowed now: InProgress, Cancelled.',
      instance: 'r',
      errors: [{ pointer: '/Value/Status', detail: 'allowed now: InProgress, Cancelled' }],
      IsSuccess: false,
      Messages: [
        'The status cannot change from Draft to Complete; allowed now: InProgress, Cancelled.',
        '/Value/Status: allowed now: InProgress, Cancelled',
      ],
      ErrorCode: 409,
    });
    expect(error.allowed).toEqual(['InProgress', 'Cancelled']);
    const fromComplete = caught(() => requestedTransition('Complete', 'InProgress')) as InvalidTransition;
    expect([fromComplete.detail, fromComplete.allowed]).toEqual([
      'The status cannot change from Complete to InProgress; no status change is allowed now.',
      [],
    ]);
  });

  it('never lets a client request Completing, and never leaves a read-only status (property)', () => {
    const status = fc.constantFrom(...receiptStatuses);
    fc.assert(
      fc.property(status, status, (from, to) => {
        const allowed = from !== to && allowedStatuses(from).includes(to);
        if (from === 'Completing' && to === 'Complete') {
          // Its completion is under way: the request's intent holds, no transition.
          expect(requestedTransition(from, to)).toEqual({ from, to: from });
        } else if (from === to || allowed) {
          expect(requestedTransition(from, to)).toEqual({ from, to });
        } else {
          expect(caught(() => requestedTransition(from, to))).toBeInstanceOf(InvalidTransition);
        }
        if (to === 'Completing' && from !== to) expect(allowed).toBe(false);
        if (isReadOnly(from) && from !== to) expect(allowed).toBe(false);
      }),
    );
  });
});

describe('completionTransition', () => {
  it('enters Completing only when the completion needs more than one transaction', () => {
    const complete = { from: 'InProgress', to: 'Complete' } as const;
    expect([
      completionTransition(complete, 'single'),
      completionTransition(complete, 'chunked'),
      completionTransition({ from: 'Draft', to: 'InProgress' }, 'chunked'),
    ]).toEqual([complete, { from: 'InProgress', to: 'Completing' }, { from: 'Draft', to: 'InProgress' }]);
  });
});

describe('applyTransition', () => {
  const draft: DeliveryReceiptT = { ID: 5, Status: 'Draft', WarehouseID: 1, SupplierName: 'Paper Co' };

  it('stamps Started* on entering InProgress, from the token and the clock', () => {
    expect(applyTransition(draft, { from: 'Draft', to: 'InProgress' }, actor)).toEqual({
      ...draft,
      Status: 'InProgress',
      FriendlyStatus: 'In progress',
      IsReadOnly: false,
      StartedByUserID: 42,
      StartedDateTime_utc: '2026-03-02T01:02:03.004Z',
    });
  });

  it('stamps Completed* on reaching Complete, and not on entering Completing', () => {
    const started = { ...draft, Status: 'InProgress', StartedByUserID: 9, StartedDateTime_utc: '2026-03-01T00:00:00.000Z' };
    expect(applyTransition(started, { from: 'InProgress', to: 'Complete' }, actor)).toEqual({
      ...started,
      Status: 'Complete',
      FriendlyStatus: 'Complete',
      IsReadOnly: true,
      CompletedByUserID: 42,
      CompletedDateTime_utc: '2026-03-02T01:02:03.004Z',
    });
    expect(applyTransition(started, { from: 'InProgress', to: 'Completing' }, actor)).toEqual({
      ...started,
      Status: 'Completing',
      FriendlyStatus: 'Completing',
      IsReadOnly: true,
    });
  });

  it('stamps nothing for Cancelled or for no transition', () => {
    expect([
      applyTransition(draft, { from: 'Draft', to: 'Cancelled' }, actor),
      applyTransition(draft, { from: 'Draft', to: 'Draft' }, actor),
    ]).toEqual([
      { ...draft, Status: 'Cancelled', FriendlyStatus: 'Cancelled', IsReadOnly: true },
      { ...draft, Status: 'Draft', FriendlyStatus: 'Draft', IsReadOnly: false },
    ]);
  });

  it('requires WarehouseID to complete (400 at the field)', () => {
    for (const WarehouseID of [undefined, 0]) {
      const receipt = { ...draft, Status: 'InProgress', WarehouseID };
      for (const to of ['Complete', 'Completing'] as ReceiptStatus[]) {
        const error = caught(() => applyTransition(receipt, { from: 'InProgress', to }, actor)) as ValidationFailed;
        expect([error.status, error.errors]).toEqual([
          400,
          [{ pointer: '/Value/WarehouseID', detail: 'is required to complete the receipt' }],
        ]);
      }
    }
    expect(() => assertCompletable({ WarehouseID: 3 })).not.toThrow();
  });
});

describe('assertEditable', () => {
  const line = (id: number, extra: Partial<StoredLine> = {}): StoredLine => ({
    ID: id,
    GUID: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    SequenceNumber: id,
    IsActive: true,
    InventoryID: 100 + id,
    QuantityOrdered: 10,
    QuantityReceived: 10,
    ...extra,
  });
  const lines = [line(1), line(2), line(3, { IsActive: false })];
  const stored: DeliveryReceiptT = {
    ID: 5,
    Status: 'Complete',
    WarehouseID: 1,
    SupplierName: 'Paper Co',
    InternalNote: 'before',
    DeliveryDate: '2026-03-02',
    LineCount: 2,
    TotalLines: 3,
    Attachments: [{ Title: 'delivery note' }],
  };
  const fetched: DeliveryReceiptT = { ...stored, FriendlyStatus: 'Complete', IsReadOnly: true, Lines: [line(1), line(2)] };

  it('lets an editable receipt change anything', () => {
    for (const status of ['Draft', 'InProgress'] as const) {
      expect(() => assertEditable(status, stored, lines, { SupplierName: 'Other', Lines: [] })).not.toThrow();
    }
  });

  it('lets a read-only receipt take back what Get showed, with only InternalNote and Attachments changed', () => {
    for (const status of ['Complete', 'Cancelled', 'Completing'] as const) {
      expect(() =>
        assertEditable(status, stored, lines, { ...fetched, InternalNote: 'after', Attachments: [{ Title: 'photo' }] }),
      ).not.toThrow();
      expect(() => assertEditable(status, stored, lines, { InternalNote: '' })).not.toThrow();
      expect(() => assertEditable(status, stored, lines, { ID: 5, LineCount: 99, CreatedByUserID: 1 })).not.toThrow();
    }
  });

  it('reads the false and 0 a typed client sends for what the receipt never held as no change, and a real value as one', () => {
    const typedLines = [
      { ...line(1), IsAssetItem: false, QuantityFaulty: 0 },
      { ...line(2), IsAssetItem: false, QuantityOutOfDate: 0 },
    ];
    for (const status of ['Complete', 'Cancelled', 'Completing'] as const) {
      expect(() => assertEditable(status, stored, lines, { ...fetched, SupplierID: 0, Lines: typedLines, InternalNote: 'after' })).not.toThrow();
      expect((caught(() => assertEditable(status, stored, lines, { ...fetched, Lines: [{ ...line(1), IsAssetItem: true }, line(2)] })) as ReadOnlyRecord).errors).toEqual([
        expect.objectContaining({ pointer: '/Value/Lines/0/IsAssetItem' }),
      ]);
      expect((caught(() => assertEditable(status, stored, lines, { ...fetched, Lines: [{ ...line(1), QuantityReceived: 0 }, line(2)] })) as ReadOnlyRecord).errors).toEqual([
        expect.objectContaining({ pointer: '/Value/Lines/0/QuantityReceived' }),
      ]);
    }
  });

  it('refuses any other change with a 409 pointing at each changed field', () => {
    const error = caught(() =>
      assertEditable('Complete', stored, lines, {
        ...fetched,
        SupplierName: 'Other',
        DeliveryDate: '',
        WarehouseID: 2,
        Lines: [line(1, { QuantityReceived: 11 }), { QuantityOrdered: 1 }],
      }),
    ) as ReadOnlyRecord;
    expect(toProblem(error, 'r')).toEqual({
      type: problemKinds.conflict.type,
      title: 'Conflict',
      status: 409,
      detail: 'The receipt is Complete and read-only: only InternalNote and Attachments may change.',
      instance: 'r',
      errors: [
        { pointer: '/Value/SupplierName', detail: 'read-only' },
        { pointer: '/Value/WarehouseID', detail: 'read-only' },
        { pointer: '/Value/DeliveryDate', detail: 'read-only' },
        { pointer: '/Value/Lines/0/QuantityReceived', detail: 'read-only' },
        { pointer: '/Value/Lines/1', detail: 'read-only' },
        { pointer: '/Value/Lines', detail: 'read-only' },
      ],
      IsSuccess: false,
      Messages: [
        'The receipt is Complete and read-only: only InternalNote and Attachments may change.',
        ...['SupplierName', 'WarehouseID', 'DeliveryDate', 'Lines/0/QuantityReceived', 'Lines/1', 'Lines'].map((field) => `/Value/${field}: read-only`),
      ],
      ErrorCode: 409,
    });
  });

  it('counts an active line missing from Lines as a change, and a deactivated one as none', () => {
    expect((caught(() => assertEditable('Cancelled', stored, lines, { Lines: [line(1)] })) as ReadOnlyRecord).errors).toEqual([
      { pointer: '/Value/Lines', detail: 'read-only' },
    ]);
    expect(() => assertEditable('Cancelled', stored, lines, { Lines: [line(2), line(1)] })).not.toThrow();
  });

  it('counts Lines naming an unknown line as a change', () => {
    expect((caught(() => assertEditable('Complete', stored, lines, { Lines: [line(1), line(2), { ID: 99 }] })) as ReadOnlyRecord).errors).toEqual([
      { pointer: '/Value/Lines', detail: 'read-only' },
    ]);
  });
});

describe('value comparison', () => {
  it('compares JSON-like values deeply, ignoring key order and absent members', () => {
    expect([
      sameValue({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }),
      sameValue({ a: 1, b: undefined }, { a: 1 }),
      sameValue([1, 2], [2, 1]),
      sameValue({ a: 1 }, [1]),
      sameValue({ a: null }, { a: 0 }),
    ]).toEqual([true, true, false, false, false]);
  });

  it("follows Save's merge convention: absent keeps, empty text clears", () => {
    expect([changesValue('a', undefined), changesValue(undefined, ''), changesValue('a', ''), changesValue(1, 1), changesValue(1, 2)]).toEqual([
      false,
      false,
      true,
      false,
      true,
    ]);
  });
});
