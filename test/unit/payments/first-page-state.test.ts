// Unit: a payment's first page of refunds shows one state of the payment (shared/payments/repository.ts `oneState`).
// A Query is not isolated from transactions: a refund or a release committing while it reads can show the payment
// before it and a link after it. The Query's answers are scripted here (DynamoDB Local answers a Query whole, so the
// torn read cannot be made against it); the page is read again until the payment's totals and its links agree.
import { describe, expect, it } from '@jest/globals';
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { refundLinkKey } from '#shared/payments/keys';
import { createPaymentRepository, toItem } from '#shared/payments/repository';
import type { PaymentRecord, StoredPaymentFields } from '#shared/payments/rules';

const tenantId = 7;

const payment = (version: number, refundedMinor: number, refundCount: number): PaymentRecord => ({
  fields: { ID: 1, Version: version, Currency: 'EUR', Status: 'Paid', RefNumber: 'PY-000001' } as unknown as StoredPaymentFields,
  amountMinor: 10_000,
  refundedMinor,
  refundCount,
});

const link = (id: number, amountMinor: number, status = 'Refunded') => ({
  ...refundLinkKey(tenantId, 1, id),
  entity: 'PaymentRefundLink',
  ID: id,
  amountMinor,
  Currency: 'EUR',
  Status: status,
  RefNumber: `PY-${String(id).padStart(6, '0')}`,
});

/** A repository whose Queries and GetItems are answered in turn from the scripts; counts what it sent. */
const scripted = (queries: readonly Record<string, unknown>[][], gets: readonly PaymentRecord[] = []) => {
  const sent = { Query: 0, GetItem: 0 };
  const client = {
    send: async (command: unknown) => {
      if (command instanceof QueryCommand) return { Items: queries[Math.min(sent.Query++, queries.length - 1)] };
      if (command instanceof GetCommand) return { Item: toItem(tenantId, gets[Math.min(sent.GetItem++, gets.length - 1)]!) };
      throw new Error('unexpected command');
    },
  } as unknown as DynamoDBDocumentClient;
  return { repository: createPaymentRepository({ client, tableName: 'business' }), sent };
};

const item = (record: PaymentRecord) => toItem(tenantId, record);

describe("a payment's first page of refunds", () => {
  it('read as one state is answered from one Query', async () => {
    const { repository, sent } = scripted([[item(payment(3, 300, 2)), link(2, 100), link(3, 200)]]);
    const view = await repository.getWithRefunds(tenantId, 1, { afterId: 0, limit: 10 });
    expect(view).toMatchObject({ record: { refundCount: 2, refundedMinor: 300 }, refunds: [{ ID: 2 }, { ID: 3 }], more: false });
    expect(sent).toEqual({ Query: 1, GetItem: 0 });
  });

  it("that read a refund's link but not its payment's count is read again", async () => {
    const torn = [item(payment(2, 100, 1)), link(2, 100), link(3, 200)];
    const whole = [item(payment(3, 300, 2)), link(2, 100), link(3, 200)];
    const { repository, sent } = scripted([torn, whole]);
    const view = await repository.getWithRefunds(tenantId, 1, { afterId: 0, limit: 10 });
    expect(view).toMatchObject({ record: { refundCount: 2, refundedMinor: 300 }, refunds: [{ ID: 2 }, { ID: 3 }] });
    expect(sent.Query).toBe(2);
  });

  it("that read a failed refund's link before its payment's release is read again", async () => {
    const torn = [item(payment(3, 300, 2)), link(2, 100), link(3, 200, 'Failed')];
    const whole = [item(payment(4, 100, 2)), link(2, 100), link(3, 200, 'Failed')];
    const { repository, sent } = scripted([torn, whole]);
    const view = await repository.getWithRefunds(tenantId, 1, { afterId: 0, limit: 10 });
    expect(view).toMatchObject({ record: { refundedMinor: 100 }, refunds: [{ ID: 2 }, { ID: 3, Status: 'Failed' }] });
    expect(sent.Query).toBe(2);
  });

  it('with more after it is confirmed by the payment read again, and read again when a transaction committed', async () => {
    const before = payment(4, 300, 3);
    const after = payment(5, 400, 4);
    // Refunds 4 and 5 took their IDs at once; 5 committed first, 4 while the Query read: its link shows, its count not.
    const torn = [item(before), link(2, 100), link(3, 100), link(4, 100)];
    const whole = [item(after), link(2, 100), link(3, 100), link(4, 100)];
    const { repository, sent } = scripted([torn, whole], [after, after]);
    const view = await repository.getWithRefunds(tenantId, 1, { afterId: 0, limit: 2 });
    expect(view).toMatchObject({ record: { refundCount: 4, fields: { Version: 5 } }, refunds: [{ ID: 2 }, { ID: 3 }], more: true });
    expect(sent).toEqual({ Query: 2, GetItem: 2 });
  });

  it('that never shows one state is answered as last read after three reads (no such data is known)', async () => {
    const odd = [item(payment(3, 999, 5)), link(2, 100)];
    const { repository, sent } = scripted([odd]);
    const view = await repository.getWithRefunds(tenantId, 1, { afterId: 0, limit: 10 });
    expect(view).toMatchObject({ record: { refundCount: 5 }, refunds: [{ ID: 2 }] });
    expect(sent.Query).toBe(3);
  });

  it('of an unknown ID is undefined after one Query', async () => {
    const { repository, sent } = scripted([[]]);
    expect(await repository.getWithRefunds(tenantId, 1, { afterId: 0, limit: 10 })).toBeUndefined();
    expect(sent).toEqual({ Query: 1, GetItem: 0 });
  });
});
