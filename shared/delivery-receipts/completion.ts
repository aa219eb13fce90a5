// Domain: completing a delivery receipt puts its good stock on hand exactly once (contract C5). The pure plan
// (stock-effects.ts) says what to write; this module runs a plan that fits one transaction at once, and otherwise
// moves the receipt to Completing and hands the chunks to the receipt completions queue, whose consumer
// (functions/delivery-receipts/consume-receipt-completions.ts) runs them one after another. It reaches the table only
// through the area's completion port (store.ts `CompletionStore`; repository.ts `createCompletionRepository` maps
// each plan action to a TransactWriteItems entry).
import { randomUUID } from 'node:crypto';
import type { KeyClaimItem } from '#shared/data/idempotency';
import { ConcurrentModification, NotFound, ServiceUnavailable, VersionConflict } from '#shared/errors';
import { describeError, logger } from '#shared/observability/logger';
import { countMetric } from '#shared/observability/metrics';
import { withinInvocation } from '#shared/invocation';
import { completionMessageOf, defaultCompletionPublisher, type CompletionMessage, type CompletionPublisher } from './completion-message';
import { statusView, type Actor } from './lifecycle';
import { chunkAt, planCompletion, type CompletionPlan } from './stock-effects';
import type { CompletionCommit, CompletionReceipt, CompletionStore } from './store';

export type { CompletionMessage, CompletionPublisher } from './completion-message';

export interface CompleteReceiptRequest {
  readonly tenantId: number;
  readonly receiptId: number;
  /** The header's Version after the save committed the body's changes (status InProgress, WarehouseID set). */
  readonly expectedVersion: number;
  readonly actor: { readonly userId: number };
  readonly now: Date;
  /** The save's Idempotency-Key claim for what the deciding commit writes: written in that commit (store.ts `CompleteReceipt`). */
  readonly claim?: (commit: CompletionCommit) => KeyClaimItem;
}

export interface CompletionDependencies {
  /** Puts a completion message on the receipt completions queue. */
  readonly publish: CompletionPublisher;
  readonly newCompletionId?: () => string;
}

/** A receipt became Complete: counted once, by the transaction that completed it, with the lines that received stock. */
const countCompleted = (mode: 'Single' | 'Chunked', plan: CompletionPlan): void => {
  countMetric('receiptsCompleted', mode);
  countMetric('linesReceived', plan.effects.reduce((lines, effect) => lines + effect.lines.length, 0));
};

const requireCompletable = (state: CompletionReceipt | undefined, expectedVersion: number): CompletionReceipt => {
  if (!state) throw new NotFound('The delivery receipt does not exist.');
  if (state.header.Version !== expectedVersion || state.header.Status !== 'InProgress') throw new VersionConflict();
  return state;
};

/**
 * Completes an InProgress receipt whose save just committed at `expectedVersion` (contract C5). Effects that fit one
 * transaction complete at once (Complete, Version + 1). Otherwise the receipt enters Completing (read-only, Version
 * + 1) with its completion item, and its message goes to the receipt completions queue (Completing): the guarantee,
 * delayed, before the start commits, so a save that dies after the commit never leaves the receipt Completing for
 * ever, and the message at once after it. A moved Version throws VersionConflict; a missing WarehouseID or a
 * receiving line without InventoryID, ValidationFailed; a queue that cannot take the guarantee, ServiceUnavailable
 * (nothing written).
 */
