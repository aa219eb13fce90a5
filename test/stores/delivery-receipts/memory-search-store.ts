// Test support: delivery-receipt Search's store port (shared/delivery-receipts/store.ts `ReceiptSearchStore`) in
// memory, over the items a save stores (header items with their index attributes, line items). It passes the same
// contract suite as the DynamoDB repository (./search-store-contract.ts, in the unit tier against this store, in the
// integration tier against DynamoDB Local): a tenant's headers are those whose index partition is one of its shards,
// filtered by search.ts's `matches` (the rule the repository's FilterExpressions are held to), ordered by the
// query's `compare`; a cursor holds the key of its row; a continuation is kept in whole seconds, as the table's TTL.
import { headerSortKey, lineSortKeyPrefix, receiptPartition } from '#shared/delivery-receipts/keys';
import type { StoredLine } from '#shared/delivery-receipts/lines';
import { matches } from '#shared/delivery-receipts/search';
import { receiptSortIndex, searchPartition, searchShardCount } from '#shared/delivery-receipts/search-keys';
import type { HeaderItem, ReceiptSearchStore, SearchCriteria, SearchCursor } from '#shared/delivery-receipts/store';
import { lineFieldOrder } from '#shared/schemas/receipt-fields';

const itemKeyOf = (item: Readonly<Record<string, unknown>>) => `${String(item.pk)}\u0000${String(item.sk)}`;

/** The members of `record` named in `order`, in that order (as the repository reads a line). */
const inOrder = (record: Readonly<Record<string, unknown>>, order: readonly string[]) =>
  Object.fromEntries(order.filter((field) => record[field] !== undefined).map((field) => [field, record[field]]));

export const createMemorySearchStore = () => {
  const items = new Map<string, Record<string, unknown>>();
  const continuations = new Map<string, { readonly cursor: SearchCursor; readonly expiresAtSeconds: number }>();

  const headersOf = (tenantId: number, criteria: SearchCriteria, indexPartitionKey: string) => {
    const shards = new Set(Array.from({ length: searchShardCount }, (_, shard) => searchPartition(tenantId, shard)));
    return [...items.values()].filter((item) => item.sk === headerSortKey && shards.has(item[indexPartitionKey] as string) && matches(item, criteria));
  };

  const store: ReceiptSearchStore = {
    async readRows({ tenantId, sortField, criteria, compare, after, skip, take }) {
      const { index } = receiptSortIndex(sortField);
      const sorted = headersOf(tenantId, criteria, index.partitionKey).sort(compare);
      const last = after?.[0]?.after;
      const from = last ? sorted.findIndex((item) => compare(item, items.get(itemKeyOf(last)) ?? last) > 0) : 0;
      const remaining = from < 0 || after?.[0]?.done ? [] : sorted.slice(from);
      const skipped = Math.min(skip, remaining.length);
      const taken = remaining.slice(skipped, skipped + take);
      const rows = taken.map((item, position) => ({
        item: structuredClone(item),
        cursor: [{ after: { pk: item.pk as string, sk: item.sk as string }, done: skipped + position + 1 >= remaining.length }],
      }));
      return { skipped, rows, more: remaining.length > skipped + taken.length };
    },

    count: async (tenantId, criteria) => headersOf(tenantId, criteria, receiptSortIndex('DeliveryDate').index.partitionKey).length,

    readHeaders: async (tenantId, ids) =>
      ids.flatMap((id) => {
        const item = items.get(`${receiptPartition(tenantId, id)}\u0000${headerSortKey}`);
        return item ? [structuredClone(item) as HeaderItem] : [];
      }),

    readLines: async (tenantId, receiptId) =>
      [...items.values()]
        .filter((item) => item.pk === receiptPartition(tenantId, receiptId) && String(item.sk).startsWith(lineSortKeyPrefix))
        .sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))
        .map((item) => inOrder(item, lineFieldOrder) as unknown as StoredLine),

    async readContinuation(tenantId, queryHash, rowNumber, now) {
      const kept = continuations.get(`${tenantId}/${queryHash}/${rowNumber}`);
      return kept && kept.expiresAtSeconds * 1000 > now.getTime() ? structuredClone(kept.cursor) : undefined;
    },

    async writeContinuation(tenantId, queryHash, rowNumber, cursor, expiresAt) {
      continuations.set(`${tenantId}/${queryHash}/${rowNumber}`, { cursor: structuredClone(cursor), expiresAtSeconds: Math.floor(expiresAt.getTime() / 1000) });
    },
  };

  return {
    store,
    /** Stores items as a save leaves them (header and line items). */
    seed: async (seeded: readonly Record<string, unknown>[]) => {
      for (const item of seeded) items.set(itemKeyOf(item), structuredClone(item));
    },
  };
};
