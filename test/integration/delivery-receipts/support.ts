// Test support for the delivery-receipt integration tests: the real service and repository on DynamoDB Local (with
// completion bound to the same table), a principal of a fresh tenant, and a record of the commands the repository
// sent, to count what a save wrote.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/principal';
import type { TableContext } from '#shared/data/client';
import { completeReceipt } from '#shared/delivery-receipts/completion';
import { linePolicy } from '#shared/delivery-receipts/lines';
import { createCompletionRepository, createReceiptRepository } from '#shared/delivery-receipts/repository';
import { createReceiptService } from '#shared/delivery-receipts/service';
import { freshTenantId, openLocalTable } from '#test/integration/data/support';

export { failureOf } from '#test/integration/data/support';

export interface SentCommand {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** The local table, with every command sent through it recorded in `sent` (a spy, not a mock: each one is sent). */
export const openRecordedTable = () => {
  const table = openLocalTable();
  const sent: SentCommand[] = [];
  let failAt: ((command: SentCommand) => boolean) | undefined;
  let loseAnswerAt: ((command: SentCommand) => boolean) | undefined;
  const crash = () => Object.assign(new Error('injected crash'), { name: 'InjectedCrash' });
  const client = {
    send: (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const entry = { name: command.constructor.name, input: command.input };
      if (failAt?.(entry)) return Promise.reject(crash());
      sent.push(entry);
      const answer = table.client.send(command as never);
      // Sent and applied, its answer lost: the function died after the request reached DynamoDB.
      return loseAnswerAt?.(entry) ? answer.then(() => Promise.reject(crash())) : answer;
    },
  } as unknown as DynamoDBDocumentClient;
  const recorded: TableContext = { client, tableName: table.tableName };
  return {
    table,
    recorded,
    sent,
    /** Makes the commands `when` picks fail before they reach DynamoDB (a function crashing mid-save). */
    crashWhen: (when: ((command: SentCommand) => boolean) | undefined) => {
      failAt = when;
    },
    /** Makes the commands `when` picks reach DynamoDB, then fail as if the function died before their answer came. */
    loseAnswerWhen: (when: ((command: SentCommand) => boolean) | undefined) => {
      loseAnswerAt = when;
    },
  };
};

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
    .filter((command) => /^(TransactWrite|Put|Update|Delete)Command$/.test(command.name))
    .map((command) => (command.name === 'TransactWriteCommand' ? (command.input.TransactItems as unknown[]).length : 1));
