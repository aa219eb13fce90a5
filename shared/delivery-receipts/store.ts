// Domain port (delivery receipts): what the receipt service and completion need from storage. The DynamoDB adapter
// of both ports is repository.ts (`createReceiptRepository`, `createCompletionRepository`); the wiring (wiring.ts) plugs them in once per
// process, and tests may pass any other implementation.
import type { KeyClaimItem } from '#shared/data/idempotency';
import type { DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import type { Actor } from './lifecycle';
import type { StoredLine } from './lines';
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
  /** The header and every line, strongly consistent; undefined when the receipt does not exist. */
  read(tenantId: number, receiptId: number): Promise<StoredReceipt | undefined>;
  /** Who holds a RefNumber now (strongly consistent). */
  refNumberOwner(tenantId: number, refNumber: string): Promise<number | undefined>;
  /** Writes a save, conditional on the Version read (VersionConflict) and the RefNumber claim (RefNumberTaken). */
  write(write: ReceiptWrite): Promise<void>;
}

/** What the service asks of completion (shared/delivery-receipts/completion.ts, bound to the function's table). */
export type CompleteReceipt = (request: {
  readonly tenantId: number;
  readonly receiptId: number;
  readonly expectedVersion: number;
  readonly actor: { readonly userId: number };
  readonly now: Date;
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
   * any other failed condition or a conflicting transaction, ConcurrentModification.
   */
  runChunk(chunk: CompletionChunk, lines: readonly StoredLine[], headerVersion?: number): Promise<void>;
  /** Header to Completing (read-only, Version + 1) with the completion item at cursor 0, in one transaction (VersionConflict). */
  startChunked(start: ChunkedStart): Promise<void>;
}
