// Unit tests of the delivery-receipt answers: the status and headers of each save outcome, and Get's envelope with
// AllowedStatuses before Value; and the view every answer shows (fields in the schema's order, active lines only,
// in SequenceNumber order, with QuantityToBeReceived derived).
import { describe, expect, it } from '@jest/globals';
import { inventoryAnswer, readAnswer, savedAnswer } from '#shared/http/answers/delivery-receipts';
import type { StoredLine } from '#shared/delivery-receipts/lines';
import type { ReceiptHeader } from '#shared/delivery-receipts/repository';
import { receiptView } from '#shared/delivery-receipts/service';

const header: ReceiptHeader = {
  Version: 4,
  TenantID: 9,
  Status: 'InProgress',
  RefNumber: 'DR-000012',
  CreatedDateTime_utc: '2026-03-02T09:00:00.000Z',
  GUID: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f',
  ID: 12,
};

const line = (id: number, extra: Partial<StoredLine> = {}): StoredLine => ({
  IsActive: true,
  QuantityOrdered: 10,
  QuantityReceived: 2.5,
  SequenceNumber: id,
  GUID: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  ID: id,
  ...extra,
});

describe('receiptView', () => {
  it('shows the header in the schema order, its counts and status fields, and its active lines in order', () => {
    const { receipt, allowed } = receiptView(header, [line(3), line(1), line(2, { IsActive: false })]);
    expect(Object.keys(receipt)).toEqual([
      'ID',
      'GUID',
      'RefNumber',
      'Status',
      'FriendlyStatus',
      'TenantID',
      'LineCount',
      'TotalLines',
      'CreatedDateTime_utc',
      'Version',
      'IsReadOnly',
      'Lines',
    ]);
    expect(receipt).toMatchObject({ FriendlyStatus: 'In progress', IsReadOnly: false, LineCount: 2, TotalLines: 3 });
    expect(receipt.Lines?.map((shown) => shown.ID)).toEqual([1, 3]);
    expect(Object.keys(receipt.Lines?.[0] ?? {})).toEqual(['ID', 'GUID', 'SequenceNumber', 'QuantityOrdered', 'QuantityReceived', 'QuantityToBeReceived', 'IsActive']);
    expect(receipt.Lines?.[0]?.QuantityToBeReceived).toBe(7.5);
    expect(allowed).toEqual(['Complete', 'Cancelled']);
  });
});

describe('answers', () => {
  const view = receiptView(header, [line(1)]);

  it('answers a create 201 with its Location, an update 200, a queued completion 202', () => {
    const body = { Value: view.receipt, IsSuccess: true, Messages: [] };
    expect(savedAnswer({ ...view, created: true, completing: false })).toEqual({ status: 201, body, headers: { Location: '/api/v2/DeliveryReceipt/12' } });
    expect(savedAnswer({ ...view, created: false, completing: false })).toEqual({ status: 200, body, headers: {} });
    expect(savedAnswer({ ...view, created: false, completing: true })).toEqual({ status: 202, body, headers: {} });
    expect(inventoryAnswer(view)).toEqual(body);
  });

  it('puts AllowedStatuses before Value in Get', () => {
    const answer = readAnswer(view);
    expect(Object.keys(answer)).toEqual(['AllowedStatuses', 'Value', 'IsSuccess', 'Messages']);
    expect(answer.AllowedStatuses).toEqual(['Complete', 'Cancelled']);
  });
});
