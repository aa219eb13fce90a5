// Benchmark section "payments" (issue 16, section 2): cold starts of the payment functions (measured by section 1 with
// the requests below, shown here against the 1.3x target), and for every payments operation (record, get, inline
// refund, the consumer settling a queued refund) its warm p50 and p99 in process against the raw DynamoDB calls its
// consistency needs (test/bench/README.md, "Round trips"), measured interleaved in the same run, with the calls the
// handler makes counted on the function's client; and the capacity one refund consumes.
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Principal } from '#shared/auth/principal';
import { maxSequenceValue, nextValue, nextValueInput } from '#shared/data/sequence';
import { paymentGetByID, paymentPost, paymentPostRefund } from '#shared/operations/payments';
import { paymentsQueue } from '#shared/events/queues';
import type { Operation } from '#shared/operations/operation';
import { paymentKey, paymentSequence, refundLinkKey } from '#shared/payments/keys';
import { paymentsQueueUrlVariable } from '#shared/payments/queue';
import { createPaymentRepository, recordActions, refundActions, settlementActions } from '#shared/payments/repository';
import { buildRefund, prepareNewPayment, readRefundRequest, settleRefund, type PaymentRecord } from '#shared/payments/rules';
import { createPaymentService } from '#shared/payments/service';
import { refundsPage } from '#shared/schemas/limits';
import { attachCapacityMeter, type CapacityTotals } from './capacity';
import { benchTenantIds, principalOf, type BenchContext } from './context';
import { benchQueueArn, lambdaContext, proxyEvent, sqsEvent, type HttpRequest } from './events';
import type { ReplayEvent } from './reference-calls';
import type { ColdSection } from './section-cold';
import { compare, interleave, type Comparison } from './section-warm';
import { comparisonTable } from './section-warm';
import { coldRowsOf, renderColdRows, renderTable, units, type ColdRow } from './stats';

const tenants = { cold: benchTenantIds.cold, floor: benchTenantIds.coldFloor, warm: benchTenantIds.paymentsWarm, raw: benchTenantIds.paymentsRaw, capacity: benchTenantIds.paymentsCapacity } as const;
/** A payment large enough for every warm refund of 0.01 of a full run. */
const bigAmount = 1_000_000;
/** Refunds of the payment the GET series reads (its first page holds them all). */
const refundsShown = 5;
/** Issue 16's target: p50 within 1.3x the raw calls the operation needs. */
export const paymentsTarget = 1.3;

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

/** What the service gives a record it writes (`prepareNewPayment`, `buildRefund`): its ID, a new GUID, now, the user. */
const writeContext = (userId: number) => (id: number) => ({ id, guid: randomUUID(), now: new Date().toISOString(), userId });

/** The payment section 1's refund cold starts refund, in the cold tenant; and the one its floor refunds, in the floors' tenant. */
export const seedColdPayment = async (ctx: BenchContext): Promise<void> => {
  const service = createPaymentService({ repository: createPaymentRepository(ctx.rawTable), publish: async () => undefined });
  await service.record(principalOf(tenants.cold), { Object: { Amount: bigAmount } });
  await service.record(principalOf(tenants.floor), { Object: { Amount: bigAmount } });
};

/**
 * Section 1's SDK-only floors of the two payment writes (test/bench/reference-calls.ts): the calls paymentPost and
 * paymentPostRefund make on their cold starts above, in the same order, with the items they write, built by the
 * service's own repository functions (`recordActions`, `refundActions`) in the floors' tenant. The record's ID is taken
 * here, before the cold start, so each run writes a new payment; the floor still sends its own UpdateItem, as the
 * function does.
 */
export const paymentFloorEvents = (ctx: BenchContext): Record<'paymentPost' | 'paymentPostRefund', (run: number) => Promise<ReplayEvent>> => {
  const { rawTable } = ctx;
  const { tableName } = rawTable;
  const tenantId = tenants.floor;
  const principal = principalOf(tenantId);
  const nextId = nextValueInput(tableName, tenantId, paymentSequence);
  const context = writeContext(principal.userId);
  let original: PaymentRecord | undefined;
  return {
    // The ID, then the payment and its GUID claim (paymentPost's cold request: no Idempotency-Key).
    paymentPost: async (run) => {
      const record = prepareNewPayment({ Amount: 10 + run, Method: 'Cash' }, context(await nextValue(rawTable, tenantId, paymentSequence)));
      return {
        steps: [
          [{ command: 'UpdateItem', input: nextId }],
          [{ command: 'TransactWriteItems', input: { TransactItems: recordActions(tableName, tenantId, record).map((action) => action.item) } }],
        ],
      };
    },
    // The payment (consistent) with the ID at once, then the payment's update, the refund and its link: 0.01 of payment 1.
    paymentPostRefund: async () => {
      original ??= (await createPaymentRepository(rawTable).get(tenantId, 1)) as PaymentRecord;
      const refund = buildRefund(original, readRefundRequest({ Amount: 0.01 }), 1, 'inline', context(await nextValue(rawTable, tenantId, paymentSequence)));
      return {
        steps: [
          [
            { command: 'UpdateItem', input: nextId },
            { command: 'GetItem', input: { TableName: tableName, Key: paymentKey(tenantId, 1), ConsistentRead: true } },
          ],
          [{ command: 'TransactWriteItems', input: { TransactItems: refundActions(tableName, tenantId, { original, refund }).map((action) => action.item) } }],
        ],
      };
    },
  };
};

