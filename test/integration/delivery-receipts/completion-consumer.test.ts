// Integration: the receipt completions consumer (functions/delivery-receipts/consume-receipt-completions.ts) on DynamoDB Local. In its
// own process, as the local stack runs functions (infra/local/function-host.ts), killed while it runs the chunks of
// a 1,000-line receipt: the redelivered message resumes at the cursor and stock ends exactly right. In-process: a
// batch with an unreadable record reports only that record as failed; a duplicate record changes nothing; a chunk
// cancelled by a transaction conflict is sent again in the pass, and a conflict that outlasts the resends costs a
// receive only when the pass committed nothing (else the rest goes to a new message).
import { afterAll, expect, it } from '@jest/globals';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createCompletionConsumer } from '#functions/delivery-receipts/consume-receipt-completions';
import { startIsolatedFunctions, type IsolatedFunctions } from '#infra/local/function-host';
import type { CompletionMessage } from '#shared/delivery-receipts/completion';
import { logger } from '#shared/observability/logger';
import { lambdaContext, sqsRecord } from '#test/support/lambda-events';
import { requireLocalEndpoints } from '#test/support/local-endpoints';
import { freshTenantId, openLocalTable } from '#test/integration/data/support';
import { expectedStock, inventoryIdsOf, manyLines, receiptItems, seedAndComplete, seededVersion, stockOf } from './completion-support';

logger.setLogLevel('SILENT');
const table = openLocalTable();
const running: IsolatedFunctions[] = [];
afterAll(async () => {
  for (const functions of running) await functions.close();
});

const record = (body: string, receiveCount = 1): SQSRecord => sqsRecord(body, { receiveCount, queue: 'receipt-completions' });

/** Starts a chunked completion of a 1,000-line receipt; returns its lines and message. */
const startLarge = async (tenantId: number) => {
  const lines = manyLines(1000, 250);
  return { lines, ...(await seedAndComplete(table, tenantId, lines)) };
};

const consumerFunction = () => {
  const { dynamodbEndpoint, sqsEndpoint, tableName } = requireLocalEndpoints();
  const functions = startIsolatedFunctions(
    [
      {
        functionName: 'receiptCompletionsConsumer',
        handler: 'functions/delivery-receipts/consume-receipt-completions.ts',
        environment: {
          TABLE_NAME: tableName,
          AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint,
          AWS_ENDPOINT_URL_SQS: sqsEndpoint,
          RECEIPT_COMPLETIONS_QUEUE_URL: `${sqsEndpoint}/000000000000/receipt-completions-unused`,
          POWERTOOLS_SERVICE_NAME: 'business-platform-api',
          LOG_LEVEL: 'ERROR',
        },
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      },
    ],
    () => undefined,
  );
  running.push(functions);
  return functions;
};

const cursorOf = async (tenantId: number) => Number((await receiptItems(table, tenantId, 1)).completion?.CompletionCursor ?? 0);

it('resumes at the cursor after the consumer process is killed between chunks, with stock exactly right', async () => {
  const tenantId = freshTenantId();
  const { lines, message } = await startLarge(tenantId);
  const event: SQSEvent = { Records: [record(JSON.stringify(message))] };
  const ref = { functionName: 'receiptCompletionsConsumer', handler: 'functions/delivery-receipts/consume-receipt-completions.ts' };

  // Prepare: the first delivery runs in a process of its own, killed once a chunk or more has committed.
  const first = consumerFunction();
  const invocation = first.invoke(ref, event, 60_000).then(
    () => 'finished',
    (error: Error) => error.message,
  );
  while ((await cursorOf(tenantId)) < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  await first.close();
  expect(await invocation).toMatch(/Runtime exited|stopped/);
  const cursorAtKill = await cursorOf(tenantId);
  expect(cursorAtKill).toBeGreaterThanOrEqual(2);
  expect(cursorAtKill).toBeLessThan(24);
  expect((await receiptItems(table, tenantId, 1)).header).toMatchObject({ Status: 'Completing' });

  // Act: redelivery (a new process, as after a crashed Lambda), and a duplicate delivery after it.
  const second = consumerFunction();
  await expect(second.invoke(ref, { Records: [record(JSON.stringify(message), 2)] }, 60_000)).resolves.toEqual({ batchItemFailures: [] });
  await expect(second.invoke(ref, { Records: [record(JSON.stringify(message), 1)] }, 60_000)).resolves.toEqual({ batchItemFailures: [] });

  // Assess
  expect(await cursorOf(tenantId)).toBe(24);
  expect(await stockOf(table, tenantId, inventoryIdsOf(lines))).toEqual(expectedStock(lines));
  const stored = await receiptItems(table, tenantId, 1);
  expect(stored.header).toMatchObject({ Status: 'Complete', Version: seededVersion + 2 });
  expect(stored.movements).toHaveLength(1000);
}, 180_000);

it('reports only the unreadable record of a batch as failed, and a duplicate record changes nothing', async () => {
  const tenantId = freshTenantId();
  const lines = manyLines(100, 100);
  const { sent } = await seedAndComplete(table, tenantId, lines);
  const consumer = createCompletionConsumer(
    () => table,
    () => ({ publish: async () => undefined }),
  );
  const good = record(JSON.stringify(sent[0]));
  const duplicate = record(JSON.stringify(sent[0]));
  const unreadable = [
    record('not json'),
    record(JSON.stringify({ ...sent[0], extra: 1 })),
    record(JSON.stringify({ ...sent[0], tenantId: '1' })),
    record(JSON.stringify({ ...sent[0], completionId: 'x' })),
    record('{"__proto__":{"tenantId":1}}'),
  ];
  const response = await consumer({ Records: [good, ...unreadable, duplicate] }, lambdaContext('receiptCompletionsConsumer', 30_000));
  expect(response).toEqual({ batchItemFailures: unreadable.map((failed) => ({ itemIdentifier: failed.messageId })) });
  expect(await stockOf(table, tenantId, inventoryIdsOf(lines))).toEqual(expectedStock(lines));
  expect((await receiptItems(table, tenantId, 1)).header).toMatchObject({ Status: 'Complete', Version: seededVersion + 2 });
}, 60_000);

it('re-enqueues the rest when the invocation has too little time left for another chunk', async () => {
  const tenantId = freshTenantId();
  const lines = manyLines(100, 100);
  const { sent } = await seedAndComplete(table, tenantId, lines);
  const started = sent.length;
  const publish = async (message: CompletionMessage) => void sent.push(message);
  const consumer = createCompletionConsumer(
    () => table,
    () => ({ publish }),
  );
  // 5 s left is under the reserve: no chunk runs, the message goes back on the queue as a new one.
  await expect(consumer({ Records: [record(JSON.stringify(sent[0]))] }, lambdaContext('receiptCompletionsConsumer', 5_000))).resolves.toEqual({
    batchItemFailures: [],
  });
  expect(sent.slice(started)).toEqual([sent[0]]);
  expect(await cursorOf(tenantId)).toBe(0);
  await consumer({ Records: [record(JSON.stringify(sent[started]))] }, lambdaContext('receiptCompletionsConsumer', 30_000));
  expect(await stockOf(table, tenantId, inventoryIdsOf(lines))).toEqual(expectedStock(lines));
}, 60_000);

/**
 * The table with a transaction conflict (TransactionCanceledException, reason TransactionConflict: another
 * transaction held one of the items, nothing written) on the TransactWriteItems calls `conflicted` names (1-based).
 */
const conflictingTable = (conflicted: (call: number) => boolean) => {
  let calls = 0;
  return {
    table: {
      tableName: table.tableName,
      client: {
        send: async (command: unknown) => {
          if (command instanceof TransactWriteCommand) {
            calls += 1;
            if (conflicted(calls)) {
              throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: { httpStatusCode: 400 }, CancellationReasons: [{ Code: 'TransactionConflict' }] });
            }
          }
          return table.client.send(command as never);
        },
      },
    } as unknown as typeof table,
  };
};

