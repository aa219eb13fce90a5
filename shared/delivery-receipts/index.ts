// Domain wiring: the delivery-receipt service over the function's table, created once per process. The
// over-receipt tolerance is the stack's setting, read once at start-up (a bad value fails the cold start).
import { defaultTable } from '../data/client';
import { linePolicy } from './lines';
import { createReceiptRepository } from './repository';
import { createReceiptService, type ReceiptService } from './service';
import { completeReceipt } from './completion';

/** The stack's over-receipt tolerance in percent (0 to 1,000, two decimals); 0 when unset. */
export const toleranceVariable = 'RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT';

let service: ReceiptService | undefined;

export const receiptService = (env: NodeJS.ProcessEnv = process.env): ReceiptService => {
  if (service) return service;
  const table = defaultTable();
  const tolerance = env[toleranceVariable];
  service = createReceiptService({
    repository: createReceiptRepository(table),
    complete: (request) => completeReceipt(table, request),
    policy: linePolicy(tolerance === undefined || tolerance === '' ? 0 : Number(tolerance)),
  });
  return service;
};