/** One operation: its warm comparison, the calls one handler call makes (counted on the function's client), and the raw calls it needs. */
export interface PaymentOperation {
  readonly comparison: Comparison;
  readonly calls: CapacityTotals;
  readonly needs: string;
}

export interface PaymentsSection {
  readonly cold: readonly ColdRow[];
  readonly coldTarget: number;
  readonly operations: readonly PaymentOperation[];
  readonly refundCapacity: CapacityTotals;
  readonly rawCapacity: CapacityTotals;
}

type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
type Timed = () => Promise<() => Promise<unknown>>;

/** Section 1's figures are optional: `npm run bench -- --only payments` runs this section without them. */
export const runPaymentsSection = async (ctx: BenchContext, coldStart: ColdSection | undefined): Promise<PaymentsSection> => {
  const { rawTable, options, log } = ctx;
  const { client, tableName } = rawTable;
  const repository = createPaymentRepository(rawTable);
  const service = createPaymentService({ repository, publish: async () => undefined });
  const warm = principalOf(tenants.warm);
  const raw = principalOf(tenants.raw);
  // Payment 1 of each tenant takes every refund of the series; the second is the one the GET series reads.
  const seedPayments = async (principal: Principal) => {
    const refunded = (await service.record(principal, { Object: { Amount: bigAmount } })).payment.ID as number;
    const read = (await service.record(principal, { Object: { Amount: bigAmount } })).payment.ID as number;
    for (let index = 0; index < refundsShown; index += 1) await service.refund(principal, read, { Object: { Amount: 0.01 } });
    return { refunded, read };
  };
  const warmIds = await seedPayments(warm);
  const rawIds = await seedPayments(raw);
  await service.record(principalOf(tenants.capacity), { Object: { Amount: bigAmount } });
  const original = (await repository.get(raw.tenantId, rawIds.refunded)) as PaymentRecord;
  const context = writeContext(raw.userId);

  const http = async (operation: Operation, request: () => HttpRequest, expected: number): Promise<Timed> => {
    const handler = (await ctx.loadHandler(operation.handler)) as unknown as HttpHandler;
    return async () => {
      const event = await proxyEvent(operation, request());
      return async () => {
        const result = await handler(event, lambdaContext(operation.operationId, 10_000));
        if (result.statusCode !== expected) throw new Error(`${operation.operationId}: expected ${expected}, got ${result.statusCode}: ${result.body.slice(0, 300)}`);
      };
    };
  };

  // Record: the ID (UpdateItem ADD), then the payment and its GUID claim (TransactWriteItems).
  const recordHandler = await http(paymentPost, () => ({ principal: warm, body: JSON.stringify({ Object: { Amount: 1, Method: 'Cash' } }) }), 201);
  const recordRaw: Timed = async () => async () => {
    const id = await nextValue(rawTable, raw.tenantId, paymentSequence);
    const record = prepareNewPayment({ Amount: 1, Method: 'Cash' }, context(id));
    await client.send(new TransactWriteCommand({ TransactItems: recordActions(tableName, raw.tenantId, record).map((action) => action.item) }));
  };

  // Get: the payment with the first page of its refunds, one consistent Query.
  const getHandler = await http(paymentGetByID, () => ({ principal: warm, pathParameters: { id: String(warmIds.read) } }), 200);
  const getRaw: Timed = async () => async () => {
    const to = refundLinkKey(raw.tenantId, rawIds.read, maxSequenceValue);
    await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': to.pk, ':from': paymentKey(raw.tenantId, rawIds.read).sk, ':to': to.sk },
        ConsistentRead: true,
        Limit: refundsPage.default + 2,
      }),
    );
  };

  // Refund (inline): the payment (GetItem, consistent) with the ID (UpdateItem ADD) at once, then the payment's update
  // under its condition, the refund record and its link (TransactWriteItems). Its conditions depend only on the
  // payment's Amount, so the record read once builds every raw refund of the series.
  const refundHandler = await http(paymentPostRefund, () => ({ principal: warm, pathParameters: { id: String(warmIds.refunded) }, body: JSON.stringify({ Object: { Amount: 0.01 } }) }), 201);
  const refundRaw: Timed = async () => async () => {
    const [, id] = await Promise.all([
      client.send(new GetCommand({ TableName: tableName, Key: paymentKey(raw.tenantId, rawIds.refunded), ConsistentRead: true })),
      nextValue(rawTable, raw.tenantId, paymentSequence),
    ]);
    const refund = buildRefund(original, readRefundRequest({ Amount: 0.01 }), 1, 'inline', context(id));
    await client.send(new TransactWriteCommand({ TransactItems: refundActions(tableName, raw.tenantId, { original, refund }).map((action) => action.item) }));
  };

  // The consumer settling a queued refund: the refund (GetItem, consistent), then its record on its Version and its
  // link (TransactWriteItems). Each sample settles a refund queued before it (not timed).
  const consumer = (await ctx.loadHandler(paymentsQueue.consumer.handler)) as unknown as SqsHandler;
  const queueArn = benchQueueArn(paymentsQueue.localQueueName);
  const queueRefund = async (principal: Principal, paymentId: number) =>
    (await service.refund(principal, paymentId, { IsQueue: true, Object: { Amount: 0.01 } })).payment.ID as number;
  const consumerHandler: Timed = async () => {
    const refundId = await queueRefund(warm, warmIds.refunded);
    const event = sqsEvent([JSON.stringify({ tenantId: warm.tenantId, refundId })], queueArn);
    return async () => {
      const result = await consumer(event, lambdaContext(paymentsQueue.consumer.name, 30_000));
      if (result.batchItemFailures.length > 0) throw new Error(`paymentsConsumer: refund ${refundId} not settled`);
    };
  };
  const consumerRaw: Timed = async () => {
    const previous = (await repository.get(raw.tenantId, await queueRefund(raw, rawIds.refunded))) as PaymentRecord;
    return async () => {
      await client.send(new GetCommand({ TableName: tableName, Key: paymentKey(raw.tenantId, previous.fields.ID), ConsistentRead: true }));
      const next = settleRefund(previous, { status: 'Refunded' }, new Date().toISOString());
      await client.send(new TransactWriteCommand({ TransactItems: settlementActions(tableName, raw.tenantId, { previous, next, releaseMinor: 0 }).map((action) => action.item) }));
    };
  };

  const series: readonly { name: string; handler: Timed; raw: Timed; rawLabel: string; needs: string }[] = [
    { name: 'paymentPost', handler: recordHandler, raw: recordRaw, rawLabel: 'UpdateItem, then TransactWriteItems (2 items)', needs: 'the ID, then one transaction' },
    { name: `paymentGetByID (${refundsShown} refunds)`, handler: getHandler, raw: getRaw, rawLabel: 'Query (payment + first page)', needs: 'one Query' },
    { name: 'paymentPostRefund (inline, 0.01)', handler: refundHandler, raw: refundRaw, rawLabel: 'GetItem + UpdateItem at once, then TransactWriteItems (3 items)', needs: 'the read (with the ID beside it), then one transaction' },
    { name: 'paymentsConsumer (settle one queued refund)', handler: consumerHandler, raw: consumerRaw, rawLabel: 'GetItem, then TransactWriteItems (2 items)', needs: 'the read, then one transaction' },
  ];
  const operations: PaymentOperation[] = [];
  for (const operation of series) {
    log(`payments: ${options.warmIterations} warm ${operation.name} against ${operation.rawLabel}`);
    const samples = await interleave(operation.handler, operation.raw, options.warmIterations, options.warmupIterations);
    const call = await operation.handler();
    const { capacity: calls } = await ctx.meter.measure(call);
    operations.push({ comparison: compare(operation.name, operation.rawLabel, samples, paymentsTarget), calls, needs: operation.needs });
  }

  const refundCapacity = (await ctx.meter.measure(async () => (await refundHandler())())).capacity;
  const rawMeter = attachCapacityMeter(rawTable.client);
  const rawCapacity = (await rawMeter.measure(async () => (await refundRaw())())).capacity;

  const cold = coldStart ? coldRowsOf(coldStart.functions, (name) => name.startsWith('payment')) : [];
  return { cold, coldTarget: coldStart?.target ?? paymentsTarget, operations, refundCapacity, rawCapacity };
};

const commandsOf = (totals: CapacityTotals) =>
  Object.entries(totals.byCommand)
    .map(([command, counted]) => `${counted.requests} ${command.replace(/Command$/, '')}`)
    .join(', ');

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
    section.cold.length > 0 ? renderColdRows(section.cold, section.coldTarget) : '(cold starts: section 1 did not run)',
    '',
    comparisonTable(section.operations.map(({ comparison }) => comparison)),
    '',
    renderTable(
      ['Operation', 'Calls one handler call makes', 'Needs'],
      section.operations.map(({ comparison, calls, needs }) => [comparison.name, commandsOf(calls), needs]),
    ),
    '',
    renderTable(
      ['Capacity of one refund', 'requests', 'RCU', 'WCU', 'by command'],
      [capacityRow('paymentPostRefund handler', section.refundCapacity), capacityRow('raw calls', section.rawCapacity)],
    ),
  ].join('\n');
};
