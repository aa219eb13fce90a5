// Benchmark section "receipt completion": completing delivery receipts of 10, 100 and 1,000 lines (wall time from
// the request to Complete, the capacity consumed, whether stock on hand is exact), and the stock-on-hand function's
// cold start against the SDK-only baseline (measured by section 1; its request reads item 1 of the cold tenant,
// which `seedColdStock` puts on hand).
import { performance } from 'node:perf_hooks';
import { completeReceipt, continueCompletion, type CompletionMessage } from '#shared/delivery-receipts/completion';
import { createCompletionRepository } from '#shared/delivery-receipts/repository';
import { inventoryGetDetailedSOHV2 } from '#shared/operations/inventory';
import { expectedStock, manyLines, seedReceipt, stockOf } from '#test/integration/delivery-receipts/completion-support';
import type { CapacityTotals } from './capacity';
import type { BenchContext } from './context';
import { benchTenantIds } from './context';
import type { ColdSection } from './section-cold';
import { ms, ratio, renderTable, units } from './stats';

const tenants = { cold: benchTenantIds.cold, completion: benchTenantIds.receiptCompletion } as const;
const sizes = [
  { lines: 10, items: 10 },
  { lines: 100, items: 100 },
  { lines: 1000, items: 250 },
] as const;

/** Stock of item 1 in the cold tenant, so the stock-on-hand cold start answers 200 with a body. */
export const seedColdStock = async (ctx: BenchContext): Promise<void> => {
  const { receiptId, version } = await seedReceipt(ctx.rawTable, { tenantId: tenants.cold, lines: [{ InventoryID: 1, QuantityReceived: 12.5 }] });
  await completeReceipt(createCompletionRepository(ctx.rawTable), { tenantId: tenants.cold, receiptId, expectedVersion: version, actor: { userId: 1 }, now: new Date() }, { publish: async () => undefined });
};

export interface CompletionRow {
  readonly lines: number;
  readonly items: number;
  readonly mode: 'Complete' | 'Completing';
  readonly chunks: number;
  /** From the save's call to completeReceipt until the header is Complete (queue delivery not included). */
  readonly wallMs: number;
  readonly capacity: CapacityTotals;
  /** Items written transactionally: each stock item, movement and line once, plus the header and completion item. */
  readonly writtenItems: number;
  readonly stockExact: boolean;
}

export interface ReceiptCompletionSection {
  readonly rows: readonly CompletionRow[];
  readonly cold: readonly { name: string; medianMs: number; baselineMedianMs: number; ratio: number; verdict: string; response: string }[];
  readonly coldTarget: number;
}

export const runReceiptCompletionSection = async (ctx: BenchContext, coldStart: ColdSection): Promise<ReceiptCompletionSection> => {
  const { functionTable, rawTable, meter, log } = ctx;
  const rows: CompletionRow[] = [];
  for (const [index, size] of sizes.entries()) {
    // Each receipt has items of its own, so its stock must be exactly its own received quantities.
    const lines = manyLines(size.lines, size.items, 10_000 * (index + 1));
    const { receiptId, version } = await seedReceipt(rawTable, { tenantId: tenants.completion, lines });
    log(`receipt completion: ${size.lines} lines over ${size.items} items`);
    const sent: CompletionMessage[] = [];
    const started = performance.now();
    const { value, capacity } = await meter.measure(async () => {
      const { status } = await completeReceipt(createCompletionRepository(functionTable),
        { tenantId: tenants.completion, receiptId, expectedVersion: version, actor: { userId: 1 }, now: new Date() },
        { publish: async (message) => void sent.push(message) },
      );
      let chunks = status === 'Complete' ? 1 : 0;
      for (const message of sent) {
        const progress = await continueCompletion(createCompletionRepository(functionTable), message, {}, { publish: async () => undefined });
        if (progress.outcome !== 'stale') chunks += progress.chunksRun;
      }
      return { status, chunks };
    });
    const wallMs = performance.now() - started;
    const items = new Set(lines.map((line) => line.InventoryID as number));
    const stock = await stockOf(rawTable, tenants.completion, items);
    const expected = expectedStock(lines);
    const stockExact = stock.size === expected.size && [...expected].every(([item, quantity]) => stock.get(item) === quantity);
    // Single: the stock items, a movement and a line per line, the header. Chunked: also the start (header and
    // completion item), the completion item in every chunk.
    const writtenItems = items.size + 2 * lines.length + (value.status === 'Complete' ? 1 : 2 + value.chunks + 1);
    rows.push({ lines: size.lines, items: size.items, mode: value.status, chunks: value.chunks, wallMs, capacity, writtenItems, stockExact });
  }
  const cold = coldStart.functions
    .filter((fn) => fn.name === inventoryGetDetailedSOHV2.operationId)
    .map((fn) => ({ name: fn.name, medianMs: fn.medianMs, baselineMedianMs: fn.baselineMedianMs, ratio: fn.ratio, verdict: fn.verdict, response: fn.response }));
  return { rows, cold, coldTarget: coldStart.target };
};

export const renderReceiptCompletionSection = (section: ReceiptCompletionSection): string => {
  const title = 'Receipt completion and stock on hand';
  return [
    `\n${title}\n${'='.repeat(title.length)}`,
    renderTable(
      ['Lines', 'Items', 'Answer', 'Chunks', 'Wall ms', 'requests', 'RCU', 'WCU (Local)', 'Items written', 'WCU (rules)', 'Stock exact'],
      section.rows.map((row) => [
        String(row.lines),
        String(row.items),
        row.mode,
        String(row.chunks),
        ms(row.wallMs, 0),
        String(row.capacity.requests),
        units(row.capacity.readUnits),
        units(row.capacity.writeUnits),
        String(row.writtenItems),
        String(2 * row.writtenItems),
        row.stockExact ? 'yes' : 'NO',
      ]),
    ),
    'Wall time runs from completeReceipt to Complete, the consumer called directly (no queue delay). WCU (Local) is what\n' +
      'DynamoDB Local reports, which undercounts transactions; WCU (rules) is an estimate of DynamoDB\'s price: 2 per\n' +
      'transactional write of an item under 1 KB (stock, movement and line items are; a header may take 2).',
    '',
    renderTable(
      ['Function', 'Cold ms p50', 'Baseline ms', 'Ratio', `<=${section.coldTarget}x`, 'Response'],
      section.cold.map((fn) => [fn.name, ms(fn.medianMs, 0), ms(fn.baselineMedianMs, 0), ratio(fn.ratio), fn.verdict, fn.response]),
    ),
  ].join('\n');
};
