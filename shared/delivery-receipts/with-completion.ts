// Domain wiring: the delivery-receipt service of the save function, which completes receipts: completion.ts bound
// to the function's table, with the receipt-completions queue its `sendReceiptCompletions` grant configures.
import { defaultTable } from '../data/client';
import { completeReceipt } from './completion';
import { wireReceiptService } from './index';
import type { ReceiptService } from './service';

let service: ReceiptService | undefined;

export const completingReceiptService = (): ReceiptService => {
  if (!service) {
    const table = defaultTable();
    service = wireReceiptService(table, (request) => completeReceipt(table, request));
  }
  return service;
};