export const completeReceipt = async (
  store: CompletionStore,
  request: CompleteReceiptRequest,
  dependencies: CompletionDependencies = defaultCompletionDependencies(),
): Promise<{ status: 'Complete' | 'Completing' }> => {
  const { tenantId, receiptId, expectedVersion } = request;
  const { header, lines } = requireCompletable(await store.readReceipt(tenantId, receiptId), expectedVersion);
  const actor: Actor = { userId: request.actor.userId, at: request.now.toISOString() };
  const completionId = (dependencies.newCompletionId ?? randomUUID)();
  const warehouseId = Number(header.WarehouseID ?? 0);
  const plan = planCompletion({ tenantId, receiptId, warehouseId, completionId, actor, lines });
  const [only] = plan.chunks;
  // What the deciding commit writes (as the repository's header and line actions write it), for the key's claim.
  const modified = { ModifiedByUserID: actor.userId, ModifiedDateTime_utc: actor.at, Version: expectedVersion + 1 };
  if (plan.mode === 'single' && only) {
    const claim = request.claim?.({
      status: 'Complete',
      header: { ...statusView('Complete'), CompletedByUserID: actor.userId, CompletedDateTime_utc: actor.at, ...modified },
      receivedLineIds: plan.effects.flatMap((effect) => effect.lines.map((line) => line.lineId)),
      lineStamps: { IsStockAdjustmentComplete: true, ReceivedByUserID: actor.userId, ReceivedDateTime_utc: actor.at },
    });
    await store.runChunk(only, lines, expectedVersion, claim);
    countCompleted('Single', plan);
    return { status: 'Complete' };
  }
  const message = { tenantId, receiptId, completionId };
  // The guarantee first: a start that never commits leaves it naming no current completion (the consumer's 'stale').
  await dependencies.publish(message, { guarantee: true }).catch((error: unknown) => {
    logger.error('receipt completion not queued: nothing was written', { tenantId, receiptId, ...describeError(error) });
    throw new ServiceUnavailable('The completion could not be queued and nothing was completed; retry shortly.', 5, error);
  });
  const claim = request.claim?.({
    status: 'Completing',
    header: { ...statusView('Completing'), CompletionID: plan.completionId, ...modified },
    receivedLineIds: [],
    lineStamps: {},
  });
  await store.startChunked({
    tenantId,
    receiptId,
    expectedVersion,
    completionId: plan.completionId,
    chunkCount: plan.chunks.length,
    warehouseId,
    actor,
    ...(claim ? { claim } : {}),
  });
  // The fast path: if this send fails (or the function dies first), the guarantee runs the completion a minute later.
  await dependencies.publish(message).catch((error: unknown) => {
    logger.warn('receipt completion not sent at once: its guarantee message runs it', { tenantId, receiptId, ...describeError(error) });
  });
  return { status: 'Completing' };
};

/** What one consumer pass did with a completion message. */
export type CompletionProgress =
  /** The last chunk ran (now or before): the receipt is Complete. */
  | { readonly outcome: 'completed'; readonly chunksRun: number }
  /** The message names no current completion (an undone start, a duplicate of a finished one): nothing to do. */
  | { readonly outcome: 'stale' }
  /** Out of time, or stopped by a failure after committing chunks: the rest was handed to a new message on the queue. */
  | { readonly outcome: 'continued'; readonly chunksRun: number; readonly cursor: number };

export interface ContinueOptions {
  /** Asked before each chunk: false stops the pass and re-enqueues the message (the consumer's time budget). */
  readonly mayRunChunk?: () => boolean;
  /**
   * Asked before each chunk: a signal that aborts the chunk's calls while the pass still has time to hand the rest on
   * (the consumer's deadline less one send). A chunk stalled past it (its SDK attempts can outlast any reserve) fails
   * like any other chunk, so a pass that committed chunks ends `continued` instead of dying at the Lambda timeout,
   * where the receive would count against the message with the progress made.
   */
  readonly chunkSignal?: () => AbortSignal | undefined;
}

/**
 * The consumer's work: runs the chunks of a chunked completion from the stored cursor to the last, one transaction
 * each, conditional on the completion id and the cursor. Plans again from the frozen lines and the stored request,
 * so it runs the same chunks as any earlier pass. A chunk another pass committed first is skipped (its condition
 * fails and the cursor has moved); a duplicate or late message finds nothing to do.
 */
