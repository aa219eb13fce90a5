// Integration: the delivery-receipt service and repository on DynamoDB Local. A 1,000-line receipt is saved in
// chunks and read back whole in SequenceNumber order; an update writes only the lines it changes; concurrent saves
// of one Version commit exactly one; a multi-transaction save holds a lease that other saves wait out, and a save
// that crashed between chunks blocks the receipt only until its lease expires; RefNumbers are unique per tenant.
import { describe, expect, it } from '@jest/globals';
import { headerKey, lineKey } from '#shared/delivery-receipts/keys';
import { saveLeaseMilliseconds } from '#shared/delivery-receipts/repository';
import { logger } from '#shared/observability/logger';
import { storedItem } from '#test/integration/data/support';
import { failureOf, freshPrincipal, linesOf, openReceipts, writesSince } from './support';

logger.setLogLevel('SILENT');

let now = Date.parse('2026-03-02T09:00:00Z');
const clock = () => new Date(now);
const receipts = openReceipts({ clock });
const { service, sent, table } = receipts;

describe('a 1,000-line receipt', () => {
  it('is created in chunks and read back whole, in SequenceNumber order', async () => {
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

  it('writes only the lines an update changes: three lines and the header in one transaction', async () => {
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(1_000) } });
    const lines = receipt.Lines ?? [];
    const changed = lines.map((line, index) => (index % 400 === 7 ? { ...line, QuantityReceived: 9 } : line));
    const from = sent.length;
    const updated = await service.save(principal, { Value: { ID: receipt.ID, Version: receipt.Version, Lines: changed } });
    expect(writesSince(sent, from)).toEqual([4]);
    expect(updated.receipt.Version).toBe(2);
    expect(updated.receipt.Lines?.filter((line) => line.QuantityReceived === 9).map((line) => line.ID)).toEqual([8, 408, 808]);
    expect((await service.get(principal, receipt.ID as number)).receipt).toEqual(updated.receipt);
  });

  it('replaces 600 lines in chunks under a lease, then releases it', async () => {
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(1_000) } });
    const kept = (receipt.Lines ?? []).slice(0, 400);
    const from = sent.length;
    const updated = await service.save(principal, { Value: { ID: receipt.ID, Version: 1, Lines: [...kept, ...linesOf(200, 5_000)] } });
    // The lease (1 item), 800 line actions (600 deletes, 200 puts) in chunks of 99 plus the guard, the header.
    expect(writesSince(sent, from)).toEqual([1, 100, 100, 100, 100, 100, 100, 100, 100, 9, 1]);
    expect(updated.receipt).toMatchObject({ Version: 2, LineCount: 600, TotalLines: 600 });
    expect(updated.receipt.Lines?.slice(400).map((line) => line.ID)).toEqual(Array.from({ length: 200 }, (_, index) => 1_001 + index));
    const header = await storedItem(table, headerKey(principal.tenantId, receipt.ID as number));
    expect(header).toMatchObject({ Version: 2, LastLineNumber: 1_200 });
    expect(header).not.toHaveProperty('SaveLease');
    expect(await storedItem(table, lineKey(principal.tenantId, receipt.ID as number, 401))).toBeUndefined();
  });

  it('refuses a 1,001st line, by save or by add inventory, and writes nothing', async () => {
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(1_000) } });
    const from = sent.length;
    expect(await failureOf(service.save(principal, { Value: { ID: receipt.ID, Lines: [...(receipt.Lines ?? []), { InventoryID: 9_999 }] } }))).toMatchObject({
      name: 'ValidationFailed',
      status: 400,
    });
    expect(await failureOf(service.addInventory(principal, receipt.ID as number, { Value: { InventoryList: [{ InventoryID: 9_999, Quantity: 1 }] } }))).toMatchObject({
      name: 'ValidationFailed',
      status: 400,
    });
    expect(writesSince(sent, from)).toEqual([]);
  });
});

