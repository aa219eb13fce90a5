// Unit tests of the receipt service's rules (shared/delivery-receipts/service.ts) over the in-memory receipt store
// (test/stores/delivery-receipts/memory-receipt-store.ts, held to the DynamoDB repository by its contract suite): a
// 1,000-line receipt saved in chunks and read back whole, the 1,000-line bound refused with nothing written, one of
// concurrent saves of a Version committed, a save without Version retried until it commits, a receipt whose save in
// chunks died held until its lease expires, RefNumbers unique per tenant, and another tenant's receipt a 404. What a
// save costs on DynamoDB (its requests and transactions) stays in test/integration/delivery-receipts/repository.test.ts.
import { describe, expect, it } from '@jest/globals';
import type { Principal } from '#shared/auth/principal';
import { linePolicy } from '#shared/delivery-receipts/lines';
import { saveLeaseMilliseconds } from '#shared/delivery-receipts/repository';
import { createReceiptService } from '#shared/delivery-receipts/service';
import { VersionConflict } from '#shared/errors';
import { optimisticRetryPolicy } from '#shared/data/retry';
import { logger } from '#shared/observability/logger';
import { createMemoryReceiptStore } from '#test/stores/delivery-receipts/memory-receipt-store';
import { freshTenantId } from '#test/support/tenant-items';

logger.setLogLevel('SILENT');

let now = Date.parse('2026-03-02T09:00:00Z');
const clock = () => new Date(now);

/** The service over a fresh in-memory store. These rules never complete a receipt (completion-rules.test.ts does). */
const openReceipts = () => {
  const memory = createMemoryReceiptStore(clock);
  const service = createReceiptService({
    repository: memory.store,
    complete: async () => Promise.reject(new Error('completion is not part of these tests')),
    policy: linePolicy(0),
    clock,
  });
  return { ...memory, service };
};

const freshPrincipal = (): Principal => ({ tenantId: freshTenantId(), websiteId: 1, userId: 42 });

/** `count` lines of distinct items (from `first`), each ordering 10 and receiving 4. */
const linesOf = (count: number, first = 1) =>
  Array.from({ length: count }, (_, index) => ({ InventoryID: first + index, SKU: `SKU-${first + index}`, QuantityOrdered: 10, QuantityReceived: 4 }));

const failureOf = async (pending: Promise<unknown>) => {
  try {
    await pending;
  } catch (error) {
    const { name, status } = error as { name: string; status?: number };
    return { name, ...(status !== undefined ? { status } : {}) };
  }
  throw new Error('expected a failure');
};

describe('a 1,000-line receipt', () => {
  it('is created in chunks and read back whole, in SequenceNumber order', async () => {
    const { service } = openReceipts();
    const principal = freshPrincipal();
    const saved = await service.save(principal, { Value: { SupplierName: 'Bulk Co', Lines: linesOf(1_000) } });
    expect(saved.created).toBe(true);
    expect(saved.receipt).toMatchObject({ ID: 1, RefNumber: 'DR-000001', Version: 1, LineCount: 1_000, TotalLines: 1_000 });
    const read = await service.get(principal, 1);
    expect(read.receipt.Lines).toHaveLength(1_000);
    expect(read.receipt.Lines?.map((line) => line.SequenceNumber)).toEqual(Array.from({ length: 1_000 }, (_, index) => index + 1));
    expect(read.receipt).toEqual(saved.receipt);
    expect(read.allowed).toEqual(['InProgress', 'Cancelled']);
  });

  it('refuses a 1,001st line, by save or by add inventory, and writes nothing', async () => {
    const { service, snapshot, writes } = openReceipts();
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(1_000) } });
    const [before, written] = [snapshot(), writes()];
    expect(await failureOf(service.save(principal, { Value: { ID: receipt.ID, Lines: [...(receipt.Lines ?? []), { InventoryID: 9_999 }] } }))).toMatchObject({
      name: 'ValidationFailed',
      status: 400,
    });
    expect(await failureOf(service.addInventory(principal, receipt.ID as number, { Value: { InventoryList: [{ InventoryID: 9_999, Quantity: 1 }] } }))).toMatchObject({
      name: 'ValidationFailed',
      status: 400,
    });
    expect([snapshot(), writes()]).toEqual([before, written]);
  });
});

