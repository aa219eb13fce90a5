// Benchmark section "delivery receipts": the cold starts of save, get and add inventory against the SDK-only
// baseline (measured by section 1, on the cold tenant's receipt 1 that `seedColdReceipt` creates), and Get of a
// 100-line receipt, warm and in process, against the raw Query of its partition that Get is built on (same run,
// interleaved), with the capacity each consumes.
import { PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/principal';
import { stockOnHandKey, stockOnHandPartition, warehouseSortKeyPrefix } from '#shared/data/stock-on-hand-keys';
import { headerSortKey, lineSortKeyPrefix, receiptPartition } from '#shared/delivery-receipts/keys';
import { createReceiptRepository } from '#shared/delivery-receipts/repository';
import { createReceiptService } from '#shared/delivery-receipts/service';
import { deliveryReceiptAddInventory, deliveryReceiptGetV2, deliveryReceiptSaveV2 } from '#shared/operations/delivery-receipts';
import { inventoryGetDetailedSOHV2 } from '#shared/operations/inventory';
import type { CapacityTotals } from './capacity';
import { benchTenantIds, principalOf, type BenchContext } from './context';
import type { HttpRequest } from './events';
import type { ColdSection } from './section-cold';
import { compare, comparisonTable, httpCall, interleave, type Comparison } from './section-warm';
import { coldRowsOf, ms, ratio, renderColdRows, renderTable, units, type ColdRow } from './stats';

const tenants = { cold: benchTenantIds.cold, get: benchTenantIds.receiptGet } as const;
const getLines = 100;
/** Get p50 against the raw Query of the same partition: the handler parses, authorises, shapes and serialises. */
export const receiptGetTarget = 1.3;

const receiptOperations = [deliveryReceiptSaveV2, deliveryReceiptGetV2, deliveryReceiptAddInventory] as const;
const receiptOperationIds: ReadonlySet<string> = new Set(receiptOperations.map((operation) => operation.operationId));

/** `count` lines as a client sends them: what was ordered and received, a SKU and a description. */
const benchLines = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    InventoryID: index + 1,
    SKU: `BENCH-${index + 1}`,
    Description: `Bench item ${index + 1}`,
    QuantityOrdered: 12,
    QuantityReceived: 10.5,
    CostPriceEx: 3.75,
  }));

/** The requests section 1 sends the three functions (the cold tenant's receipt 1, seeded by seedColdReceipt). */
export const receiptColdRequests = (principal: Principal): Record<string, (run: number) => HttpRequest> => ({
  deliveryReceiptSaveV2: (run) => ({ principal, body: JSON.stringify({ Value: { SupplierName: `Cold ${run}`, Lines: benchLines(3) } }) }),
  deliveryReceiptGetV2: () => ({ principal, pathParameters: { id: '1' } }),
  deliveryReceiptAddInventory: (run) => ({
    principal,
    pathParameters: { id: '1' },
    body: JSON.stringify({ Value: { InventoryList: [{ InventoryID: 1, Quantity: 12 + run, BuyPriceEx: 3.75 }] } }),
  }),
});

const serviceOf = (ctx: BenchContext) =>
  createReceiptService({
    repository: createReceiptRepository(ctx.rawTable),
    complete: async () => {
      throw new Error('the bench completes no receipt here');
    },
  });

/** Receipt 1 of the cold tenant, which the get and add-inventory cold starts read. */
export const seedColdReceipt = async (ctx: BenchContext): Promise<void> => {
  await serviceOf(ctx).save(principalOf(tenants.cold), { Value: { SupplierName: 'Cold', Lines: benchLines(10) } });
};

export interface DeliveryReceiptsSection {
  readonly cold: readonly ColdRow[];
  readonly coldTarget: number;
  readonly get: Comparison;
  readonly stock: Comparison;
  readonly getCapacity: CapacityTotals;
  readonly rawReadUnits: number;
  readonly bodyBytes: number;
}

/** The Query Get sends: the header and the lines of the receipt's partition, strongly consistent. */
const rawReceiptQuery = (tableName: string, tenantId: number, receiptId: number): QueryCommandInput => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
  ExpressionAttributeValues: { ':pk': receiptPartition(tenantId, receiptId), ':from': headerSortKey, ':to': `${lineSortKeyPrefix}~` },
  ConsistentRead: true,
});

/** Warehouses of the item whose stock on hand is read (as completion writes them: one item per warehouse). */
const stockWarehouses = 5;
const stockInventoryId = 1;

/** The Query stock on hand sends: the item's partition, strongly consistent, two attributes. */
const rawStockQuery = (tableName: string, tenantId: number): QueryCommandInput => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': stockOnHandPartition(tenantId, stockInventoryId), ':prefix': warehouseSortKeyPrefix },
  ProjectionExpression: 'WarehouseID, TotalSOH',
  ConsistentRead: true,
});

