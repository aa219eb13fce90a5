// Integration (DynamoDB Local): a save written in chunks whose new RefNumber another receipt takes between the
// service's check of its owner and the write. The claim goes with the save's first transaction (the lease), so the
// save is refused (409 RefNumberTaken) before anything changed: no line written, the Version as it was, no lease
// left (before: refused at the last transaction, with every line written, the Version moved and the receipt leased
// for 30 s; found by a bad-day review). The race is made by the repository's owner lookup.
import { describe, expect, it } from '@jest/globals';
import { linePolicy } from '#shared/delivery-receipts/lines';
import { createReceiptRepository } from '#shared/delivery-receipts/repository';
import { createReceiptService } from '#shared/delivery-receipts/service';
import { logger } from '#shared/observability/logger';
import { freshPrincipal, openRecordedTable } from './support';

logger.setLogLevel('SILENT');
const { table } = openRecordedTable();

describe('a chunked update whose new RefNumber is taken between its check and its write', () => {
  it('answers 409 and changes nothing; saved again with a free RefNumber, it is written whole', async () => {
    const real = createReceiptRepository(table);
    let racing: (() => Promise<unknown>) | undefined;
    const repository = {
      ...real,
      refNumberOwner: async (tenantId: number, refNumber: string) => {
        const owner = await real.refNumberOwner(tenantId, refNumber);
        const race = racing;
        racing = undefined;
        await race?.();
        return owner;
      },
    };
    const service = createReceiptService({ repository, policy: linePolicy(0), complete: async () => Promise.reject(new Error('no completion')) });
    const principal = freshPrincipal();
    const lines = Array.from({ length: 120 }, (_, index) => ({ InventoryID: 1 + index, QuantityOrdered: 10, QuantityReceived: 1 }));
    const { receipt } = await service.save(principal, { Value: { Lines: lines } });
    const other = await service.save(principal, { Value: { SupplierName: 'other' } });
    const before = await service.get(principal, receipt.ID as number);

    racing = () => service.save(principal, { Value: { ID: other.receipt.ID as number, RefNumber: 'PO-RACE' } });
    const changed = (receipt.Lines ?? []).map((line) => ({ ID: line.ID, QuantityReceived: 2 }));
    const outcome = await service.save(principal, { Value: { ID: receipt.ID as number, RefNumber: 'PO-RACE', Lines: changed } }).then(
      () => 'saved',
      (error: { name: string; status?: number }) => `${error.status} ${error.name}`,
    );
    expect(outcome).toBe('409 RefNumberTaken');
    // Readable at once (no lease), exactly as before.
    expect(await service.get(principal, receipt.ID as number)).toEqual(before);

    const saved = await service.save(principal, { Value: { ID: receipt.ID as number, RefNumber: 'PO-FREE', Lines: changed } });
    expect({ RefNumber: saved.receipt.RefNumber, changed: saved.receipt.Lines?.filter((line) => line.QuantityReceived === 2).length }).toEqual({ RefNumber: 'PO-FREE', changed: 120 });
    expect(await real.refNumberOwner(principal.tenantId, 'PO-RACE')).toBe(other.receipt.ID);
    expect(await real.refNumberOwner(principal.tenantId, 'PO-FREE')).toBe(receipt.ID);
  }, 60_000);
});