describe('concurrency', () => {
  it('commits exactly one of concurrent saves of the same Version; the others are stale (409)', async () => {
    const { service } = openReceipts();
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(5) } });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => service.save(principal, { Value: { ID: receipt.ID, Version: 1, InternalNote: `writer ${index}` } })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(refused.map((outcome) => (outcome.reason as Error).name)).toEqual(Array(5).fill('StaleVersion'));
    expect((await service.get(principal, receipt.ID as number)).receipt.Version).toBe(2);
  });

  it('retries a save without Version that lost a race, so every writer commits', async () => {
    const { service } = openReceipts();
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: {} });
    await Promise.all(Array.from({ length: 5 }, (_, index) => service.save(principal, { Value: { ID: receipt.ID, InternalNote: `note ${index}` } })));
    expect((await service.get(principal, receipt.ID as number)).receipt.Version).toBe(6);
  });

  it('leaves a receipt whose chunked save crashed blocked until the lease expires, then saves over it', async () => {
    const { service, crashOnWrite } = openReceipts();
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(300) } });
    // The lease, two chunks of lines, then the function dies at the third.
    crashOnWrite(4);
    expect(await failureOf(service.save(principal, { Value: { ID: receipt.ID, Version: 1, Lines: linesOf(250, 2_000) } }))).toMatchObject({ name: 'InjectedCrash' });
    crashOnWrite(undefined);
    // Lines half written: every read waits for the lease, then gives up (409), and so does a save.
    expect(await failureOf(service.get(principal, receipt.ID as number))).toMatchObject({ name: 'StillBeingSaved', status: 409 });
    now += saveLeaseMilliseconds + 1;
    const read = await service.get(principal, receipt.ID as number);
    expect(read.receipt.Version).toBe(2);
    const repaired = await service.save(principal, { Value: { ID: receipt.ID, Version: 2, Lines: linesOf(3, 7_000) } });
    expect(repaired.receipt).toMatchObject({ Version: 3, LineCount: 3, TotalLines: 3 });
    // New lines take numbers above every line ever written, the crashed save's included.
    expect(repaired.receipt.Lines?.[0]?.ID).toBeGreaterThan(300);
  });
});

describe('a receipt under a dead save\'s lease', () => {
  // A save or an add met the lease in its first read and waited it out as any read does, then its own retry loop,
  // taking the read's refusal for a lost race, waited it out again, ten times: a 504 at about 10 s (the function's
  // timeout) against a 30 s lease, where a read answers 409 in a few seconds (a bad-day review).
  it('answers a save and an add 409 after one read\'s wait, as a read, not after ten', async () => {
    const memory = createMemoryReceiptStore(clock);
    let reads = 0;
    const service = createReceiptService({
      repository: { ...memory.store, read: (...args: Parameters<typeof memory.store.read>) => ((reads += 1), memory.store.read(...args)) },
      complete: async () => Promise.reject(new Error('completion is not part of these tests')),
      policy: linePolicy(0),
      clock,
    });
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(300) } });
    memory.crashOnWrite(4);
    expect(await failureOf(service.save(principal, { Value: { ID: receipt.ID, Version: 1, Lines: linesOf(250, 2_000) } }))).toMatchObject({ name: 'InjectedCrash' });
    memory.crashOnWrite(undefined);

    reads = 0;
    expect(await failureOf(service.save(principal, { Value: { ID: receipt.ID, InternalNote: 'late' } }))).toMatchObject({ name: 'StillBeingSaved', status: 409 });
    expect(reads).toBeLessThanOrEqual(optimisticRetryPolicy.maxAttempts + 1);
    reads = 0;
    expect(await failureOf(service.addInventory(principal, receipt.ID as number, { Value: { InventoryList: [{ InventoryID: 77, Quantity: 1 }] } }))).toMatchObject({ name: 'StillBeingSaved', status: 409 });
    expect(reads).toBeLessThanOrEqual(optimisticRetryPolicy.maxAttempts);
    now += saveLeaseMilliseconds + 1;
  }, 60_000);
});

