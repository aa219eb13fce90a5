// Domain port (delivery receipts): what the receipt service, completion and Search need from storage. The DynamoDB
// adapter of the three ports is repository.ts (`createReceiptRepository`, `createCompletionRepository`,
// `createSearchRepository`); the wiring (wiring.ts) plugs them in once per process, and tests may pass any other
// implementation.
import type { KeyClaimItem } from '#shared/data/idempotency';
import type { DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import type { Actor, ReceiptStatus } from './lifecycle';
import type { StoredLine } from './lines';
import type { ReceiptSortField } from './search-keys';
import type { CompletionChunk } from './stock-effects';

/** A receipt's header as stored: every field but Lines, with its identity, tenancy and Version always present. */
export type ReceiptHeader = Omit<DeliveryReceiptT, 'Lines'> & {
  readonly ID: number;
  readonly GUID: string;
  readonly TenantID: number;
  readonly Version: number;
  readonly RefNumber: string;
  readonly Status: string;
  readonly CreatedDateTime_utc: string;
};

/** A receipt as stored: its header, every stored line (active or not) and what only the data layer reads. */
export interface StoredReceipt {
  readonly header: ReceiptHeader;
  readonly lines: StoredLine[];
  /** The highest line number given so far (never below a stored line's ID). */
  readonly lastLineNumber: number;
  /** Attributes of the header item that are not receipt fields (completion state, index keys, ...), kept as they are. */
  readonly internal: Readonly<Record<string, unknown>>;
}

export interface ReceiptWrite {
  readonly tenantId: number;
  /** The header to store, carrying its new Version (1 for a create). */
  readonly header: ReceiptHeader;
  readonly lastLineNumber: number;
  /** The receipt as read; absent for a create. The write is conditional on its Version. */
  readonly previous?: StoredReceipt;
  /** Lines to put (new or changed) and to delete (removed): nothing else of the partition is written. */
  readonly puts: readonly StoredLine[];
  readonly deletes: readonly StoredLine[];
  /** An Idempotency-Key's claim (shared/data/idempotency.ts), written in the write's (last) transaction. */
  readonly claim?: KeyClaimItem;
  /**
   * An update written in chunks takes its lease first: with a key, that transaction also takes the key as pending,
   * naming the lease (`WriteClaim.pending(version, leaseId)`), so a retry of a save that died between its chunks
   * can take the lease over (`resumeLease`) instead of waiting it out and being refused as stale.
   */
  readonly pendingClaim?: (leaseId: string) => KeyClaimItem;
  /** The lease of this request's earlier attempt, which this write takes over (its pending claim named it). */
  readonly resumeLease?: string;
}

/** Storage of receipts: one partition per receipt (see README.md, "Storage"). */
export interface ReceiptStore {
  /** Throws when the write could never be stored (an item or the transaction over DynamoDB's limits: 413). */
  assertFits(write: ReceiptWrite): void;
  /** True when the write is one transaction (with its key's claim when `keyed`): a refusal of it leaves nothing written. */
  fitsOneTransaction(write: ReceiptWrite, keyed?: boolean): boolean;
  /** The next receipt ID of the tenant. */
  nextId(tenantId: number): Promise<number>;
  /** Runs a one-transaction create with the next ID, given back when the create is refused (4xx) with nothing written. */
  withNextId<T>(tenantId: number, create: (id: number) => Promise<T>): Promise<T>;
  /**
   * The header and every line, strongly consistent; undefined when the receipt does not exist. A live lease throws
   * SaveInProgress, unless it is `ownLease` (the lease of this request's earlier attempt, which it resumes).
   */
  read(tenantId: number, receiptId: number, ownLease?: string): Promise<StoredReceipt | undefined>;
  /** Who holds a RefNumber now (strongly consistent). */
  refNumberOwner(tenantId: number, refNumber: string): Promise<number | undefined>;
  /** Writes a save, conditional on the Version read (VersionConflict) and the RefNumber claim (RefNumberTaken). */
  write(write: ReceiptWrite): Promise<void>;
  /** Writes an Idempotency-Key's claim alone (a save that changes nothing still answers its retries the same). */
  recordAnswer(claim: NonNullable<ReceiptWrite['claim']>): Promise<void>;
}

/**
 * What the commit that decides a completion writes (a single completion whole, or a chunked one's start): the header's
 * attributes it sets and the lines it marks received, so the save can state its answer before that commit, for the
 * Idempotency-Key's claim written in it.
 */
export interface CompletionCommit {
  readonly status: 'Complete' | 'Completing';
  /** The header's attributes as the commit leaves them (Status, its view, the stamps, the new Version). */
  readonly header: Readonly<Record<string, unknown>>;
  /** The IDs of the lines the commit marks received (a single completion's; none for a chunked start). */
  readonly receivedLineIds: readonly number[];
  /** The attributes each of those lines gets. */
  readonly lineStamps: Readonly<Record<string, unknown>>;
}

/** What the service asks of completion (shared/delivery-receipts/completion.ts, bound to the function's table). */
export type CompleteReceipt = (request: {
  readonly tenantId: number;
  readonly receiptId: number;
  readonly expectedVersion: number;
  readonly actor: { readonly userId: number };
  readonly now: Date;
  /**
   * The Idempotency-Key's claim (shared/data/idempotency.ts, provisional) of the save, for what the deciding commit
   * writes: it goes in that commit, so the completion and the key commit together and a retry replays the answer.
   */
  readonly claim?: (commit: CompletionCommit) => KeyClaimItem;
}) => Promise<{ readonly status: 'Complete' | 'Completing' }>;

/** A receipt as completion reads it: the header's stored attributes (plain values) and every stored line. */
export interface CompletionReceipt {
  readonly header: Record<string, unknown>;
  readonly lines: StoredLine[];
}

/** Stored with the completion: who asked and where the stock goes, so every later plan is the same plan. */
export interface CompletionRecord {
  readonly completionId: string;
  readonly cursor: number;
  readonly chunkCount: number;
  readonly warehouseId: number;
  readonly actor: Actor;
}

/** The start of a chunked completion: the header moves to Completing, the completion item is written at cursor 0. */
export interface ChunkedStart {
  readonly tenantId: number;
  readonly receiptId: number;
  /** The header's Version the save committed; the header must still be InProgress at it (else VersionConflict). */
  readonly expectedVersion: number;
  readonly completionId: string;
  readonly chunkCount: number;
  readonly warehouseId: number;
  readonly actor: Actor;
  /** The save's Idempotency-Key claim, written in the same transaction (a twin's claim there: KeyAlreadyClaimed). */
  readonly claim?: KeyClaimItem;
}

/** Completion's storage (completion.ts): the receipt read whole, the completion's cursor, and plan-sized transactions. */
export interface CompletionStore {
  /** The header and every line in one strongly consistent read; undefined when the receipt does not exist. */
  readReceipt(tenantId: number, receiptId: number): Promise<CompletionReceipt | undefined>;
  /** The completion item (strongly consistent), or undefined. */
  readCompletion(tenantId: number, receiptId: number): Promise<CompletionRecord | undefined>;
  /**
   * One chunk as one transaction, idempotent for DynamoDB's 10 minutes through its ClientRequestToken. With
   * `headerVersion`, the header action also requires that Version. A failed header condition is VersionConflict;
   * any other failed condition or a conflicting transaction, ConcurrentModification. With `claim` (a single
   * completion's save), the Idempotency-Key's claim goes in the same transaction (KeyAlreadyClaimed when taken).
   */
  runChunk(chunk: CompletionChunk, lines: readonly StoredLine[], headerVersion?: number, claim?: KeyClaimItem): Promise<void>;
  /** Header to Completing (read-only, Version + 1) with the completion item at cursor 0, in one transaction (VersionConflict). */
  startChunked(start: ChunkedStart): Promise<void>;
}

/** A Search's filter, normalised (search.ts `searchCriteria`): what the rows must match (order and paging are the plan's). */
export interface SearchCriteria {
  /** The statuses a row may have; absent: any. */
  readonly statuses?: readonly ReceiptStatus[];
  /** Lower-cased text found in RefNumber or SupplierName. */
  readonly text?: string;
  /** Sortable DeliveryDate bounds (search-keys.ts): the lower inclusive, the upper inclusive of the whole instant. */
  readonly from?: string;
  readonly to?: string;
  readonly supplierId?: number;
  readonly ids?: readonly number[];
  readonly guids?: readonly string[];
}

/** A receipt header as Search reads it: the stored header item (keys and index attributes included). */
export type HeaderItem = Readonly<Record<string, unknown>>;

/** Where one shard of an index stands after a row: after the key of the last row taken from it, or read to its end. */
export interface ShardPosition {
  readonly after?: Record<string, string>;
  readonly done: boolean;
}

/** Where a Search read stands after a row: every shard's position (what a continuation keeps). */
export type SearchCursor = readonly ShardPosition[];

/** One read of a Search's rows, in the order of its sort field, merged over the index's shards. */
export interface SearchRowsQuery {
  readonly tenantId: number;
  readonly sortField: ReceiptSortField;
  readonly ascending: boolean;
  readonly criteria: SearchCriteria;
  /** The order of the rows (Search's sort rule, ties by ID): the shards are merged by it. */
  readonly compare: (a: HeaderItem, b: HeaderItem) => number;
  /** Continue after this cursor (one this store gave); absent: from the first row. */
  readonly after?: SearchCursor;
  /** Rows to pass over first, then rows to take. */
  readonly skip: number;
  readonly take: number;
}

export interface SearchRows {
  /** Rows passed over (fewer than `skip` when the rows ran out). */
  readonly skipped: number;
  /** The rows taken, each with the cursor after it. */
  readonly rows: readonly { readonly item: HeaderItem; readonly cursor: SearchCursor }[];
  /** Whether a matching row lies after the last one taken. */
  readonly more: boolean;
}

/** Search's storage (search.ts): the sharded indexes read in order, counts, reads by key, lines, and continuations. */
export interface ReceiptSearchStore {
  /** Skips then takes matching rows in order; reads grow with the rows needed, never the whole collection. */
  readRows(query: SearchRowsQuery): Promise<SearchRows>;
  /** How many of the tenant's receipts match (reads every matching header). */
  count(tenantId: number, criteria: SearchCriteria): Promise<number>;
  /** The headers of these IDs that exist, in any order, read strongly consistent (as they are now, not as an index shows them). */
  readHeaders(tenantId: number, ids: readonly number[]): Promise<HeaderItem[]>;
  /** Every stored line of the receipt (active or not), in SequenceNumber order. */
  readLines(tenantId: number, receiptId: number): Promise<StoredLine[]>;
  /** The cursor kept for (query, row number), strongly consistent; undefined when none or expired at `now`. */
  readContinuation(tenantId: number, queryHash: string, rowNumber: number, now: Date): Promise<SearchCursor | undefined>;
  /** Keeps the cursor after row `rowNumber` of the query in the tenant's own partition until `expiresAt`. */
  writeContinuation(tenantId: number, queryHash: string, rowNumber: number, cursor: SearchCursor, expiresAt: Date): Promise<void>;
}
