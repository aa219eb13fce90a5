// Domain wiring: the delivery-receipt service over the function's table, created once per process, for the
// functions that never complete a receipt (get, add inventory): they bundle neither completion nor the SQS client.
// Save, which completes, uses `with-completion.ts`. The over-receipt tolerance is the stack's setting, read once at
// start-up (a bad value fails the cold start).
import { defaultTable, type TableContext } from '../data/client';
import { stackSettings } from '../operations/settings';
import { linePolicy } from './lines';
import { createReceiptRepository } from './repository';
import { createReceiptService, type CompleteReceipt, type ReceiptService } from './service';

/** The stack's over-receipt tolerance in percent (0 to 1,000, two decimals; shared/operations/settings.ts); 0 when unset. */
export const toleranceVariable = stackSettings.overReceiptTolerance.variable;

/** The service of a function, over its table, with the completion it may run. */
export const wireReceiptService = (table: TableContext, complete: CompleteReceipt, env: NodeJS.ProcessEnv = process.env): ReceiptService => {
  const tolerance = env[toleranceVariable];
  return createReceiptService({
    repository: createReceiptRepository(table),
    complete,
    policy: linePolicy(tolerance === undefined || tolerance === '' ? 0 : Number(tolerance)),
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