describe('a completion that loses a race', () => {
  /**
   * The service with a completion that, on its first call, lets `interleave` write first (another request between
   * this save's commit and its completion), then completes only at the Version it was given, as completion.ts does.
   */
  const openRacedCompletion = (interleave: (service: ReturnType<typeof createReceiptService>, principal: Principal, id: number) => Promise<unknown>) => {
    const memory = createMemoryReceiptStore(clock);
    const principal = freshPrincipal();
    const expectedVersions: number[] = [];
    const service: ReturnType<typeof createReceiptService> = createReceiptService({
      repository: memory.store,
      complete: async ({ tenantId, receiptId, expectedVersion }) => {
        expectedVersions.push(expectedVersion);
        if (expectedVersions.length === 1) await interleave(service, principal, receiptId);
        const stored = await memory.store.read(tenantId, receiptId);
        if (!stored || stored.header.Version !== expectedVersion || stored.header.Status !== 'InProgress') throw new VersionConflict();
        const header = { ...stored.header, Status: 'Complete', FriendlyStatus: 'Complete', IsReadOnly: true, Version: stored.header.Version + 1 };
        await memory.store.write({ tenantId, header, lastLineNumber: stored.lastLineNumber, previous: stored, puts: [], deletes: [] });
        return { status: 'Complete' };
      },
      policy: linePolicy(0),
      clock,
    });
    return { service, principal, expectedVersions };
  };

  it('is decided again from a fresh read: the save keeps its changes, completes, and the lines added meanwhile are in it', async () => {
    const { service, principal, expectedVersions } = openRacedCompletion((own, who, id) =>
      own.addInventory(who, id, { Value: { InventoryList: [{ InventoryID: 77, Quantity: 2, AdjustedQuantityReceived: 2 }] } }),
    );
    const { receipt } = await service.save(principal, { Value: { WarehouseID: 3, Status: 'InProgress', Lines: linesOf(1) } });
    const saved = await service.save(principal, { Value: { ID: receipt.ID, Version: receipt.Version, SupplierName: 'Changed', Status: 'Complete' } });
    expect(saved.receipt).toMatchObject({ Status: 'Complete', SupplierName: 'Changed' });
    expect(saved.receipt.Lines?.map((line) => line.InventoryID)).toEqual([1, 77]);
    // Its body committed at Version 2, the addition made 3: the completion was decided again at 3.
    expect(expectedVersions).toEqual([2, 3]);
  });

  it('answers a receipt another request completed meanwhile as it stands, without completing it twice', async () => {
    const { service, principal, expectedVersions } = openRacedCompletion((own, who, id) => own.save(who, { Value: { ID: id, Status: 'Complete' } }));
    const { receipt } = await service.save(principal, { Value: { WarehouseID: 3, Status: 'InProgress', Lines: linesOf(1) } });
    const saved = await service.save(principal, { Value: { ID: receipt.ID, Status: 'Complete' } });
    expect(saved.receipt).toMatchObject({ Status: 'Complete' });
    // This save's completion (at 1) lost to the other one's (at 1, which completed): decided again, nothing to complete,
    // nothing written (the Version is the other completion's).
    expect(expectedVersions).toEqual([1, 1]);
    expect(saved.receipt.Version).toBe(2);
  });

  it('is stale (409) when the save named its Version and committed nothing: the receipt moved under it', async () => {
    const { service, principal, expectedVersions } = openRacedCompletion((own, who, id) =>
      own.addInventory(who, id, { Value: { InventoryList: [{ InventoryID: 77, Quantity: 2, AdjustedQuantityReceived: 2 }] } }),
    );
    const { receipt } = await service.save(principal, { Value: { WarehouseID: 3, Status: 'InProgress', Lines: linesOf(1) } });
    expect(await failureOf(service.save(principal, { Value: { ID: receipt.ID, Version: receipt.Version, Status: 'Complete' } }))).toMatchObject({
      name: 'StaleVersion',
      status: 409,
    });
    expect(expectedVersions).toEqual([1]);
    expect((await service.get(principal, receipt.ID as number)).receipt.Status).toBe('InProgress');
  });

  it('is refused when the receipt was cancelled meanwhile (a real conflicting intent)', async () => {
    const { service, principal } = openRacedCompletion((own, who, id) => own.save(who, { Value: { ID: id, Status: 'Cancelled' } }));
    const { receipt } = await service.save(principal, { Value: { WarehouseID: 3, Status: 'InProgress', Lines: linesOf(1) } });
    expect(await failureOf(service.save(principal, { Value: { ID: receipt.ID, Status: 'Complete' } }))).toMatchObject({ status: 409 });
    expect((await service.get(principal, receipt.ID as number)).receipt.Status).toBe('Cancelled');
  });
});

