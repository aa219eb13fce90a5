// Test support: the receipt store port (shared/delivery-receipts/store.ts `ReceiptStore`) in memory, for fast unit
// tests of the receipt service. It passes the same contract suite as the DynamoDB repository
// (./receipt-store-contract.ts, in the unit tier against this store, in the integration tier against DynamoDB Local)
// and keeps the repository's writes: a save that fits one transaction is all or nothing, its conditions checked in the
// repository's order (the Idempotency-Key's claim, the RefNumber's release and claim, the header's Version and the
// absence of a live lease); a larger one goes in the same chunks (`receiptLineChunkSize`) under a lease on the header
// (an update) or before its header exists (a create), its claims and header last. Its sizes are the repository's
// (`assertReceiptWriteFits`, `receiptWriteActionCount`), and so is what a read gives back (`storedHeaderOf`,
// `storedLineOf`). `crashOnWrite(n)` makes the n-th transaction from then on fail before it is applied (a function
// dying mid-save), as the contract's repository harness does with the table's client.
import { randomUUID } from 'node:crypto';
import { normaliseClaimValue } from '#shared/data/claims';
import { ValueInUse, withTakenValue } from '#shared/data/sequence';
import { chunkActions, maxTransactionActions } from '#shared/data/transaction';
import {
  assertReceiptWriteFits,
  receiptLineChunkSize,
  receiptWriteActionCount,
  RefNumberTaken,
  SaveInProgress,
  saveLeaseMilliseconds,
  storedHeaderOf,
  storedLineOf,
} from '#shared/delivery-receipts/repository';
import type { StoredLine } from '#shared/delivery-receipts/lines';
import type { ReceiptHeader, ReceiptStore, ReceiptWrite, StoredReceipt } from '#shared/delivery-receipts/store';
import { ConcurrentModification, VersionConflict } from '#shared/errors';
import { memoryKeyClaims } from '#test/stores/key-claims';
import { memorySequences } from '#test/stores/sequences';

/** The table name the key claims of the contract carry (the in-memory store has no table). */
export const memoryReceiptTableName = 'memory';

interface StoredHeader {
  readonly header: ReceiptHeader;
  readonly internal: Readonly<Record<string, unknown>>;
  readonly lastLineNumber: number;
  readonly lease?: { readonly id: string; readonly expiresAt: number };
}

/** One condition of a transaction: the error it fails with, or undefined when it holds. */
type Check = () => Error | undefined;

const receiptKey = (tenantId: number, receiptId: number) => `${tenantId}/${receiptId}`;