/** Stock on hand of one item against the raw Query it is built on (same run, interleaved). */
const compareStockOnHand = async (ctx: BenchContext, principal: Principal): Promise<Comparison> => {
  const { rawTable, options } = ctx;
  for (let warehouseId = 1; warehouseId <= stockWarehouses; warehouseId += 1) {
    const key = stockOnHandKey(principal.tenantId, stockInventoryId, warehouseId);
    await rawTable.client.send(
      new PutCommand({
        TableName: rawTable.tableName,
        Item: { ...key, entity: 'StockOnHand', InventoryID: stockInventoryId, WarehouseID: warehouseId, TotalSOH: 10.5 * warehouseId },
      }),
    );
  }
  const handler = await ctx.loadHandler(inventoryGetDetailedSOHV2.handler);
  const stockOnce = httpCall(handler, inventoryGetDetailedSOHV2, () => ({ principal, pathParameters: { id: String(stockInventoryId) } }), 200);
  const input = rawStockQuery(rawTable.tableName, principal.tenantId);
  const rawOnce = async () => async () => {
    const { Items } = await rawTable.client.send(new QueryCommand(input));
    if (Items?.length !== stockWarehouses) throw new Error(`raw Query read ${Items?.length ?? 0} items, not ${stockWarehouses}`);
  };
  ctx.log(`delivery receipts: ${options.warmIterations} warm stock-on-hand reads of ${stockWarehouses} warehouses against the raw Query`);
  const series = await interleave(stockOnce, rawOnce, options.warmIterations, options.warmupIterations);
  return compare(
    `inventoryGetDetailedSOHV2 (${stockWarehouses} warehouses)`,
    'Query of the item (consistent)',
    series,
    receiptGetTarget,
    'stock on hand reads through the raw client (exact decimals) and sums bigints',
  );
};

export const runDeliveryReceiptsSection = async (ctx: BenchContext, coldStart: ColdSection): Promise<DeliveryReceiptsSection> => {
  const { rawTable, options, log } = ctx;
  const principal = principalOf(tenants.get);
  const { receipt } = await serviceOf(ctx).save(principal, { Value: { SupplierName: 'Bench', Lines: benchLines(getLines) } });
  const receiptId = receipt.ID as number;
  const bodyBytes = Buffer.byteLength(JSON.stringify(receipt), 'utf8');

  const handler = await ctx.loadHandler(deliveryReceiptGetV2.handler);
  const getOnce = httpCall(handler, deliveryReceiptGetV2, () => ({ principal, pathParameters: { id: String(receiptId) } }), 200);
  const input = rawReceiptQuery(rawTable.tableName, principal.tenantId, receiptId);
  const rawOnce = async () => async () => {
    const { Items } = await rawTable.client.send(new QueryCommand(input));
    if (Items?.length !== getLines + 1) throw new Error(`raw Query read ${Items?.length ?? 0} items, not ${getLines + 1}`);
  };

  log(`delivery receipts: ${options.warmIterations} warm Gets of a ${getLines}-line receipt against the raw Query`);
  const series = await interleave(getOnce, rawOnce, options.warmIterations, options.warmupIterations);
  const get = compare(
    `deliveryReceiptGetV2 (${getLines} lines)`,
    'Query of the partition (consistent)',
    series,
    receiptGetTarget,
    'the handler runs the whole stack (authorizer context, negotiation, validation) and answers JSON of every line',
  );
  const getCapacity = (await ctx.meter.measure(async () => (await getOnce())())).capacity;
  // The raw client may carry another section's meter already: the raw Query asks for its capacity itself.
  const measured = await rawTable.client.send(new QueryCommand({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
  const rawReadUnits = measured.ConsumedCapacity?.CapacityUnits ?? 0;

  const stock = await compareStockOnHand(ctx, principal);

  const cold = coldRowsOf(coldStart.functions, (name) => receiptOperationIds.has(name));
  return { cold, coldTarget: coldStart.target, get, stock, getCapacity, rawReadUnits, bodyBytes };
};

export const renderDeliveryReceiptsSection = (section: DeliveryReceiptsSection): string => {
  const title = 'Delivery receipts: save, get, add inventory';
  const { get, stock } = section;
  return [
    `\n${title}\n${'='.repeat(title.length)}`,
    renderColdRows(section.cold, section.coldTarget),
    '',
    comparisonTable([get, stock]),
    `${get.note ?? ''}; the receipt's JSON is ${section.bodyBytes.toLocaleString('en')} bytes. Stock on hand: ${stock.note ?? ''}.`,
    '',
    renderTable(
      ['Capacity of one Get', 'requests', 'RCU'],
      [
        ['deliveryReceiptGetV2 handler', String(section.getCapacity.requests), units(section.getCapacity.readUnits)],
        ['raw Query', '1', units(section.rawReadUnits)],
      ],
    ),
  ].join('\n');
};
