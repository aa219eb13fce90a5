// Benchmark section "receipt search": what a page of delivery-receipt Search consumes, read from DynamoDB's own
// answers through the function's handler (capacity meter on its client): the first and the fifth page of 50 (the
// fifth reached by paging forward, so it continues from a cached continuation), in each sort order, for a tenant
// of 20 and one of 20,000 receipts; the fifth page without its continuation (read from the start) and the
// count-only form, whose costs README.md documents; and the search function's cold start (section 1) against the
// SDK-only baseline.
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Principal } from '#shared/auth/principal';
import { receiptSortFields } from '#shared/delivery-receipts/search-keys';
import { deliveryReceiptSearchV2 } from '#shared/operations/delivery-receipts';
import { receiptsOf, seedReceipts } from '#test/support/delivery-receipt-search-seed';
import { benchTenantIds, principalOf, type BenchContext } from './context';
import { lambdaContext, proxyEvent } from './events';
import type { ColdSection } from './section-cold';
import { ms, ratio, renderTable, units } from './stats';

const tenants = { small: benchTenantIds.receiptSearchSmall, large: benchTenantIds.receiptSearchLarge } as const;
const pageSize = 50;
/** The target: page 5 within 2x of page 1. */
export const receiptSearchPageTarget = 2;

type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface SearchPageRow {
  readonly sortField: string;
  readonly receipts: number;
  readonly firstRows: number;
  readonly firstUnits: number;
  readonly fifthRows: number;
  readonly fifthUnits: number;
  readonly fifthWithoutContinuationUnits: number;
  readonly verdict: string;
}

export interface ReceiptSearchSection {
  readonly pages: readonly SearchPageRow[];
  readonly countOnly: readonly { readonly receipts: number; readonly readUnits: number }[];
  readonly cold?: { readonly medianMs: number; readonly baselineMedianMs: number; readonly ratio: number; readonly verdict: string; readonly target: number };
}

export const runReceiptSearchSection = async (ctx: BenchContext, coldStart: ColdSection): Promise<ReceiptSearchSection> => {
  const { rawTable, meter, log, options } = ctx;
  const largeCount = options.quick ? 2_000 : 20_000;
  const sizes: readonly [Principal, number][] = [
    [principalOf(tenants.small), 20],
    [principalOf(tenants.large), largeCount],
  ];
  log(`receipt search: seeding 20 and ${largeCount.toLocaleString('en')} receipts`);
  for (const [principal, count] of sizes) await seedReceipts(rawTable, principal.tenantId, receiptsOf(principal.tenantId, count), 8);

  const handler = (await ctx.loadHandler(deliveryReceiptSearchV2.handler)) as unknown as HttpHandler;
  const searchOnce = async (principal: Principal, filter: object) => {
    const event = await proxyEvent(deliveryReceiptSearchV2, { principal, body: JSON.stringify(filter) });
    const { value, capacity } = await meter.measure(() => handler(event, lambdaContext(deliveryReceiptSearchV2.operationId, 10_000)));
    if (value.statusCode !== 200) throw new Error(`receipt search: expected 200, got ${value.statusCode}: ${value.body.slice(0, 300)}`);
    return { page: JSON.parse(value.body) as { Count: number; LastRowNumber: number; TotalRecordCount: number }, readUnits: capacity.readUnits };
  };

  const pages: SearchPageRow[] = [];
  for (const sortField of receiptSortFields) {
    for (const [principal, count] of sizes) {
      const filter = { SortField: sortField, SortAsc: false, MaxResults: pageSize };
      let LastRowNumber = 0;
      let first = { rows: 0, units: 0 };
      let fifth = { rows: 0, units: 0 };
      for (let page = 1; page <= 5; page += 1) {
        const answer = await searchOnce(principal, { ...filter, LastRowNumber });
        if (page === 1) first = { rows: answer.page.Count, units: answer.readUnits };
        if (page === 5) fifth = { rows: answer.page.Count, units: answer.readUnits };
        if (page < 5) LastRowNumber = answer.page.LastRowNumber;
      }
      // The same fifth page as another query (every RefNumber holds a '-', so the same rows), whose continuation was
      // never cached: read from the start. (Naming the four statuses but Cancelled would be the same query.)
      const fromStart = await searchOnce(principal, { ...filter, SearchString: '-', LastRowNumber });
      pages.push({
        sortField,
        receipts: count,
        firstRows: first.rows,
        firstUnits: first.units,
        fifthRows: fifth.rows,
        fifthUnits: fifth.units,
        fifthWithoutContinuationUnits: fromStart.readUnits,
        verdict: fifth.units <= receiptSearchPageTarget * first.units ? 'PASS' : 'OVER',
      });
    }
  }

  const countOnly = [];
  for (const [principal, count] of sizes) countOnly.push({ receipts: count, readUnits: (await searchOnce(principal, { GetCountOnly: true })).readUnits });

  const coldFigures = coldStart.functions.find((fn) => fn.name === deliveryReceiptSearchV2.operationId);
  const cold = coldFigures
    ? { medianMs: coldFigures.medianMs, baselineMedianMs: coldFigures.baselineMedianMs, ratio: coldFigures.ratio, verdict: coldFigures.verdict, target: coldStart.target }
    : undefined;
  return { pages, countOnly, ...(cold ? { cold } : {}) };
};

export const renderReceiptSearchSection = (section: ReceiptSearchSection): string => {
  const title = 'Delivery-receipt search';
  return [
    `\n${title}\n${'='.repeat(title.length)}`,
    renderTable(
      ['Sort (descending)', 'Receipts', 'Page 1 rows', 'Page 1 RCU', 'Page 5 rows', 'Page 5 RCU', `Page 5 / page 1 <=${receiptSearchPageTarget}x`, 'Page 5 without continuation RCU'],
      section.pages.map((row) => [
        row.sortField,
        row.receipts.toLocaleString('en'),
        String(row.firstRows),
        units(row.firstUnits),
        String(row.fifthRows),
        units(row.fifthUnits),
        row.verdict,
        units(row.fifthWithoutContinuationUnits),
      ]),
    ),
    'Page 5 includes the consistent GetItem of its continuation (1 RCU); a page that is not the last also writes one (1 WCU).',
    '',
    renderTable(
      ['GetCountOnly', 'RCU'],
      section.countOnly.map((row) => [`${row.receipts.toLocaleString('en')} receipts`, units(row.readUnits)]),
    ),
    '',
    section.cold
      ? renderTable(
          ['Cold start', 'ms p50', 'Baseline ms', 'Ratio', `<=${section.cold.target}x`],
          [['deliveryReceiptSearchV2', ms(section.cold.medianMs, 0), ms(section.cold.baselineMedianMs, 0), ratio(section.cold.ratio), section.cold.verdict]],
        )
      : 'Cold start: not measured (section 1 did not run the search function).',
  ].join('\n');
};
