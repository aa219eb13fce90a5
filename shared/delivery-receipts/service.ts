// Domain: delivery receipts (v2): save, get and add inventory. Called by the functions with a validated request and
// the caller's principal; applies the pure rules of lifecycle.ts and lines.ts, talks to storage only through the
// repository and hands a requested completion to completion.ts. Every rule is checked before the first write, so a
// refused request changes nothing. Throws named errors; never builds a response.
import { randomUUID } from 'node:crypto';
import type { Principal } from '#shared/auth/principal';
import { normaliseClaimValue } from '#shared/data/claims';
import { backoffDelayMs, sleepFor, withOptimisticRetry } from '#shared/data/retry';
import { KeyAlreadyClaimed, type WriteClaim } from '#shared/data/idempotency';
import { maxSequenceValue, pastValuesInUse } from '#shared/data/sequence';
import { ConcurrentModification, NotFound, ReadOnlyRecord, StaleVersion, TenancyMismatch, ValidationFailed, VersionConflict } from '#shared/errors';
import type { ActionRequestDeliveryReceiptT, ActionRequestSupplierTransAddInventoryRequest, DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import { defaultRefNumber } from './keys';
import {
  actorOf,
  allowedStatuses,
  assertCompletable,
  assertEditable,
  clientHeaderFields,
  friendlyStatus,
  isReadOnly,
  requestedTransition,
  applyTransition,
  sameValue,
  statusOf,
  statusView,
  type Actor,
  type ReceiptStatus,
} from './lifecycle';
import {
  activeLines,
  applyInventoryList,
  defaultCurrency,
  defaultLinePolicy,
  lineCounts,
  mergeLines,
  mergeSentFields,
  withDerivedFields,
  type Currency,
  type LineMergeResult,
  type LinePolicy,
  type StoredLine,
} from './lines';
import { lineFieldOrder, receiptFieldOrder } from '#shared/schemas/receipt-fields';
import { inFieldOrder, RefNumberTaken, SaveInProgress, waitingOutLeases } from './repository';
import type { CompleteReceipt, CompletionCommit, ReceiptHeader, ReceiptStore, StoredReceipt } from './store';
import { stockEffects } from './stock-effects';
import { sortableDate } from './search-keys';

export type { CompleteReceipt } from './store';

export interface ReceiptServiceDependencies {
  readonly repository: ReceiptStore;
  readonly complete: CompleteReceipt;
  /** The over-receipt tolerance (the stack's setting; see README.md). */
  readonly policy?: LinePolicy;
  readonly currency?: Currency;
  readonly clock?: () => Date;
  readonly newGuid?: () => string;
}

/** A receipt as answers show it: the header, its counts and its active lines in SequenceNumber order. */
export interface ReceiptView {
  readonly receipt: DeliveryReceiptT;
  /** The statuses a save may request now (Get's AllowedStatuses). */
  readonly allowed: readonly ReceiptStatus[];
}

export interface SavedReceipt extends ReceiptView {
  readonly created: boolean;
  /** True when completion continues through the queue (the receipt is Completing): 202. */
  readonly completing: boolean;
}

/** `DR-` and digits: the server's own numbering, which a client may not choose for another receipt. */
const serverNumbering = /^dr-\d+$/;

/** Receipt fields as answers show them: the stored header with its status fields, counts and active lines. */
export const receiptView = (header: ReceiptHeader, lines: readonly StoredLine[]): ReceiptView => {
  const status = statusOf(header);
  const shown = activeLines(lines).map((line) => inFieldOrder(withDerivedFields(line), lineFieldOrder));
  return {
    receipt: inFieldOrder({ ...header, ...statusView(status), ...lineCounts(lines), Lines: shown }, receiptFieldOrder),
    allowed: allowedStatuses(status),
  };
};

/** Save's merge convention for the header: an absent field keeps its stored value, `""` clears it. */
const mergeHeaderFields = (stored: Partial<DeliveryReceiptT>, sent: DeliveryReceiptT): Partial<DeliveryReceiptT> =>
  mergeSentFields(stored, sent, clientHeaderFields);

/** The stored form of a line (QuantityToBeReceived is derived on read), to tell a changed line from an unchanged one. */
const storable = ({ QuantityToBeReceived: _derived, ...line }: StoredLine): StoredLine => line as StoredLine;

/** Lines to write: new and changed ones only. */
const changedLines = (before: readonly StoredLine[], after: readonly StoredLine[]): StoredLine[] => {
  const stored = new Map(before.map((line) => [line.ID, storable(line)]));
  return after.map(storable).filter((line) => {
    const previous = stored.get(line.ID);
    return previous === undefined || !sameValue(previous, line);
  });
};

interface HeaderInput {
  /** The stored header (an update) or nothing (a create), overlaid with the body's client fields. */
  readonly fields: Partial<DeliveryReceiptT>;
  readonly id: number;
  readonly guid: string;
  readonly tenantId: number;
  readonly version: number;
  readonly refNumber: string;
  readonly actor: Actor;
  readonly created: boolean;
  readonly lines: readonly StoredLine[];
}

/** The header a save stores: the merged fields with its identity, Version, counts and audit stamps. */
const buildHeader = ({ fields, id, guid, tenantId, version, refNumber, actor, created, lines }: HeaderInput): ReceiptHeader => {
  const status = statusOf(fields);
  return {
    ...fields,
    ID: id,
    GUID: guid,
    GUIDstring: guid,
    TenantID: tenantId,
    Version: version,
    RefNumber: refNumber,
    ...statusView(status),
    IsActive: fields.IsActive ?? true,
    ...lineCounts(lines),
    ...(created ? { CreatedByUserID: actor.userId } : {}),
    CreatedDateTime_utc: created ? actor.at : (fields.CreatedDateTime_utc as string),
    ModifiedByUserID: actor.userId,
    ModifiedDateTime_utc: actor.at,
  };
};

/** Decisions of a save's completion at most: each a fresh read after the last one lost a race (`update`). */
const completionAttempts = 3;

export const createReceiptService = ({
  repository,
  complete,
  policy = defaultLinePolicy,
  currency = defaultCurrency,
  clock = () => new Date(),
  newGuid = randomUUID,
}: ReceiptServiceDependencies) => {
  /** The receipt as stored (strongly consistent); waits out another request's multi-transaction save (`waitingOutLeases`). */
  const require = async (tenantId: number, id: number, ownLease?: string): Promise<StoredReceipt> => {
    const receipt = await waitingOutLeases(() => repository.read(tenantId, id, ownLease));
    if (!receipt) throw new NotFound(`Delivery receipt ${id} does not exist.`);
    return receipt;
  };

  /**
   * The RefNumber a save asks for: the one sent (trimmed), the stored one when none is sent, undefined for the
   * default (`DR-<id>`, also what `""` gives back). `DR-` and digits is the server's numbering: a client may send
   * back its receipt's own default or stored value, never choose another, so a default can never be taken. A value
   * another receipt holds is refused (409) before anything is written (the claim in the write settles a race).
   */
  const refNumberFor = async (
    tenantId: number,
    id: number | undefined,
    sent: string | undefined,
    stored: string | undefined,
    { lookUp = true }: { readonly lookUp?: boolean } = {},
  ) => {
    if (sent === undefined) return stored;
    const trimmed = sent.trim();
    if (trimmed === '') return undefined;
    const normal = normaliseClaimValue(trimmed);
    const own =
      id !== undefined && (normal === normaliseClaimValue(defaultRefNumber(id)) || (stored !== undefined && normal === normaliseClaimValue(stored)));
    if (serverNumbering.test(normal) && !own) {
      throw new ValidationFailed([{ pointer: '/Value/RefNumber', detail: 'DR- followed by digits is reserved for the numbers the server gives' }]);
    }
    // The receipt's own RefNumber (its stored claim, or its reserved default) is nobody else's: no read needed. A
    // client sending a fetched receipt back saves that round trip (test/bench/README.md, "Round trips").
    // A create written in one transaction needs no read either: the claim in it refuses a taken RefNumber (409) and
    // the ID is given back (`withNextId`), so nothing changes.
    if (own || !lookUp) return trimmed;
    const owner = await repository.refNumberOwner(tenantId, trimmed);
    if (owner !== undefined && owner !== id) throw new RefNumberTaken(trimmed);
    return trimmed;
  };

  /** A create: every rule checked before an ID is taken, so a refused body leaves no gap. */
  const create = async (principal: Principal, value: DeliveryReceiptT, claim?: WriteClaim<SavedReceipt>): Promise<SavedReceipt> => {
    const { tenantId } = principal;
    const actor = actorOf(principal, clock);
    const transition = requestedTransition(undefined, value.Status);
    const lines = mergeLines({ stored: [], body: value.Lines ?? [], lastLineNumber: 0, policy, newGuid });
    // Refusals that need no read first: a reserved RefNumber (400), then any rule of the lines and header.
    const refNumber = await refNumberFor(tenantId, undefined, value.RefNumber, undefined, { lookUp: false });
    const headerWith = (id: number, guid: string) =>
      applyTransition(
        buildHeader({
          fields: mergeHeaderFields({}, value),
          id,
          guid,
          tenantId,
          version: 1,
          refNumber: refNumber ?? defaultRefNumber(id),
          actor,
          created: true,
          lines: lines.lines,
        }),
        transition,
        actor,
      );
    // With the largest ID (the real items can only be smaller): a receipt too large to store is refused (413) before
    // it takes an ID.
    const probe = { tenantId, header: headerWith(maxSequenceValue, '00000000-0000-0000-0000-000000000000'), lastLineNumber: lines.lastLineNumber, puts: lines.lines, deletes: [] };
    repository.assertFits(probe);
    // With an Idempotency-Key, its claim is read before an ID is taken: a replay takes none.
    const prior = await claim?.read();
    if (prior) throw new KeyAlreadyClaimed(prior);
    const write = async (id: number): Promise<SavedReceipt> => {
      const header = headerWith(id, newGuid().toLowerCase());
      const saved = { ...receiptView(header, lines.lines), created: true, completing: false };
      await repository.write({ tenantId, header, lastLineNumber: lines.lastLineNumber, puts: lines.lines, deletes: [], ...(claim ? { claim: claim.item(saved) } : {}) });
      return saved;
    };
    // One transaction: its RefNumber claim refuses a taken RefNumber and the ID is given back (2 round trips), as it
    // is when the key's claim is taken by a twin meanwhile. A create in chunks writes its claims last, after the
    // lines, so the RefNumber's owner is read before anything.
    if (repository.fitsOneTransaction(probe, claim !== undefined)) return repository.withNextId(tenantId, write);
    await refNumberFor(tenantId, undefined, value.RefNumber, undefined);
    // An ID found in use (the sequence behind its items) is stepped past.
    return pastValuesInUse(await repository.nextId(tenantId), () => repository.nextId(tenantId), write);
  };

  /**
   * An update, under the optimistic-retry policy (a body without Version that lost a race decides again from a new
   * read; one with a stale Version is 409). A requested completion first commits the body's changes with the
   * receipt still InProgress, then hands over to completion (contract C5). A completion that loses a race (another
   * write came between the body's commit, or the read, and the completion) is decided again from a fresh read, as a
   * save of the transition alone: the body is committed (at the Version it named, if any) and is not applied twice,
   * so lines added meanwhile are completed with the rest, and a receipt another request completed meanwhile answers
   * as it stands. A request that committed nothing is decided again as it was sent (a Version it named is stale
   * only if the receipt moved); a cancel meanwhile (a real conflicting intent) refuses it.
   */
  const update = async (
    principal: Principal,
    value: DeliveryReceiptT & { readonly ID: number },
    claim?: WriteClaim<SavedReceipt>,
    completionAttempt = 1,
  ): Promise<SavedReceipt> => {
    const { tenantId } = principal;
    const id = value.ID;
    const actor = actorOf(principal, clock);
    /**
     * A pinned Version found moved is stale, unless a twin with this request's key moved it. The receipt and the claim
     * are read at once, not as of one moment (and a write can lose to that twin's commit): a twin that committed
     * between them shows its Version without its claim. So before answering 409, the claim is read again; found, the
     * attempt is repeated from its reads, which then answer as the claim says (its replay, or key-in-use). Before, a
     * burst of one keyed save answered one of its twins 409 stale-version (a CI run).
     */
    const staleUnlessTwin = async (prior: unknown): Promise<Error> =>
      claim && prior === undefined && (await claim.read()) !== undefined ? new ConcurrentModification() : new StaleVersion();
    const written = await withOptimisticRetry(async () => {
      // One read at once, beside the claim's: a lease it meets may be this request's own (below).
      const [first, prior] = await Promise.all([
        repository.read(tenantId, id).then(
          (receipt) => ({ receipt }),
          (error: unknown) => ({ error }),
        ),
        claim?.read(),
      ]);
      // This request's own pending claim (an earlier attempt of the same save that died or failed) says where to
      // resume; anyone else's claim is KeyAlreadyClaimed (a replay, or 422).
      const resume = prior ? claim?.resumeOf(prior) : undefined;
      if (prior && !resume) throw new KeyAlreadyClaimed(prior);
      let stored: StoredReceipt;
      if ('error' in first) {
        if (!(first.error instanceof SaveInProgress)) throw first.error;
        // A live lease: the earlier attempt's own (it died between its chunks) is read through; another save's is
        // waited out as any read waits.
        stored = await require(tenantId, id, resume?.token);
      } else if (first.receipt) {
        stored = first.receipt;
      } else {
        throw new NotFound(`Delivery receipt ${id} does not exist.`);
      }
      // The earlier attempt died between the chunks of its body: its lease (named by its claim) moved the Version.
      const resumedLease = resume?.token !== undefined && stored.header.Version === resume.version ? resume.token : undefined;
      // The earlier attempt committed its body (at that Version) and its completion did not follow: resume at the
      // completion; the body is not decided or written again.
      if (resume && resume.token === undefined && stored.header.Version === resume.version && statusOf(stored.header) === 'InProgress') {
        return { header: stored.header, lines: stored.lines, completing: true, committed: true };
      }
      // A receipt written since by another request is decided again as any update (a pinned Version is then stale),
      // over the pending claim. Over the earlier attempt's lease, the body is decided again from what is stored (its
      // lines as far as it got: the same body gives the same lines) as the same save: its Version moved by that lease.
      if (value.Version !== undefined && value.Version !== stored.header.Version && resumedLease === undefined) throw await staleUnlessTwin(prior);
      const status = statusOf(stored.header);
      const transition = requestedTransition(status, value.Status);
      assertEditable(status, stored.header, stored.lines, value);
      const lines: LineMergeResult =
        value.Lines !== undefined && !isReadOnly(status)
          ? mergeLines({ stored: stored.lines, body: value.Lines, lastLineNumber: stored.lastLineNumber, policy, newGuid })
          : { lines: stored.lines, removed: [], lastLineNumber: stored.lastLineNumber, ...lineCounts(stored.lines) };
      const fields = mergeHeaderFields(stored.header, value);
      const completing = transition.to === 'Complete' && transition.from !== 'Complete';
      if (completing) {
        assertCompletable(fields);
        stockEffects(lines.lines, fields.WarehouseID as number);
      }
      const refNumber = (await refNumberFor(tenantId, id, value.RefNumber, stored.header.RefNumber)) ?? defaultRefNumber(id);
      const puts = changedLines(stored.lines, lines.lines);
      // Over the earlier attempt's lease something is always written: the header put releases that lease.
      const unchanged = resumedLease === undefined && puts.length === 0 && lines.removed.length === 0 && sameValue({ ...fields, RefNumber: refNumber }, stored.header);
      // Completion of an unchanged receipt: nothing to commit first, completion expects the stored Version.
      if (completing && unchanged) return { header: stored.header, lines: stored.lines, completing, committed: false };
      // A save that changes nothing (the receipt sent back as fetched, a Complete receipt's repeated completion) writes
      // nothing: its Version stays, so a client holding it is not told of a change that never was. Its key's answer
      // is still recorded, so a retry gets it.
      if (unchanged && transition.to === transition.from) {
        // A Completing receipt is answered as it stands: 202, its completion under way.
        if (claim) await repository.recordAnswer(claim.item({ ...receiptView(stored.header, stored.lines), created: false, completing: status === 'Completing' }));
        return { header: stored.header, lines: stored.lines, completing: false, committed: false };
      }
      const draft = buildHeader({
        fields: { ...fields, ...statusView(status) },
        id,
        guid: stored.header.GUID,
        tenantId,
        version: stored.header.Version + 1,
        refNumber,
        actor,
        created: false,
        lines: lines.lines,
      });
      const header = completing ? draft : applyTransition(draft, transition, actor);
      // The key's claim goes with the write. When completion follows, its answer is known only after it: the claim is
      // pending (it notes the Version this commit leaves, where a retry resumes), and the completion's commit answers it.
      const keyed = claim
        ? { claim: completing ? claim.pending(header.Version) : claim.item({ ...receiptView(header, lines.lines), created: false, completing: false }) }
        : {};
      try {
        await repository.write({
          tenantId,
          header,
          lastLineNumber: lines.lastLineNumber,
          previous: stored,
          puts,
          deletes: lines.removed,
          ...keyed,
          // With a key, a write in chunks takes the key as pending with its lease, so its retry can take the lease over.
          ...(claim ? { pendingClaim: (leaseId: string) => claim.pending(header.Version, leaseId) } : {}),
          ...(resumedLease !== undefined ? { resumeLease: resumedLease } : {}),
        });
      } catch (error) {
        if (error instanceof VersionConflict && value.Version !== undefined) throw await staleUnlessTwin(prior);
        throw error;
      }
      return { header, lines: lines.lines, completing, committed: true };
    });
    if (!written.completing) return { ...receiptView(written.header, written.lines), created: false, completing: statusOf(written.header) === 'Completing' };
    // The receipt as the completion's deciding commit leaves it: the answer its key's claim holds from that commit on.
    const committed = (commit: CompletionCommit): SavedReceipt => {
      const received = new Set(commit.receivedLineIds);
      const lines = written.lines.map((line) => (received.has(line.ID) ? { ...line, ...commit.lineStamps } : line));
      return { ...receiptView({ ...written.header, ...commit.header }, lines), created: false, completing: commit.status === 'Completing' };
    };
    let status: 'Complete' | 'Completing';
    try {
      ({ status } = await complete({
        tenantId,
        receiptId: id,
        expectedVersion: written.header.Version,
        actor: { userId: actor.userId },
        now: clock(),
        // The key's claim commits with the completion (provisional), so a retry after a death past that commit replays it.
        ...(claim ? { claim: (commit: CompletionCommit) => claim.provisional(committed(commit)) } : {}),
      }));
    } catch (error) {
      if (!(error instanceof ConcurrentModification) || completionAttempt >= completionAttempts) throw error;
      await sleepFor(backoffDelayMs(completionAttempt));
      // Decided again: a request that committed its body asks for the transition alone; one that committed nothing,
      // as it was sent, so a Version it named is checked again (stale if the receipt moved, not if the conflict was
      // only another transaction in flight).
      const again = written.committed ? { ID: id, Status: value.Status } : value;
      if (!claim && again.Version === undefined) {
        // Completed, or being completed, by another request meanwhile: this one's intent holds; answered as it stands,
        // nothing written. (With a key, the decision below writes the key's answer with the receipt as it stands.)
        const now = await require(tenantId, id);
        const nowStatus = statusOf(now.header);
        if (nowStatus === 'Complete' || nowStatus === 'Completing') {
          return { ...receiptView(now.header, now.lines), created: false, completing: nowStatus === 'Completing' };
        }
      }
      return update(principal, again, claim, completionAttempt + 1);
    }
    const after = await require(tenantId, id);
    const completed = { ...receiptView(after.header, after.lines), created: false, completing: status === 'Completing' };
    // The answer as read after the completion replaces the provisional one, before it is sent.
    await claim?.settle(completed);
    return completed;
  };

  /**
   * A DeliveryDate written as an ISO date-time (the document's pattern) must name an instant of the years 0000-9999
   * in UTC (server rule `instant-range`): `9999-12-31T23:59:59-14:00` is in year 10000, which the search's index
   * cannot sort (it sorted before every date, and outside every date range). Checked before anything is read.
   */
  const assertDeliveryDateInRange = (deliveryDate: string | undefined): void => {
    const text = deliveryDate?.trim();
    if (text && /^\d{4}-\d\d/.test(text) && sortableDate(text) === '') {
      throw new ValidationFailed([{ pointer: '/Value/DeliveryDate', detail: 'must name an instant of the years 0000 to 9999 (UTC), with an offset of at most 14:00' }]);
    }
  };

  return {
    /** POST /v2/DeliveryReceipt/: ID 0 or absent creates (201), a positive ID updates the tenant's receipt. */
    save(principal: Principal, request: ActionRequestDeliveryReceiptT, claim?: WriteClaim<SavedReceipt>): Promise<SavedReceipt> {
      const value = request.Value;
      if (value.TenantID && value.TenantID !== principal.tenantId) throw new TenancyMismatch('Value/TenantID');
      assertDeliveryDateInRange(value.DeliveryDate);
      return value.ID ? update(principal, { ...value, ID: value.ID }, claim) : create(principal, value, claim);
    },

    /** GET /v2/DeliveryReceipt/{id}: the header and its active lines; any other tenant's receipt is 404. */
    async get(principal: Principal, id: number): Promise<ReceiptView> {
      const stored = await require(principal.tenantId, id);
      return receiptView(stored.header, stored.lines);
    },

    /**
     * POST /v2/DeliveryReceipt/{id}/inventory: adds or updates one line per InventoryID. A request that changes no
     * line writes nothing (the same request twice changes nothing the second time).
     */
    async addInventory(principal: Principal, id: number, request: ActionRequestSupplierTransAddInventoryRequest): Promise<ReceiptView> {
      const { tenantId } = principal;
      const actor = actorOf(principal, clock);
      const written = await withOptimisticRetry(async () => {
        const stored = await require(tenantId, id);
        const status = statusOf(stored.header);
        const readOnly = () =>
          new ReadOnlyRecord(`The receipt is ${friendlyStatus(status)} and read-only: no line may be added or changed.`, ['/Value/InventoryList']);
        const apply = () => applyInventoryList({ stored: stored.lines, list: request.Value.InventoryList, lastLineNumber: stored.lastLineNumber, policy, currency, newGuid });
        let lines: ReturnType<typeof applyInventoryList>;
        try {
          lines = apply();
        } catch (error) {
          // A read-only receipt refuses any list as read-only first: that is why nothing may change.
          throw isReadOnly(status) ? readOnly() : error;
        }
        const puts = changedLines(stored.lines, lines.lines);
        // A list that changes nothing is answered with the receipt as it stands, read-only or not: the retry of a
        // request whose answer was lost, landing after another request completed the receipt, did take effect
        // (before: 409 read-only; found by a bad-day review).
        if (puts.length === 0) return stored;
        if (isReadOnly(status)) throw readOnly();
        const header: ReceiptHeader = {
          ...stored.header,
          Version: stored.header.Version + 1,
          ...lineCounts(lines.lines),
          ModifiedByUserID: actor.userId,
          ModifiedDateTime_utc: actor.at,
        };
        await repository.write({ tenantId, header, lastLineNumber: lines.lastLineNumber, previous: stored, puts, deletes: [] });
        return { header, lines: lines.lines };
      });
      return receiptView(written.header, written.lines);
    },
  };
};

export type ReceiptService = ReturnType<typeof createReceiptService>;
