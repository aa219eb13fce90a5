// Integration: the round trips of the payments operations (issue 16, section 2), against DynamoDB Local. The refund
// takes its ID while it reads the payment and gives it back when it is refused, so a refused refund leaves the
// tenant's items exactly as they were, its sequence included (even a sequence it created); the first page of a
// payment is one Query (and a GetItem confirming the payment when more refunds follow the page). Calls are counted on the client the repository uses.
import { describe, expect, it } from '@jest/globals';
import { createPaymentRepository } from '#shared/payments/repository';
import { createPaymentService } from '#shared/payments/service';
import { failureOf, freshPrincipal, tenantItems } from './support';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();

/** Counts the commands the client sends while `work` runs. */
const callsOf = async (work: () => Promise<unknown>): Promise<Record<string, number>> => {
  const counted: Record<string, number> = {};
  let on = true;
  const name = `count-${Math.random()}`;
  table.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (on) counted[context.commandName ?? '?'] = (counted[context.commandName ?? '?'] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    on = false;
    table.client.middlewareStack.remove(name);
  }
  return counted;
};

const service = createPaymentService({ repository: createPaymentRepository(table), publish: async () => undefined });

describe('a refused refund', () => {
  it('leaves a tenant with no payment without any item, not even the sequence its ID created', async () => {
    const principal = freshPrincipal();
    const refused = await failureOf(service.refund(principal, 1, { Object: { Amount: 1 } }));
    expect({ refused, items: await tenantItems(table, principal.tenantId) }).toEqual({
      refused: { name: 'NotFound', status: 404, detail: 'Payment 1 does not exist.' },
      items: [],
    });
  });

  it('leaves every item as it was (409 and 400 decided on the read), and the next refund takes the next ID', async () => {
    const principal = freshPrincipal();
    const { payment } = await service.record(principal, { Object: { Amount: 10 } });
    const before = await tenantItems(table, principal.tenantId);

    const outcomes = [
      await failureOf(service.refund(principal, 1, { Object: { Amount: 10.01 } })),
      await failureOf(service.refund(principal, 1, { Object: { Amount: 1, Currency: 'USD' } })),
      await failureOf(service.refund(principal, 2, { Object: { Amount: 1 } })),
    ];

    expect(outcomes.map(({ status }) => status)).toEqual([409, 400, 404]);
    expect(await tenantItems(table, principal.tenantId)).toEqual(before);
    expect((await service.refund(principal, payment.ID as number, { Object: { Amount: 1 } })).payment.ID).toBe(2);
  });
});

describe('calls per operation', () => {
  it('a refund: the read and the ID (sent at once), then one transaction', async () => {
    const principal = freshPrincipal();
    await service.record(principal, { Object: { Amount: 10 } });
    expect(await callsOf(() => service.refund(principal, 1, { Object: { Amount: 1 } }))).toEqual({
      GetItemCommand: 1,
      UpdateItemCommand: 1,
      TransactWriteItemsCommand: 1,
    });
  });

  it('a payment with every refund on its first page: one Query', async () => {
    const principal = freshPrincipal();
    await service.record(principal, { Object: { Amount: 10 } });
    for (let index = 0; index < 2; index += 1) await service.refund(principal, 1, { Object: { Amount: 1 } });

    let first: unknown;
    expect(await callsOf(async () => (first = await service.get(principal, 1, { MaxRefunds: 2 })))).toEqual({ QueryCommand: 1 });
    expect(first).toMatchObject({ ID: 1, RefundCount: 2, Refunds: [{ ID: 2 }, { ID: 3 }], MoreRefunds: false });
  });

  it('a first page with more refunds after it: a Query, then a GetItem confirming the payment; a later page: a GetItem and a Query', async () => {
    const principal = freshPrincipal();
    await service.record(principal, { Object: { Amount: 10 } });
    for (let index = 0; index < 3; index += 1) await service.refund(principal, 1, { Object: { Amount: 1 } });

    let first: unknown;
    let later: unknown;
    const firstCalls = await callsOf(async () => (first = await service.get(principal, 1, { MaxRefunds: 2 })));
    const laterCalls = await callsOf(async () => (later = await service.get(principal, 1, { RefundsAfterID: 3, MaxRefunds: 2 })));

    expect({ firstCalls, laterCalls }).toEqual({ firstCalls: { QueryCommand: 1, GetItemCommand: 1 }, laterCalls: { GetItemCommand: 1, QueryCommand: 1 } });
    expect(first).toMatchObject({ ID: 1, RefundCount: 3, Refunds: [{ ID: 2 }, { ID: 3 }], MoreRefunds: true });
    expect(later).toMatchObject({ ID: 1, RefundCount: 3, Refunds: [{ ID: 4 }], MoreRefunds: false });
  });

  it('a refund read by its own ID: one Query, and no refunds listed', async () => {
    const principal = freshPrincipal();
    await service.record(principal, { Object: { Amount: 10 } });
    await service.refund(principal, 1, { Object: { Amount: 1 } });
    expect(await service.get(principal, 2)).toMatchObject({ ID: 2, IsRefund: true, OriginalPaymentID: 1 });
    expect(await service.get(principal, 2)).not.toHaveProperty('Refunds');
  });
});