describe('a save that changes nothing', () => {
  // Before, each such save moved the Version (20 concurrent completions of a Complete receipt left it at 21), so a
  // client holding the Version was answered 409 for a change that never was.
  it('writes nothing and answers the receipt as it stands: sent back as fetched, with its Version or without, or its status again', async () => {
    const { service, snapshot, writes } = openReceipts();
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { SupplierName: 'Same Co', Lines: linesOf(2) } });
    const [before, written] = [snapshot(), writes()];
    for (const value of [{ ID: receipt.ID }, { ID: receipt.ID, Version: receipt.Version }, { ID: receipt.ID, Status: receipt.Status }, { ...receipt }]) {
      const again = await service.save(principal, { Value: value as never });
      expect({ sent: Object.keys(value), ...again.receipt }).toMatchObject({ sent: Object.keys(value), ID: receipt.ID, Version: receipt.Version, ModifiedDateTime_utc: receipt.ModifiedDateTime_utc });
    }
    expect([snapshot(), writes()]).toEqual([before, written]);
    // A change still moves it.
    expect((await service.save(principal, { Value: { ID: receipt.ID, SupplierName: 'Other Co' } })).receipt.Version).toBe((receipt.Version as number) + 1);
  });
});

describe('RefNumber', () => {
  it('defaults to DR- and the ID, is unique per tenant case-insensitively, and goes back to the default when cleared', async () => {
    const { service, snapshot, writes } = openReceipts();
    const principal = freshPrincipal();
    const first = await service.save(principal, { Value: { RefNumber: ' PO-77 receipt ' } });
    expect(first.receipt.RefNumber).toBe('PO-77 receipt');
    const second = await service.save(principal, { Value: {} });
    expect(second.receipt.RefNumber).toBe('DR-000002');
    const [before, written] = [snapshot(), writes()];
    expect(await failureOf(service.save(principal, { Value: { ID: second.receipt.ID, RefNumber: 'po-77 RECEIPT' } }))).toMatchObject({ name: 'RefNumberTaken', status: 409 });
    expect(await failureOf(service.save(principal, { Value: { RefNumber: 'DR-000009' } }))).toMatchObject({ name: 'ValidationFailed', status: 400 });
    expect([snapshot(), writes()]).toEqual([before, written]);
    const cleared = await service.save(principal, { Value: { ID: first.receipt.ID, RefNumber: '' } });
    expect(cleared.receipt.RefNumber).toBe('DR-000001');
    const reused = await service.save(principal, { Value: { ID: second.receipt.ID, RefNumber: 'PO-77 Receipt' } });
    expect(reused.receipt.RefNumber).toBe('PO-77 Receipt');
    const other = freshPrincipal();
    expect((await service.save(other, { Value: { RefNumber: 'PO-77 receipt' } })).receipt.RefNumber).toBe('PO-77 receipt');
  });

  it("answers 404 for another tenant's receipt, on every operation", async () => {
    const { service } = openReceipts();
    const owner = freshPrincipal();
    const { receipt } = await service.save(owner, { Value: {} });
    const stranger = freshPrincipal();
    const id = receipt.ID as number;
    // Each call starts only when awaited, so no refusal is left unobserved meanwhile.
    for (const call of [
      () => service.get(stranger, id),
      () => service.save(stranger, { Value: { ID: id, InternalNote: 'x' } }),
      () => service.addInventory(stranger, id, { Value: { InventoryList: [{ InventoryID: 1 }] } }),
    ]) {
      expect(await failureOf(call())).toMatchObject({ name: 'NotFound', status: 404 });
    }
  });
});

describe('add inventory on a read-only receipt', () => {
  it('answers a list that changes nothing as the receipt stands (a retry after a lost answer), and refuses any change with 409', async () => {
    const { service, snapshot, writes } = openReceipts();
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(3) } });
    const id = receipt.ID as number;
    const list = { Value: { InventoryList: [{ InventoryID: 77, Quantity: 2, AdjustedQuantityReceived: 2 }] } };
    const added = await service.addInventory(principal, id, list);
    // Another request cancels the receipt; then the first request's retry arrives.
    await service.save(principal, { Value: { ID: id, Status: 'Cancelled' } });
    const [before, written] = [snapshot(), writes()];
    const retried = await service.addInventory(principal, id, list);
    expect(retried.receipt).toMatchObject({ Status: 'Cancelled', Lines: added.receipt.Lines?.map((line) => expect.objectContaining({ ID: line.ID, QuantityOrdered: line.QuantityOrdered })) });
    expect([snapshot(), writes()]).toEqual([before, written]);
    for (const change of [{ InventoryID: 77, Quantity: 3 }, { InventoryID: 78, Quantity: 1 }, { InventoryID: 77, Quantity: -1 }]) {
      expect(await failureOf(service.addInventory(principal, id, { Value: { InventoryList: [change] } }))).toMatchObject({ name: 'ReadOnlyRecord', status: 409 });
    }
    expect([snapshot(), writes()]).toEqual([before, written]);
  });
});
