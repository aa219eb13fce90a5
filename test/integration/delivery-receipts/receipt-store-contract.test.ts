// Integration: the receipt store's contract suite (test/stores/delivery-receipts/receipt-store-contract.ts) against
// the DynamoDB repository on DynamoDB Local; the unit tier runs the same suite against the in-memory store. A crash is
// a write request failing before it reaches DynamoDB (the recorded table's `crashWhen`).
import { createReceiptRepository } from '#shared/delivery-receipts/repository';
import { describeReceiptStoreContract } from '#test/stores/delivery-receipts/receipt-store-contract';
import { openRecordedTable } from './support';

const tables = openRecordedTable();
describeReceiptStoreContract('DynamoDB repository (DynamoDB Local)', (clock) => ({
  store: createReceiptRepository(tables.recorded, clock),
  tableName: tables.table.tableName,
  crashOnWrite: (writes) => {
    let seen = 0;
    tables.crashWhen(writes === undefined ? undefined : (command) => /^(TransactWrite|Put|Update|Delete)Command$/.test(command.name) && ++seen === writes);
  },
}));
