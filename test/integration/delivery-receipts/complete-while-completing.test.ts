// Integration (DynamoDB Local): a keyed Complete whose receipt another client started completing in chunks between
// this request's body commit and its completion. Its completion meets a VersionConflict and is decided again as
// `{ID, Status: Complete}` on a Completing receipt: the intent holds already, so it is answered 202 as the receipt
// stands, with the key's answer recorded (before: 409 InvalidTransition; found by a bad-day review). A receipt of
// 10 lines, completed in one transaction, answers 200 Complete the same way.
import { describe, expect, it } from '@jest/globals';
import { createIdempotency } from '#shared/data/idempotency';
import { completeReceipt } from '#shared/delivery-receipts/completion';
import { linePolicy } from '#shared/delivery-receipts/lines';
import { createCompletionRepository, createReceiptRepository } from '#shared/delivery-receipts/repository';
import { createReceiptService } from '#shared/delivery-receipts/service';
import { savedAnswer } from '#shared/http/answers/delivery-receipts';
import { logger } from '#shared/observability/logger';
import type { ActionRequestDeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import { freshTenantId, openLocalTable } from '#test/integration/data/support';

logger.setLogLevel('SILENT');
const table = openLocalTable();
const repository = createReceiptRepository(table);
const keys = createIdempotency(table, 'deliveryReceiptSaveV2');
const publish = async () => undefined;
const completeWith = (request: Parameters<typeof completeReceipt>[1]) => completeReceipt(createCompletionRepository(table), request, { publish });
const plain = createReceiptService({ repository, complete: completeWith, policy: linePolicy(0) });

describe('a keyed Complete whose receipt another client completes meanwhile', () => {
  it.each([
    ['in chunks (120 lines)', 120, 202, 'Completing'],
    ['in one transaction (10 lines)', 10, 200, 'Complete'],
  ] as const)('%s: answered as it stands', async (_case, count, status, receiptStatus) => {
    const principal = { tenantId: freshTenantId(), websiteId: 1, userId: 42 };
    const lines = Array.from({ length: count }, (_, index) => ({ InventoryID: 1 + index, QuantityOrdered: 10, QuantityReceived: 1 }));
    const { receipt } = await plain.save(principal, { Value: { Status: 'InProgress', WarehouseID: 7, Lines: lines } });
    const id = receipt.ID as number;
    let raced = false;
    const clientA = createReceiptService({
      repository,
      policy: linePolicy(0),
      complete: async (request) => {
        if (!raced) {
          raced = true;
          // Client B (no key, no change but the status) completes first.
          expect((await plain.save(principal, { Value: { ID: id, Status: 'Complete' } })).receipt.Status).toBe(receiptStatus);
        }
        return completeWith(request);
      },
    });
    const body: ActionRequestDeliveryReceiptT = { Value: { ID: id, Status: 'Complete', InternalNote: 'checked by A' } };
    const run = () => keys.run({ tenantId: principal.tenantId, key: 'key-a', request: { body } }, savedAnswer, (claim) => clientA.save(principal, body, claim));
    const answer = await run().then((first) => ({ status: first.status, Status: (first.body as { Value: { Status: string } }).Value.Status }), (error: { name: string; status?: number }) => `${error.status} ${error.name}`);
    expect(answer).toEqual({ status, Status: receiptStatus });
    // The key's answer is recorded: a retry replays it.
    expect((await run()).status).toBe(status);
  }, 60_000);
});