describe('concurrency', () => {
  it('commits exactly one of concurrent saves of the same Version; the others are stale (409)', async () => {
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
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: {} });
    await Promise.all(Array.from({ length: 5 }, (_, index) => service.save(principal, { Value: { ID: receipt.ID, InternalNote: `note ${index}` } })));
    expect((await service.get(principal, receipt.ID as number)).receipt.Version).toBe(6);
  });

  it('leaves a receipt whose chunked save crashed blocked until the lease expires, then saves over it', async () => {
    const principal = freshPrincipal();
    const { receipt } = await service.save(principal, { Value: { Lines: linesOf(300) } });
    let transactions = 0;
    receipts.crashWhen((command) => command.name === 'TransactWriteCommand' && ++transactions === 3);
    expect(await failureOf(service.save(principal, { Value: { ID: receipt.ID, Version: 1, Lines: linesOf(250, 2_000) } }))).toMatchObject({ name: 'InjectedCrash' });
    receipts.crashWhen(undefined);
    // Lines half written: every read waits for the lease, then gives up (409), and so does a save.
    expect(await failureOf(service.get(principal, receipt.ID as number))).toMatchObject({ name: 'SaveInProgress', status: 409 });
    now += saveLeaseMilliseconds + 1;
    const read = await service.get(principal, receipt.ID as number);
    expect(read.receipt.Version).toBe(2);
    const repaired = await service.save(principal, { Value: { ID: receipt.ID, Version: 2, Lines: linesOf(3, 7_000) } });
    expect(repaired.receipt).toMatchObject({ Version: 3, LineCount: 3, TotalLines: 3 });
    // New lines take numbers above every line ever written, the crashed save's included.
    expect(repaired.receipt.Lines?.[0]?.ID).toBeGreaterThan(300);
  });
});

describe('RefNumber', () => {
  it('defaults to DR- and the ID, is unique per tenant case-insensitively, and goes back to the default when cleared', async () => {
    const principal = freshPrincipal();
    const first = await service.save(principal, { Value: { RefNumber: ' PO-77 receipt ' } });
    expect(first.receipt.RefNumber).toBe('PO-77 receipt');
    const second = await service.save(principal, { Value: {} });
    expect(second.receipt.RefNumber).toBe('DR-000002');
    const from = sent.length;
    expect(await failureOf(service.save(principal, { Value: { ID: second.receipt.ID, RefNumber: 'po-77 RECEIPT' } }))).toMatchObject({ name: 'RefNumberTaken', status: 409 });
    expect(await failureOf(service.save(principal, { Value: { RefNumber: 'DR-000009' } }))).toMatchObject({ name: 'ValidationFailed', status: 400 });
    expect(writesSince(sent, from)).toEqual([]);
    const cleared = await service.save(principal, { Value: { ID: first.receipt.ID, RefNumber: '' } });
    expect(cleared.receipt.RefNumber).toBe('DR-000001');
    const reused = await service.save(principal, { Value: { ID: second.receipt.ID, RefNumber: 'PO-77 Receipt' } });
    expect(reused.receipt.RefNumber).toBe('PO-77 Receipt');
    const other = freshPrincipal();
    expect((await service.save(other, { Value: { RefNumber: 'PO-77 receipt' } })).receipt.RefNumber).toBe('PO-77 receipt');
  });

  it('costs a fetched receipt sent back with its own RefNumber one read and one transaction (no owner lookup)', async () => {
    const principal = freshPrincipal();
    const named = (await service.save(principal, { Value: { RefNumber: 'PO-88', SupplierName: 'A' } })).receipt;
    const numbered = (await service.save(principal, { Value: { SupplierName: 'B' } })).receipt;
    for (const [receipt, refNumber] of [[named, 'po-88'], [numbered, 'DR-000002'], [numbered, 'dr-000002']] as const) {
      const from = sent.length;
      const saved = await service.save(principal, { Value: { ID: receipt.ID, Version: undefined, RefNumber: refNumber, SupplierName: `${refNumber} again` } });
      expect(saved.receipt.RefNumber).toBe(refNumber);
      // One read, one write (a transaction of one action is sent as a conditional Put), no GetItem of the claim.
      expect(sent.slice(from).map((command) => command.name)).toEqual(['QueryCommand', expect.stringMatching(/^(Put|TransactWrite)Command$/)]);
    }
    // Another receipt's RefNumber is still looked up first, and refused before anything is written.
    const from = sent.length;
    expect(await failureOf(service.save(principal, { Value: { ID: numbered.ID, RefNumber: 'PO-88' } }))).toMatchObject({ name: 'RefNumberTaken', status: 409 });
    expect(writesSince(sent, from)).toEqual([]);
  });

  it('creates with a new RefNumber in two round trips, and a taken one leaves no gap in the IDs', async () => {
    const principal = freshPrincipal();
    let from = sent.length;
    expect((await service.save(principal, { Value: { RefNumber: 'PO-1' } })).receipt).toMatchObject({ ID: 1, RefNumber: 'PO-1' });
    // The ID, then one transaction whose claim refuses a taken RefNumber: no GetItem of the claim first.
    expect(sent.slice(from).map((command) => command.name)).toEqual(['UpdateCommand', 'TransactWriteCommand']);
    from = sent.length;
    expect(await failureOf(service.save(principal, { Value: { RefNumber: 'po-1' } }))).toMatchObject({ name: 'RefNumberTaken', status: 409 });
    expect((await service.save(principal, { Value: {} })).receipt).toMatchObject({ ID: 2, RefNumber: 'DR-000002' });
  });

  it('answers 404 for another tenant\'s receipt, on every operation', async () => {
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