export const continueCompletion = async (
  store: CompletionStore,
  message: CompletionMessage,
  { mayRunChunk = () => true, chunkSignal = () => undefined }: ContinueOptions = {},
  dependencies: CompletionDependencies = defaultCompletionDependencies(),
): Promise<CompletionProgress> => {
  const { tenantId, receiptId, completionId } = completionMessageOf(message);
  let record = await store.readCompletion(tenantId, receiptId);
  if (!record || record.completionId !== completionId) return { outcome: 'stale' };
  const stored = await store.readReceipt(tenantId, receiptId);
  if (!stored) return { outcome: 'stale' };
  if (record.cursor >= record.chunkCount) return { outcome: 'completed', chunksRun: 0 };
  const plan = planCompletion({ tenantId, receiptId, warehouseId: record.warehouseId, completionId, actor: record.actor, lines: stored.lines });
  if (plan.chunks.length !== record.chunkCount) {
    throw new Error(`receipt ${receiptId}: the plan has ${plan.chunks.length} chunks, the completion started with ${record.chunkCount}`);
  }
  let chunksRun = 0;
  for (let chunk = chunkAt(plan, record.cursor); chunk; chunk = chunkAt(plan, record.cursor)) {
    if (!mayRunChunk()) {
      await dependencies.publish({ tenantId, receiptId, completionId });
      return { outcome: 'continued', chunksRun, cursor: record.cursor };
    }
    try {
      const signal = chunkSignal();
      // The chunk's calls carry the signal (shared/aws-requests.ts); the hand-on after it runs without one.
      await (signal ? withinInvocation({ signal }, () => store.runChunk(chunk, stored.lines)) : store.runChunk(chunk, stored.lines));
      chunksRun += 1;
      countMetric('completionChunks');
      if (chunk.last) countCompleted('Chunked', plan);
      logger.debug('receipt completion chunk committed', { tenantId, receiptId, chunk: chunk.index, of: plan.chunks.length });
      record = { ...record, cursor: chunk.index + 1 };
    } catch (error) {
      if (!(error instanceof ConcurrentModification)) {
        // Capacity past the chunk's resends, a dependency down, a timeout whose chunk may have landed: whatever stopped
        // a pass that committed chunks, the rest goes to a new message, which starts at the stored cursor (a chunk
        // that landed is skipped there). Counted as a failed receive, a long throttle sent the receipt to the DLQ half
        // applied, Completing for good (a bad-day review). A pass that committed none fails the record, so a failure
        // that repeats still ends in the DLQ.
        if (chunksRun === 0) throw error;
        logger.warn('receipt completion stopped after committing chunks: the rest goes to a new message', { tenantId, receiptId, chunksRun, ...describeError(error) });
        await dependencies.publish({ tenantId, receiptId, completionId }).catch(() => {
          throw error;
        });
        return { outcome: 'continued', chunksRun, cursor: record.cursor };
      }
      // Another pass may have run this chunk: go on from wherever the cursor is now; if it has not moved, retry later.
      const now = await store.readCompletion(tenantId, receiptId);
      if (!now || now.completionId !== completionId) return { outcome: 'stale' };
      if (now.cursor === record.cursor) {
        // Still held after the chunk's own resends. A pass that committed chunks hands the rest to a new message, as
        // when out of time, so the message's receive count counts passes that did nothing, not progress; one that
        // committed none fails the record (a receive spent, toward the DLQ after maxReceiveCount).
        if (chunksRun === 0) throw error;
        await dependencies.publish({ tenantId, receiptId, completionId });
        return { outcome: 'continued', chunksRun, cursor: record.cursor };
      }
      record = now;
    }
  }
  return { outcome: 'completed', chunksRun };
};

let defaults: CompletionDependencies | undefined;

/** The queue publisher the `sendReceiptCompletions` grant configures, created on first use. */
export const defaultCompletionDependencies = (): CompletionDependencies => {
  defaults ??= { publish: defaultCompletionPublisher() };
  return defaults;
};
