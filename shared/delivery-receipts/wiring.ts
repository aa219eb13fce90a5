// Domain wiring (delivery receipts): the service over the function's table and the store (repository.ts), created
// once per process. Get and add inventory never complete a receipt, so they take `receiptService()` and bundle
// neither completion nor the SQS client; save passes completion in (`completingReceiptService(completeReceipt)`).
// The over-receipt tolerance is the stack's setting, checked when a function that declares it loads (a bad value fails
// the cold start: shared/operations/environment.ts), read here once.
// Search's store (`receiptSearchStore()`) is handed to search.ts by its function, so no other function bundles Search.
import { defaultTable, type TableContext } from '#shared/data/client';
import { createIdempotency, type Idempotency } from '#shared/data/idempotency';
import { optionalEnvironmentValue } from '#shared/environment';
import { stackSettings } from '#shared/operations/settings';
import { linePolicy } from './lines';
import { createCompletionRepository, createReceiptRepository, createSearchRepository } from './repository';
import { createReceiptService, type ReceiptService } from './service';
import type { CompleteReceipt, CompletionStore, ReceiptSearchStore } from './store';

/** The stack's over-receipt tolerance in percent (0 to 1,000, two decimals; shared/operations/settings.ts); 0 when unset. */
export const toleranceVariable = stackSettings.overReceiptTolerance.variable;

/** The service of a function, over its table, with the completion it may run. */
export const wireReceiptService = (table: TableContext, complete: CompleteReceipt): ReceiptService => {
  const tolerance = optionalEnvironmentValue(toleranceVariable);
  return createReceiptService({
    repository: createReceiptRepository(table),
    complete,
    policy: linePolicy(tolerance === undefined ? 0 : Number(tolerance)),
  });
};

const noCompletion: CompleteReceipt = async () => {
  throw new Error('this function does not complete receipts');
};

let service: ReceiptService | undefined;

/** The service of get and add inventory (neither requests a transition). */
export const receiptService = (): ReceiptService => {
  service ??= wireReceiptService(defaultTable(), noCompletion);
  return service;
};

/** Completion as completion.ts runs it: through its store port, for one request. */
export type CompleteThrough = (store: CompletionStore, request: Parameters<CompleteReceipt>[0]) => ReturnType<CompleteReceipt>;

export { idempotencyKeyHeader } from '#shared/data/idempotency';

/**
 * Idempotency-Key handling of the save: the key's claim is written in the receipt's own transaction. Its answer is
 * kept whole: a receipt's answer holds no personal data (the `x-personal-data` fields of DeliveryReceiptT are in
 * its Warehouse, which a receipt neither stores nor shows: shared/schemas/receipt-fields.ts).
 */
export const receiptIdempotency = (operationId: string): Idempotency => createIdempotency(defaultTable(), operationId);

let completingService: ReceiptService | undefined;

/** The service of save, which completes receipts: `complete` (completion.ts's `completeReceipt`) over the table's completion store. */
export const completingReceiptService = (complete: CompleteThrough): ReceiptService => {
  if (!completingService) {
    const table = defaultTable();
    const completions = createCompletionRepository(table);
    completingService = wireReceiptService(table, (request) => complete(completions, request));
  }
  return completingService;
};

/** Search's store over the function's table (search.ts's `createDeliveryReceiptSearch` takes it). */
export const receiptSearchStore = (): ReceiptSearchStore => createSearchRepository(defaultTable());
