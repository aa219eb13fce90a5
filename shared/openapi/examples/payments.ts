// OpenAPI examples: payments. The run records payment 1 (AUD 100.00), refunds 25.50 of it inline, then reads it.
import { succeeded } from './envelopes';
import type { AreaExamples } from './types';

const paidAt = '2026-03-02T01:15:00.000Z';
const refundedAt = '2026-03-02T01:20:00.000Z';
const when = { DateTimeString: '2 Mar 2026 1:15 AM', DateString: '2 Mar 2026' };

const record = (id: number, guid: string) => ({
  ID: id,
  GUID: guid,
  GUIDstring: guid,
  Version: 1,
  RefNumber: `PY-00000${id}`,
});

const outcome = (id: number, guid: string) => ({
  Value: { ID: id, RefNumber: `PY-00000${id}`, GUIDstring: guid, GUID: guid, Status: 0, StatusString: 'Ok', SyncStatus: 'Ready', Messages: [], IsUpdate: false, Codes: [] },
  ...succeeded,
});

const stamps = (created: string, modified = created) => ({
  CreatedDateTime_utc: created,
  CreatedByUserID: 1,
  ModifiedDateTime_utc: modified,
  ModifiedByUserID: 1,
});

/** Payment 1 as recorded. */
const payment = {
  ...record(1, 'd39d7bb4-20da-4f88-9e2a-c4c15edbb079'),
  Description: 'Invoice 1001',
  Method: 'Eftpos',
  Status: 'Paid',
  IsPaid: true,
  IsActive: true,
  IsRefund: false,
  IsRefunded: false,
  Currency: 'AUD',
  Amount: 100,
  AmountString: '$100.00',
  Balance: 100,
  RefundedAmount: 0,
  RefundedAmountString: '$0.00',
  BalanceString: '$100.00',
  DateTime: paidAt,
  ...when,
  PaymentDateTime_utc: paidAt,
  PaymentDateTime_offset: 0,
  Refunds: [],
  RefundCount: 0,
  MoreRefunds: false,
  ...stamps(paidAt),
};

const refund = (id: number, guid: string, amount: number, status: 'Refunded' | 'Queued', log: { Code: string; Message: string }) => ({
  ...record(id, guid),
  Description: status === 'Refunded' ? 'Damaged item' : 'Late delivery',
  Method: 'Eftpos',
  TransactionType: 'Refund',
  Status: status,
  IsPaid: status === 'Refunded',
  IsActive: true,
  IsRefund: true,
  IsRefunded: false,
  OriginalPaymentID: 1,
  Currency: 'AUD',
  Amount: amount,
  AmountString: `$${amount.toFixed(2)}`,
  Balance: 0,
  RefundedAmount: 0,
  RefundedAmountString: '$0.00',
  BalanceString: '$0.00',
  DateTime: refundedAt,
  DateTimeString: '2 Mar 2026 1:20 AM',
  DateString: when.DateString,
  PaymentDateTime_utc: refundedAt,
  PaymentDateTime_offset: 0,
  PaymentUserID: 1,
  PaymentLogs: [{ ID: 1, ...log, LogDateTime_utc: refundedAt, LogDateTime_offset: 0, PaymentStatus: status, UserID: 1 }],
  ...stamps(refundedAt),
});

const inlineRefund = refund(2, '52ede347-2df5-4565-9c1f-736d0088721d', 25.5, 'Refunded', {
  Code: 'REFUNDED',
  Message: 'Refunded $25.50 of payment PY-000001.',
});
const queuedRefund = refund(3, '3e16f663-ae92-4387-b5ba-0a2a421bfa57', 10, 'Queued', {
  Code: 'REFUND_QUEUED',
  Message: 'Refund of $10.00 of payment PY-000001 queued; the amount is reserved.',
});

export const paymentExamples: AreaExamples = {
  operations: {
    paymentPost: {
      requests: {
        eftpos: { summary: 'An EFTPOS payment of AUD 100.00', body: { Object: { Amount: 100, Currency: 'AUD', Method: 'Eftpos', Description: 'Invoice 1001' } } },
      },
      responses: { 201: { Object: payment, IsQueued: false, IsQueuePrompt: false, ...outcome(1, payment.GUID) } },
    },
    paymentPostRefund: {
      parameters: { id: 1 },
      requests: {
        inline: { summary: 'Refund 25.50 now', body: { Object: { Amount: 25.5, Description: 'Damaged item' } } },
        queued: { summary: 'Refund 10.00 through the payments queue', body: { Object: { Amount: 10, Description: 'Late delivery' }, IsQueue: true } },
      },
      responses: {
        201: { Object: inlineRefund, IsQueued: false, IsQueuePrompt: false, ...outcome(2, inlineRefund.GUID) },
        202: { Object: queuedRefund, IsQueued: true, IsQueuePrompt: false, ...outcome(3, queuedRefund.GUID) },
      },
    },
    paymentGetByID: {
      parameters: { id: 1 },
      responses: {
        200: {
          Value: {
            ...payment,
            Version: 2,
            Balance: 74.5,
            RefundedAmount: 25.5,
            RefundedAmountString: '$25.50',
            BalanceString: '$74.50',
            Refunds: [{ ID: 2, Amount: 25.5, Status: 'Refunded', RefNumber: 'PY-000002' }],
            RefundCount: 1,
            ModifiedDateTime_utc: refundedAt,
          },
          ...succeeded,
        },
      },
    },
  },
  run: [
    { operationId: 'paymentPost', request: 'eftpos', status: 201 },
    { operationId: 'paymentPostRefund', request: 'inline', status: 201 },
    { operationId: 'paymentPostRefund', request: 'queued', status: 202 },
    { operationId: 'paymentGetByID', status: 200 },
  ],
};