it('sends a chunk cancelled by a transaction conflict again in the same pass: one conflict per delivery costs no receive', async () => {
  const tenantId = freshTenantId();
  const lines = manyLines(300, 300);
  const { sent } = await seedAndComplete(table, tenantId, lines);
  // The second transaction of every delivery meets another transaction on one of its items (a hot stock item).
  const conflicts = conflictingTable((call) => call === 2);
  const consumer = createCompletionConsumer(
    () => conflicts.table,
    () => ({ publish: async () => undefined }),
  );
  const answer = await consumer({ Records: [record(JSON.stringify(sent[0]))] }, lambdaContext('receiptCompletionsConsumer', 30_000));
  expect(answer).toEqual({ batchItemFailures: [] });
  const stored = await receiptItems(table, tenantId, 1);
  expect(stored.header?.Status).toBe('Complete');
  expect(await stockOf(table, tenantId, inventoryIdsOf(lines))).toEqual(expectedStock(lines));
}, 60_000);

it('hands the rest to a new message when a conflict outlasts the resends after chunks were committed; fails the record only when none was', async () => {
  const tenantId = freshTenantId();
  const lines = manyLines(300, 300);
  const { sent } = await seedAndComplete(table, tenantId, lines);
  const started = sent.length;
  const publish = async (message: CompletionMessage) => void sent.push(message);
  // From the second transaction on, every send conflicts: the first chunk commits, the second never does.
  const conflicts = conflictingTable((call) => call >= 2);
  const consumer = createCompletionConsumer(
    () => conflicts.table,
    () => ({ publish }),
  );
  await expect(consumer({ Records: [record(JSON.stringify(sent[0]))] }, lambdaContext('receiptCompletionsConsumer', 30_000))).resolves.toEqual({
    batchItemFailures: [],
  });
  expect(sent.slice(started)).toEqual([sent[0]]);
  expect(await cursorOf(tenantId)).toBe(1);
  // The new message's pass commits nothing (every send conflicts): its record fails, a receive spent.
  const stuck = conflictingTable(() => true);
  const blocked = createCompletionConsumer(
    () => stuck.table,
    () => ({ publish }),
  );
  const failed = await blocked({ Records: [record(JSON.stringify(sent[started]), 2)] }, lambdaContext('receiptCompletionsConsumer', 30_000));
  expect(failed.batchItemFailures).toHaveLength(1);
  expect(sent).toHaveLength(started + 1);
  expect(await cursorOf(tenantId)).toBe(1);
  // Once the items are free, the message completes the receipt, stock exactly right.
  await createCompletionConsumer(() => table, () => ({ publish }))({ Records: [record(JSON.stringify(sent[started]), 3)] }, lambdaContext('receiptCompletionsConsumer', 30_000));
  expect((await receiptItems(table, tenantId, 1)).header?.Status).toBe('Complete');
  expect(await stockOf(table, tenantId, inventoryIdsOf(lines))).toEqual(expectedStock(lines));
}, 60_000);
