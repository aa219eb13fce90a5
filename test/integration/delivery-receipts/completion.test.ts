// Integration: completing delivery receipts against DynamoDB Local. Receipts of 10, 100 and 1,000 lines put exactly
// the received quantities on hand (lines of one item grouped; faulty, out-of-date, incorrect and deactivated lines
// never count), once: duplicate and late messages, concurrent passes and a pass cut short change nothing more. A
// refused completion (stale Version, no WarehouseID, a queue that cannot take the message) changes nothing.
import { describe, expect, it } from '@jest/globals';
import { completeReceipt, continueCompletion, type CompletionDependencies, type CompletionMessage } from '#shared/delivery-receipts/completion';
import { createCompletionRepository } from '#shared/delivery-receipts/repository';
import { logger } from '#shared/observability/logger';
import { currentInvocation } from '#shared/invocation';
import { TransactionThrottled } from '#shared/data/transaction';
import { failureOf, freshTenantId, openLocalTable } from '#test/integration/data/support';
import { completionActor, completionNow, expectedStock, inventoryIdsOf, manyLines, receiptItems, seedAndComplete, seededVersion, seedReceipt, stockOf, type SeedLine } from './completion-support';

logger.setLogLevel('SILENT');
const table = openLocalTable();
const now = completionNow;
const actor = completionActor;

/** A publisher that keeps what it was given, as the queue would. */
const capture = () => {
  const sent: CompletionMessage[] = [];
  return { sent, dependencies: { publish: async (message: CompletionMessage) => void sent.push(message) } };
};

const complete = (tenantId: number, receiptId: number, dependencies: CompletionDependencies = capture().dependencies, expectedVersion = seededVersion) =>
  completeReceipt(createCompletionRepository(table), { tenantId, receiptId, expectedVersion, actor, now }, dependencies);

const itemsOf = inventoryIdsOf;

