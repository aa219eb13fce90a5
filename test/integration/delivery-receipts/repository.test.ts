// Integration: what a receipt save costs on DynamoDB Local (the service and repository, every request recorded): an
// update of a 1,000-line receipt writes only the lines it changes, in one transaction; a save replacing 600 lines goes
// in chunks under a lease it then releases; a RefNumber costs no look-up when it is the receipt's own or a create's
// (its claim refuses a taken one). The service's rules run over the in-memory store in the unit tier
// (test/unit/delivery-receipts/receipt-service.test.ts), and the store's behaviour (chunks, leases, claims) is held to
// this repository by the contract suite (receipt-store-contract.test.ts).
import { describe, expect, it } from '@jest/globals';
import { headerKey, lineKey } from '#shared/delivery-receipts/keys';
import { logger } from '#shared/observability/logger';
import { storedItem } from '#test/integration/data/support';
import { failureOf, freshPrincipal, linesOf, openReceipts, writesSince } from './support';

logger.setLogLevel('SILENT');

const now = Date.parse('2026-03-02T09:00:00Z');
const clock = () => new Date(now);
const receipts = openReceipts({ clock });
const { service, sent, table } = receipts;

describe('a 1,000-line receipt', () => {
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

});

describe('RefNumber', () => {
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
});
