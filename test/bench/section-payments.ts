// Benchmark section "payments": cold starts of the three payment functions (measured by section 1 with the requests
// below, shown here against the 1.3x target), the warm refund's p50 against a raw TransactWriteItems of the same
// items (the handler adds a consistent read of the payment, the ID sequence and the HTTP stack), and the capacity
// one refund consumes.
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Principal } from '../../shared/auth/principal';
import { paymentPostRefund } from '../../shared/operations/payments';
import { paymentsQueue } from '../../shared/events/queues';
import { paymentsQueueUrlVariable } from '../../shared/payments/queue';
import { createPaymentRepository, refundActions } from '../../shared/payments/repository';
import { buildRefund, readRefundRequest, type PaymentRecord } from '../../shared/payments/rules';
import { createPaymentService } from '../../shared/payments/service';
import { attachCapacityMeter, type CapacityTotals } from './capacity';
import { benchTenantIds, principalOf, type BenchContext } from './context';
import { lambdaContext, proxyEvent, type HttpRequest } from './events';
import type { ColdSection } from './section-cold';
import { interleave, type Comparison } from './section-warm';
import { coldRowsOf, ms, ratio, renderColdRows, renderTable, summarise, units, type ColdRow } from './stats';

const tenants = { cold: benchTenantIds.cold, warm: benchTenantIds.paymentsWarm, raw: benchTenantIds.paymentsRaw, capacity: benchTenantIds.paymentsCapacity } as const;
/** A payment large enough for every warm refund of 0.01 of a full run. */
const bigAmount = 1_000_000;

/** Section 1's requests for the payment functions (its cold tenant has payment 1, recorded by `seedColdPayment`). */
export const paymentColdRequests = (principal: Principal): Record<string, (run: number) => HttpRequest> => ({
  paymentPost: (run) => ({ principal, body: JSON.stringify({ Object: { Amount: 10 + run, Method: 'Cash' } }) }),
  paymentGetByID: () => ({ principal, pathParameters: { id: '1' } }),
  paymentPostRefund: () => ({ principal, pathParameters: { id: '1' }, body: JSON.stringify({ Object: { Amount: 0.01 } }) }),
});

/** What the refund function's environment adds: the payments queue's URL (its `sendPayments` grant). */
export const paymentColdEnvironment = (queueUrls: Readonly<Record<string, string>>): Record<string, string> => ({
  [paymentsQueueUrlVariable]: queueUrls[paymentsQueue.logicalName] ?? '',
});

/** The payment section 1's refund cold starts refund, in the cold tenant. */
export const seedColdPayment = async (ctx: BenchContext): Promise<void> => {
  const service = createPaymentService({ repository: createPaymentRepository(ctx.rawTable), publish: async () => undefined });
  await service.record(principalOf(tenants.cold), { Object: { Amount: bigAmount } });
};

export interface PaymentsSection {
  readonly cold: readonly ColdRow[];
  readonly coldTarget: number;
  readonly refund: Comparison;
  readonly refundCapacity: CapacityTotals;
  readonly rawCapacity: CapacityTotals;
}