describe('one transaction', () => {
  const lines: SeedLine[] = [
    { InventoryID: 1, QuantityOrdered: 10, QuantityReceived: 2.5, QuantityFaulty: 1, QuantityOutOfDate: 0.5, QuantityIncorrect: 0.25 },
    { InventoryID: 2, QuantityReceived: 0.1 },
    { InventoryID: 1, QuantityReceived: 0.00001 },
    { InventoryID: 2, QuantityReceived: 0.2 },
    { InventoryID: 3, QuantityReceived: 0, QuantityFaulty: 4 },
    { InventoryID: 4, QuantityReceived: 9, IsActive: false },
    { InventoryID: 5, QuantityReceived: 1234567.12345 },
    { InventoryID: 2, QuantityReceived: 0.3 },
    { InventoryID: 6, QuantityReceived: 1, QuantityIncorrect: 1 },
    { InventoryID: 1, QuantityReceived: 1 },
  ];

  it('completes a 10-line receipt at once: stock exact, lines stamped, one movement per receiving line', async () => {
    const tenantId = freshTenantId();
    await seedReceipt(table, { tenantId, receiptId: 1, lines });
    const { sent, dependencies } = capture();
    await expect(complete(tenantId, 1, dependencies)).resolves.toEqual({ status: 'Complete' });
    expect(sent).toEqual([]);

    expect(await stockOf(table, tenantId, [1, 2, 3, 4, 5, 6])).toEqual(
      new Map([
        [1, '3.50001'],
        [2, '0.6'],
        [5, '1234567.12345'],
        [6, '1'],
      ]),
    );
    expect(await stockOf(table, tenantId, [1, 2, 3, 4, 5, 6])).toEqual(expectedStock(lines));
    const stored = await receiptItems(table, tenantId, 1);
    expect(stored.header).toMatchObject({
      Status: 'Complete',
      FriendlyStatus: 'Complete',
      IsReadOnly: true,
      Version: seededVersion + 1,
      CompletedByUserID: 42,
      CompletedDateTime_utc: now.toISOString(),
      // The write that raised Version moved the modified stamps: never older than the completion.
      ModifiedByUserID: 42,
      ModifiedDateTime_utc: now.toISOString(),
    });
    expect(stored.completion).toBeUndefined();
    const received = stored.lines.filter((line) => line.IsStockAdjustmentComplete === true).map((line) => line.ID);
    expect(received).toEqual([1, 2, 3, 4, 7, 8, 9, 10]);
    expect(stored.lines.find((line) => line.ID === 1)).toMatchObject({ ReceivedByUserID: 42, ReceivedDateTime_utc: now.toISOString() });
    expect(stored.movements.map((movement) => [movement.LineID, movement.InventoryID, movement.Quantity, movement.WarehouseID])).toEqual([
      [1, 1, 2.5, 7],
      [2, 2, 0.1, 7],
      [3, 1, 0.00001, 7],
      [4, 2, 0.2, 7],
      [7, 5, 1234567.12345, 7],
      [8, 2, 0.3, 7],
      [9, 6, 1, 7],
      [10, 1, 1, 7],
    ]);
  });

  it('adds to stock already on hand, exactly, across receipts', async () => {
    const tenantId = freshTenantId();
    const second: SeedLine[] = [{ InventoryID: 2, QuantityReceived: 0.7 }, { InventoryID: 1, QuantityReceived: 99999.99999 }];
    await seedReceipt(table, { tenantId, receiptId: 1, lines });
    await seedReceipt(table, { tenantId, receiptId: 2, lines: second });
    await complete(tenantId, 1);
    await complete(tenantId, 2);
    expect(await stockOf(table, tenantId, [1, 2, 3, 4, 5, 6])).toEqual(expectedStock(lines, second));
    expect((await stockOf(table, tenantId, [1, 2])).get(2)).toBe('1.3');
  });

  it('refuses a moved Version, a receipt no longer InProgress and a missing WarehouseID, changing nothing', async () => {
    const tenantId = freshTenantId();
    await seedReceipt(table, { tenantId, receiptId: 1, lines });
    await seedReceipt(table, { tenantId, receiptId: 2, lines, status: 'Cancelled' });
    await seedReceipt(table, { tenantId, receiptId: 3, lines, warehouseId: 0 });
    const before = await Promise.all([1, 2, 3].map((id) => receiptItems(table, tenantId, id)));

    expect(await failureOf(complete(tenantId, 1, undefined, seededVersion + 1))).toMatchObject({ name: 'VersionConflict', status: 409 });
    expect(await failureOf(complete(tenantId, 2))).toMatchObject({ name: 'VersionConflict', status: 409 });
    expect(await failureOf(complete(tenantId, 3))).toMatchObject({ name: 'ValidationFailed', status: 400 });
    expect(await failureOf(complete(tenantId, 9))).toMatchObject({ name: 'NotFound', status: 404 });

    expect(await Promise.all([1, 2, 3].map((id) => receiptItems(table, tenantId, id)))).toEqual(before);
    expect(await stockOf(table, tenantId, [1, 2, 3, 4, 5, 6])).toEqual(new Map());
  });

  it('lets only one of two concurrent completions of the same version through', async () => {
    const tenantId = freshTenantId();
    await seedReceipt(table, { tenantId, receiptId: 1, lines });
    const outcomes = await Promise.allSettled([complete(tenantId, 1), complete(tenantId, 1)]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(await stockOf(table, tenantId, [1, 2, 3, 4, 5, 6])).toEqual(expectedStock(lines));
  });
});

describe('chunks through the queue', () => {
  /** Seeds a receipt of `lines` and starts its chunked completion; returns its message. */
  const start = async (tenantId: number, lines: readonly SeedLine[]) => {
    const { status, sent, message } = await seedAndComplete(table, tenantId, lines);
    // The guarantee (delayed, before the start commits) and the message at once (after it): the same message.
    expect({ status, sent }).toEqual({ status: 'Completing', sent: [message, message] });
    return message;
  };

  it.each([
    [100, 100, 4],
    [1000, 250, 24],
  ])('completes a %i-line receipt of %i items in %i chunks, stock exact', async (count, items, chunks) => {
    const tenantId = freshTenantId();
    const lines = manyLines(count, items);
    const message = await start(tenantId, lines);
    const completing = await receiptItems(table, tenantId, 1);
    expect(completing.header).toMatchObject({
      Status: 'Completing',
      IsReadOnly: true,
      Version: seededVersion + 1,
      CompletionID: message.completionId,
      ModifiedByUserID: 42,
      ModifiedDateTime_utc: now.toISOString(),
    });
    expect(completing.completion).toMatchObject({ CompletionID: message.completionId, CompletionCursor: 0, ChunkCount: chunks });
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(new Map());

    await expect(continueCompletion(createCompletionRepository(table), message)).resolves.toEqual({ outcome: 'completed', chunksRun: chunks });
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(expectedStock(lines));
    const done = await receiptItems(table, tenantId, 1);
    expect(done.header).toMatchObject({
      Status: 'Complete',
      Version: seededVersion + 2,
      CompletedByUserID: 42,
      CompletedDateTime_utc: now.toISOString(),
      ModifiedByUserID: 42,
      ModifiedDateTime_utc: now.toISOString(),
    });
    expect(done.completion).toMatchObject({ CompletionCursor: chunks });
    expect(done.lines.every((line) => line.IsStockAdjustmentComplete === true)).toBe(true);
    expect(done.movements).toHaveLength(count);
  }, 120_000);

  it('changes nothing on a duplicate message, a late one, or a message of another completion', async () => {
    const tenantId = freshTenantId();
    const lines = manyLines(100, 100);
    const message = await start(tenantId, lines);
    await continueCompletion(createCompletionRepository(table), message);
    const after = await receiptItems(table, tenantId, 1);

    await expect(continueCompletion(createCompletionRepository(table), message)).resolves.toEqual({ outcome: 'completed', chunksRun: 0 });
    await expect(continueCompletion(createCompletionRepository(table), { ...message, completionId: '00000000-0000-4000-8000-000000000000' })).resolves.toEqual({ outcome: 'stale' });
    await expect(continueCompletion(createCompletionRepository(table), { ...message, receiptId: 2 })).resolves.toEqual({ outcome: 'stale' });
    expect(await receiptItems(table, tenantId, 1)).toEqual(after);
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(expectedStock(lines));
  });

  it('runs each chunk once when duplicate deliveries race each other', async () => {
    const tenantId = freshTenantId();
    const lines = manyLines(1000, 250);
    const message = await start(tenantId, lines);
    const passes = await Promise.allSettled([1, 2, 3].map(() => continueCompletion(createCompletionRepository(table), message)));
    // A pass that lost a race on a chunk and found the cursor unmoved fails (the message is redelivered): run one more.
    await continueCompletion(createCompletionRepository(table), message);
    expect(passes.some((pass) => pass.status === 'fulfilled')).toBe(true);
    expect((await receiptItems(table, tenantId, 1)).movements).toHaveLength(1000);
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(expectedStock(lines));
    expect((await receiptItems(table, tenantId, 1)).header).toMatchObject({ Status: 'Complete', Version: seededVersion + 2 });
  }, 120_000);

  it('hands the rest to a new message when out of time, and the new message resumes at the cursor', async () => {
    const tenantId = freshTenantId();
    const lines = manyLines(1000, 250);
    const message = await start(tenantId, lines);
    const { sent, dependencies } = capture();
    let budget = 5;
    await expect(continueCompletion(createCompletionRepository(table), message, { mayRunChunk: () => (budget -= 1) >= 0 }, dependencies)).resolves.toEqual({
      outcome: 'continued',
      chunksRun: 5,
      cursor: 5,
    });
    expect(sent).toEqual([message]);
    expect((await receiptItems(table, tenantId, 1)).header).toMatchObject({ Status: 'Completing' });
    await expect(continueCompletion(createCompletionRepository(table), sent[0] as CompletionMessage)).resolves.toEqual({ outcome: 'completed', chunksRun: 19 });
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(expectedStock(lines));
  }, 120_000);

  // A chunk refused for capacity past its resends (TransactionThrottled), or any other failure of a dependency, after
  // the pass committed chunks: before, only a conflict handed the rest on, and the message's receives counted passes
  // that made progress, so a long throttle sent the receipt to the DLQ half applied, Completing for good (a bad-day
  // review). A pass that committed none still fails its record.
  it('hands the rest to a new message when a chunk fails after the pass committed some; a pass that committed none fails', async () => {
    const tenantId = freshTenantId();
    const lines = manyLines(1000, 250);
    const message = await start(tenantId, lines);
    const { sent, dependencies } = capture();
    const throttled = () => new TransactionThrottled('transaction cancelled for capacity');
    const throttling = (failAt: number) => {
      const store = createCompletionRepository(table);
      let calls = 0;
      return { ...store, runChunk: (...args: Parameters<typeof store.runChunk>) => ((calls += 1) === failAt ? Promise.reject(throttled()) : store.runChunk(...args)) };
    };
    await expect(continueCompletion(throttling(6), message, {}, dependencies)).resolves.toEqual({ outcome: 'continued', chunksRun: 5, cursor: 5 });
    expect(sent).toEqual([message]);
    await expect(continueCompletion(throttling(1), message, {}, dependencies)).rejects.toBeInstanceOf(TransactionThrottled);
    expect(sent).toHaveLength(1);
    await expect(continueCompletion(createCompletionRepository(table), sent[0] as CompletionMessage)).resolves.toEqual({ outcome: 'completed', chunksRun: 19 });
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(expectedStock(lines));
    expect((await receiptItems(table, tenantId, 1)).movements).toHaveLength(1000);
  }, 120_000);

  // A chunk that stalls past the consumer's hand-on reserve is aborted (the chunk's calls carry the pass's signal):
  // the pass hands the rest on like any other chunk failure, where it died at the Lambda timeout before (a review).
  it('hands the rest to a new message when a chunk\'s calls are aborted for time, and the hand-on itself is sent', async () => {
    const tenantId = freshTenantId();
    const lines = manyLines(1000, 250);
    const message = await start(tenantId, lines);
    const { sent, dependencies: captured } = capture();
    // The hand-on runs outside the chunk's signal: its send is never aborted with the chunk.
    const signalsAtHandOn: (AbortSignal | undefined)[] = [];
    const dependencies = {
      publish: async (next: CompletionMessage) => {
        signalsAtHandOn.push(currentInvocation()?.signal);
        return captured.publish(next);
      },
    };
    let chunks = 0;
    const outOfTime = () => {
      const controller = new AbortController();
      if ((chunks += 1) === 6) controller.abort(new Error('the consumer is out of time for this chunk'));
      return controller.signal;
    };
    await expect(continueCompletion(createCompletionRepository(table), message, { chunkSignal: outOfTime }, dependencies)).resolves.toEqual({
      outcome: 'continued',
      chunksRun: 5,
      cursor: 5,
    });
    expect(sent).toEqual([message]);
    expect(signalsAtHandOn).toEqual([undefined]);
    await expect(continueCompletion(createCompletionRepository(table), sent[0] as CompletionMessage)).resolves.toEqual({ outcome: 'completed', chunksRun: 19 });
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(expectedStock(lines));
    expect((await receiptItems(table, tenantId, 1)).movements).toHaveLength(1000);
  }, 120_000);

  it('a save that dies between its start and its send: the guarantee, sent before the commit, completes the receipt once', async () => {
    const tenantId = freshTenantId();
    const lines = manyLines(100, 100);
    await seedReceipt(table, { tenantId, receiptId: 1, lines });
    const guarantees: CompletionMessage[] = [];
    let died = () => {};
    const dead = new Promise<void>((resolve) => {
      died = resolve;
    });
    const dying = {
      publish: async (message: CompletionMessage, options?: { readonly guarantee?: boolean }) => {
        if (options?.guarantee) return void guarantees.push(message);
        // The process died after the commit: the message at once never leaves.
        died();
        return new Promise<void>(() => undefined);
      },
    };
    const lost = complete(tenantId, 1, dying);
    // Waits for the death itself (after the commit), never for a time: a loaded machine may not have committed yet.
    await dead;
    const started = await Promise.race([lost.then(() => 'answered'), new Promise<string>((resolve) => setTimeout(() => resolve('pending'), 500))]);
    expect(started).toBe('pending');
    expect((await receiptItems(table, tenantId, 1)).header).toMatchObject({ Status: 'Completing' });
    expect(guarantees).toHaveLength(1);
    await expect(continueCompletion(createCompletionRepository(table), guarantees[0] as CompletionMessage)).resolves.toMatchObject({ outcome: 'completed' });
    await expect(continueCompletion(createCompletionRepository(table), guarantees[0] as CompletionMessage)).resolves.toEqual({ outcome: 'completed', chunksRun: 0 });
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(expectedStock(lines));
    expect((await receiptItems(table, tenantId, 1)).header).toMatchObject({ Status: 'Complete' });
  }, 60_000);

  it('refuses with 503 and writes nothing when the queue cannot take the guarantee: receipt InProgress at its version, no stock', async () => {
    const tenantId = freshTenantId();
    const lines = manyLines(100, 100);
    await seedReceipt(table, { tenantId, receiptId: 1, lines });
    const before = await receiptItems(table, tenantId, 1);
    const failing = {
      publish: async () => {
        throw Object.assign(new Error('queue unreachable'), { name: 'QueueDoesNotExist' });
      },
    };
    expect(await failureOf(complete(tenantId, 1, failing))).toMatchObject({ name: 'ServiceUnavailable', status: 503 });
    // The guarantee goes before the start commits: nothing at all was written.
    expect(await receiptItems(table, tenantId, 1)).toEqual(before);
    // The receipt can be completed again, from the same version.
    const message = (await (async () => {
      const { sent, dependencies } = capture();
      await complete(tenantId, 1, dependencies);
      return sent[0];
    })()) as CompletionMessage;
    await continueCompletion(createCompletionRepository(table), message);
    expect(await stockOf(table, tenantId, itemsOf(lines))).toEqual(expectedStock(lines));
  }, 60_000);
});