export const createMemoryReceiptStore = (clock: () => Date = () => new Date()) => {
  const headers = new Map<string, StoredHeader>();
  /** The lines of each receipt by SequenceNumber (a create in chunks writes them before its header). */
  const lines = new Map<string, Map<number, StoredLine>>();
  /** RefNumber claims: `<tenant>/<normal form>` -> the receipt holding it. */
  const refNumbers = new Map<string, number>();
  const ids = memorySequences();
  const keyClaims = memoryKeyClaims();
  let crashIn: number | undefined;
  /** Transactions applied (a refused or crashed one applies nothing and is not counted). */
  let applied = 0;

  const linesOf = (tenantId: number, receiptId: number) => {
    const key = receiptKey(tenantId, receiptId);
    const found = lines.get(key) ?? new Map<number, StoredLine>();
    lines.set(key, found);
    return found;
  };

  /** One transaction: every check in order (the first that fails names the error), then every change, or nothing. */
  const transaction = (checks: readonly Check[], apply: () => void, claim?: ReceiptWrite['claim']) => {
    if (crashIn !== undefined && --crashIn === 0) {
      crashIn = undefined;
      throw Object.assign(new Error('injected crash'), { name: 'InjectedCrash' });
    }
    keyClaims.transact(checks, apply, claim);
    applied += 1;
  };

  /** A lease that blocks: live, and not `ownLease` (the lease of this request's earlier attempt, which it takes over). */
  const liveLease = (stored: StoredHeader | undefined, now: number, ownLease?: string) =>
    stored?.lease !== undefined && stored.lease.expiresAt >= now && stored.lease.id !== ownLease;

  /** The RefNumber's release and claim (the repository's `claimChanges`): nothing when its normal form stays. */
  const refNumberChange = (write: ReceiptWrite): { checks: Check[]; apply: () => void } => {
    const before = write.previous ? normaliseClaimValue(write.previous.header.RefNumber) : undefined;
    const after = normaliseClaimValue(write.header.RefNumber);
    if (before === after) return { checks: [], apply: () => undefined };
    const { tenantId } = write;
    const owner = write.header.ID;
    const released = before === undefined ? undefined : `${tenantId}/${before}`;
    const claimed = `${tenantId}/${after}`;
    return {
      checks: [
        () => (released !== undefined && refNumbers.get(released) !== owner ? new ConcurrentModification() : undefined),
        () => (refNumbers.has(claimed) ? new RefNumberTaken(write.header.RefNumber) : undefined),
      ],
      apply: () => {
        if (released !== undefined) refNumbers.delete(released);
        refNumbers.set(claimed, owner);
      },
    };
  };

  /** The header put that ends a save (and releases its lease): what completion keeps on it, the new header, the counter. */
  const putHeader = (write: ReceiptWrite) => {
    const internal = Object.fromEntries(Object.entries(write.previous?.internal ?? {}).filter(([name]) => !name.startsWith('gsi') && name !== 'searchText'));
    headers.set(receiptKey(write.tenantId, write.header.ID), structuredClone({ header: storedHeaderOf(write.header), internal, lastLineNumber: write.lastLineNumber }));
  };

  const applyLines = (write: ReceiptWrite, deletes: readonly StoredLine[], puts: readonly StoredLine[]) => {
    const stored = linesOf(write.tenantId, write.header.ID);
    for (const line of deletes) stored.delete(line.SequenceNumber);
    for (const line of puts) stored.set(line.SequenceNumber, structuredClone(storedLineOf(write.tenantId, write.header.ID, line)));
  };

  const headerChecks = (write: ReceiptWrite, now: number, leaseId?: string): Check => {
    const key = receiptKey(write.tenantId, write.header.ID);
    return () => {
      const stored = headers.get(key);
      if (!write.previous) return stored ? new ValueInUse('delivery receipt ID', write.header.ID) : undefined;
      if (leaseId !== undefined) return stored?.lease?.id === leaseId ? undefined : new VersionConflict();
      return stored?.header.Version === write.previous.header.Version && !liveLease(stored, now, write.resumeLease) ? undefined : new VersionConflict();
    };
  };

  /** A save too large for one transaction: the repository's `writeInChunks`, step for step. */
  const writeInChunks = (write: ReceiptWrite, now: number) => {
    const key = receiptKey(write.tenantId, write.header.ID);
    const leaseId = randomUUID();
    if (write.previous) {
      transaction(
        [headerChecks(write, now)],
        () => {
          const stored = headers.get(key) as StoredHeader;
          headers.set(key, { ...stored, header: { ...stored.header, Version: write.header.Version }, lease: { id: leaseId, expiresAt: now + saveLeaseMilliseconds } });
        },
        write.pendingClaim?.(leaseId),
      );
    }
    // A create's first chunk finding the header there: its ID is in use (as the repository says), nothing written.
    const guard = (index: number): Check =>
      write.previous
        ? () => (headers.get(key)?.lease?.id === leaseId ? undefined : new SaveInProgress())
        : () => (headers.has(key) ? (index === 0 ? new ValueInUse('delivery receipt ID', write.header.ID) : new SaveInProgress()) : undefined);
    const changes = [...write.deletes.map((line) => ({ line, deleted: true })), ...write.puts.map((line) => ({ line, deleted: false }))];
    for (const [index, chunk] of chunkActions(changes, receiptLineChunkSize).entries()) {
      transaction([guard(index)], () =>
        applyLines(
          write,
          chunk.filter((change) => change.deleted).map((change) => change.line),
          chunk.filter((change) => !change.deleted).map((change) => change.line),
        ),
      );
    }
    const refNumber = refNumberChange(write);
    transaction(
      [...refNumber.checks, headerChecks(write, now, write.previous ? leaseId : undefined)],
      () => {
        refNumber.apply();
        putHeader(write);
      },
      write.claim,
    );
  };

  const store: ReceiptStore = {
    assertFits: (write) => assertReceiptWriteFits(memoryReceiptTableName, write),

    fitsOneTransaction: (write, keyed = false) => receiptWriteActionCount(memoryReceiptTableName, write, keyed) <= maxTransactionActions,

    nextId: ids.next,

    withNextId: async (tenantId, create) => withTakenValue(await ids.next(tenantId), { take: () => ids.next(tenantId), giveBack: (id) => ids.giveBack(tenantId, id) }, create),

    read: async (tenantId, receiptId, ownLease): Promise<StoredReceipt | undefined> => {
      const stored = headers.get(receiptKey(tenantId, receiptId));
      if (!stored) return undefined;
      if (liveLease(stored, clock().getTime(), ownLease)) throw new SaveInProgress();
      const read = [...linesOf(tenantId, receiptId).values()].sort((left, right) => left.SequenceNumber - right.SequenceNumber);
      return structuredClone({
        header: stored.header,
        lines: read,
        lastLineNumber: Math.max(stored.lastLineNumber, ...read.map((line) => line.ID)),
        internal: stored.internal,
      });
    },

    refNumberOwner: async (tenantId, refNumber) => refNumbers.get(`${tenantId}/${normaliseClaimValue(refNumber)}`),

    recordAnswer: async (claim) => transaction([], () => undefined, claim),

    async write(write) {
      const now = clock().getTime();
      assertReceiptWriteFits(memoryReceiptTableName, write);
      if (receiptWriteActionCount(memoryReceiptTableName, write, write.claim !== undefined) > maxTransactionActions) {
        writeInChunks(write, now);
        return;
      }
      const refNumber = refNumberChange(write);
      transaction(
        // The repository's order: a create's header first, an update's last.
        write.previous ? [...refNumber.checks, headerChecks(write, now)] : [headerChecks(write, now), ...refNumber.checks],
        () => {
          refNumber.apply();
          applyLines(write, write.deletes, write.puts);
          putHeader(write);
        },
        write.claim,
      );
    },
  };

  return {
    store,
    /** The n-th transaction from now fails before it is applied (InjectedCrash); undefined: none. */
    crashOnWrite: (transactions: number | undefined) => {
      crashIn = transactions;
    },
    /** How many transactions were applied so far (a test that expects nothing written compares it before and after). */
    writes: () => applied,
    /** Everything stored, as one value (what a test compares before and after a refused request). */
    snapshot: () => structuredClone({ headers: [...headers], lines: [...lines].map(([key, byNumber]) => [key, [...byNumber]]), refNumbers: [...refNumbers], sequences: [...ids.values], keys: keyClaims.keys() }),
  };
};
