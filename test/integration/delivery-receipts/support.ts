// Test support for the delivery-receipt integration tests: the real service and repository on DynamoDB Local (with
// completion bound to the same table), a principal of a fresh tenant, and a record of the commands the repository
// sent, to count what a save wrote.
import type { Principal } from '#shared/auth/principal';
import { completeReceipt } from '#shared/delivery-receipts/completion';
import { linePolicy } from '#shared/delivery-receipts/lines';
import { createCompletionRepository, createReceiptRepository } from '#shared/delivery-receipts/repository';
import { createReceiptService } from '#shared/delivery-receipts/service';
import { freshTenantId, isWriteCommand, openRecordedTable, type SentCommand } from '#test/integration/data/support';

export { failureOf, openRecordedTable, type SentCommand } from '#test/integration/data/support';

export const openReceipts = (options: { clock?: () => Date; tolerancePercent?: number } = {}) => {
  const tables = openRecordedTable();
  const repository = createReceiptRepository(tables.recorded, options.clock);
  const service = createReceiptService({
    repository,
    complete: (request) => completeReceipt(createCompletionRepository(tables.table), request),
    policy: linePolicy(options.tolerancePercent ?? 0),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { ...tables, repository, service };
};

export const freshPrincipal = (): Principal => ({ tenantId: freshTenantId(), websiteId: 1, userId: 42 });

/** `count` lines of distinct items (from `first`), each ordering 10 and receiving 4. */
export const linesOf = (count: number, first = 1) =>
  Array.from({ length: count }, (_, index) => ({ InventoryID: first + index, SKU: `SKU-${first + index}`, QuantityOrdered: 10, QuantityReceived: 4 }));

/** The TransactWriteItems (or single-item writes) sent since `from`, with their item counts. */
export const writesSince = (sent: readonly SentCommand[], from: number) =>
  sent
    .slice(from)
    .filter(isWriteCommand)
    .map((command) => (command.name === 'TransactWriteCommand' ? (command.input.TransactItems as unknown[]).length : 1));
