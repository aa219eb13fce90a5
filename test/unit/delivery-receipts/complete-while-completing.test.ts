// Unit: Complete asked again of a receipt whose completion is under way (Completing: a chunked completion started).
// The retry of a request whose 202 was lost, or a second client's, carries the same intent: it is answered as the
// receipt stands (202 Completing) and writes nothing, never a 409 InvalidTransition (found by a bad-day review).
// The service over the in-memory store, with a completion that starts a chunked completion and loses its answer.
import { describe, expect, it } from '@jest/globals';
import type { Principal } from '#shared/auth/principal';
import { linePolicy } from '#shared/delivery-receipts/lines';
import { createReceiptService } from '#shared/delivery-receipts/service';
import { logger } from '#shared/observability/logger';
import { createMemoryReceiptStore } from '#test/stores/delivery-receipts/memory-receipt-store';
import { freshTenantId } from '#test/support/tenant-items';

logger.setLogLevel('SILENT');
const clock = () => new Date('2026-03-02T09:00:00Z');

describe('a Complete request retried while its chunked completion runs', () => {
  it('is answered 202 Completing, as the receipt stands, and writes nothing', async () => {
    const memory = createMemoryReceiptStore(clock);
    let answerLost = true;
    const service = createReceiptService({
      repository: memory.store,
      policy: linePolicy(0),
      clock,
      // The chunked start as completion.ts makes it (the header Completing, Version + 1), then its answer is lost.
      complete: async ({ tenantId, receiptId, expectedVersion }) => {
        const stored = await memory.store.read(tenantId, receiptId);
        if (!stored || stored.header.Version !== expectedVersion) throw new Error('unexpected');
        await memory.store.write({
          tenantId,
          header: { ...stored.header, Status: 'Completing', FriendlyStatus: 'Completing', IsReadOnly: true, Version: expectedVersion + 1 },
          lastLineNumber: stored.lastLineNumber,
          previous: stored,
          puts: [],
          deletes: [],
        });
        if (answerLost) {
          answerLost = false;
          throw Object.assign(new Error('socket timed out after the write landed'), { name: 'TimeoutError' });
        }
        return { status: 'Completing' as const };
      },
    });
    const principal: Principal = { tenantId: freshTenantId(), websiteId: 1, userId: 42 };
    const lines = Array.from({ length: 60 }, (_, index) => ({ InventoryID: 100 + index, QuantityOrdered: 1, QuantityReceived: 1 }));
    const { receipt } = await service.save(principal, { Value: { Status: 'InProgress', WarehouseID: 7, Lines: lines } });
    const body = { Value: { ID: receipt.ID as number, Status: 'Complete' } };

    await expect(service.save(principal, body)).rejects.toMatchObject({ name: 'TimeoutError' });
    const before = await memory.store.read(principal.tenantId, receipt.ID as number);
    const retried = await service.save(principal, body).then(
      (saved) => ({ status: saved.completing ? 202 : 200, Status: saved.receipt.Status, Version: saved.receipt.Version }),
      (error: { name: string; status?: number }) => ({ status: error.status, name: error.name }),
    );
    expect(retried).toEqual({ status: 202, Status: 'Completing', Version: before?.header.Version });
    expect(await memory.store.read(principal.tenantId, receipt.ID as number)).toEqual(before);
    // Another field with it is still refused: the receipt is read-only while Completing.
    await expect(service.save(principal, { Value: { ...body.Value, SupplierName: 'Changed' } })).rejects.toMatchObject({ status: 409 });
  });
});