type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export const runPaymentsSection = async (ctx: BenchContext, coldStart: ColdSection): Promise<PaymentsSection> => {
  const { rawTable, options, log } = ctx;
  const repository = createPaymentRepository(rawTable);
  const service = createPaymentService({ repository, publish: async () => undefined });
  const warm = principalOf(tenants.warm);
  const raw = principalOf(tenants.raw);
  await service.record(warm, { Object: { Amount: bigAmount } });
  await service.record(principalOf(tenants.capacity), { Object: { Amount: bigAmount } });
  await service.record(raw, { Object: { Amount: bigAmount } });

  const handler = (await ctx.loadHandler(paymentPostRefund.handler)) as unknown as HttpHandler;
  // Every refund of a series refunds the tenant's payment 1: a payment takes any number of refunds.
  const refundOnce = (principal: Principal) => async () => {
    const event = await proxyEvent(paymentPostRefund, { principal, pathParameters: { id: '1' }, body: JSON.stringify({ Object: { Amount: 0.01 } }) });
    return async () => {
      const result = await handler(event, lambdaContext(paymentPostRefund.operationId, 10_000));
      if (result.statusCode !== 201) throw new Error(`refund: expected 201, got ${result.statusCode}: ${result.body.slice(0, 300)}`);
    };
  };

  // The raw series writes the same three items (payment update under its condition, refund record, link) with
  // one TransactWriteItems, without reading the payment again.
  // Its conditions depend only on the payment's Amount, so the record read once serves every refund of the series.
  const original = (await repository.get(raw.tenantId, 1)) as PaymentRecord;
  let nextRawId = 1_000;
  const rawOnce = async () => {
    const refund = buildRefund(original, readRefundRequest({ Amount: 0.01 }), 1, 'inline', {
      id: (nextRawId += 1),
      guid: `00000000-0000-4000-8000-${String(nextRawId).padStart(12, '0')}`,
      now: new Date().toISOString(),
      userId: raw.userId,
    });
    const input = { TransactItems: refundActions(rawTable.tableName, raw.tenantId, { original, refund }).map((action) => action.item) };
    return async () => {
      await rawTable.client.send(new TransactWriteCommand(input));
    };
  };

  log(`payments: ${options.warmIterations} warm refunds against raw TransactWriteItems`);
  const series = await interleave(refundOnce(warm), rawOnce, options.warmIterations, options.warmupIterations);
  const handlerSummary = summarise(series.handler);
  const rawSummary = summarise(series.raw);
  const refund: Comparison = {
    name: 'paymentPostRefund (inline, 0.01)',
    handler: handlerSummary,
    raw: rawSummary,
    rawLabel: 'TransactWriteItems (same 3 items)',
    ratioP50: handlerSummary.p50 / rawSummary.p50,
    ratioP99: handlerSummary.p99 / rawSummary.p99,
    note: 'the handler also reads the payment (GetItem, consistent) and takes an ID (UpdateItem): 3 round trips to 1',
  };

  const refundCapacity = (await ctx.meter.measure(async () => (await refundOnce(principalOf(tenants.capacity))())())).capacity;
  const rawMeter = attachCapacityMeter(rawTable.client);
  const rawCapacity = (await rawMeter.measure(async () => (await rawOnce())())).capacity;

  const cold = coldRowsOf(coldStart.functions, (name) => name.startsWith('payment'));
  return { cold, coldTarget: coldStart.target, refund, refundCapacity, rawCapacity };
};

export const renderPaymentsSection = (section: PaymentsSection): string => {
  const title = 'Payments';
  const capacityRow = (label: string, totals: CapacityTotals) => [
    label,
    String(totals.requests),
    units(totals.readUnits),
    units(totals.writeUnits),
    Object.entries(totals.byCommand)
      .map(([command, counted]) => `${command.replace(/Command$/, '')} ${units(counted.units)}`)
      .join(', '),
  ];
  return [
    `\n${title}\n${'='.repeat(title.length)}`,
    renderColdRows(section.cold, section.coldTarget),
    '',
    renderTable(
      ['Warm (in process)', 'n', 'p50 ms', 'p99 ms', 'Raw call', 'raw p50', 'raw p99', 'p50 ratio'],
      [
        [
          section.refund.name,
          String(section.refund.handler.n),
          ms(section.refund.handler.p50),
          ms(section.refund.handler.p99),
          section.refund.rawLabel,
          ms(section.refund.raw.p50),
          ms(section.refund.raw.p99),
          ratio(section.refund.ratioP50),
        ],
      ],
    ),
    section.refund.note ?? '',
    '',
    renderTable(
      ['Capacity of one refund', 'requests', 'RCU', 'WCU', 'by command'],
      [capacityRow('paymentPostRefund handler', section.refundCapacity), capacityRow('raw TransactWriteItems', section.rawCapacity)],
    ),
  ].join('\n');
};
