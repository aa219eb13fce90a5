// Chaos tier, delivery receipts: a receipt too large for one transaction completes chunk by chunk through its queue
// while the consumer crashes, commits then dies, times out, is throttled, meets DynamoDB errors, latency or a hang,
// or is delivered twice, late or out of order; while the completing save is throttled or its message refused (one
// cell each, seed fixed). Stock on hand must equal the sum of the completed lines, exactly. Two cells kill the save
// that asks for the completion, after a commit: its retry must be answered the completion. Invariant:
// test/chaos/support/delivery-receipts.ts.
import { describe, it } from '@jest/globals';
import type { FaultRule } from '#infra/local/faults';
import { chaosStack } from './support/chaos-stack';
import { checkReceipts, runReceipts } from './support/delivery-receipts';
import { retryingClient } from './support/retrying-client';

const chaos = chaosStack('delivery-receipts', { visibilityTimeouts: { ReceiptCompletions: 8 } });

const consumer = 'receiptCompletionsConsumer';
const save = 'deliveryReceiptSaveV2';

const cells: readonly [fault: string, seed: number, rules: readonly FaultRule[]][] = [
  ['DynamoDB throttle', 501, [{ name: 'throttle', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, probability: 0.3, effect: { type: 'error', code: 'ProvisionedThroughputExceededException' } }]],
  // A chunk's transaction cancelled for capacity (ThrottlingError), which the SDK does not retry: sent again by the
  // data kit, else the record fails and is delivered again; never a completion left half done.
  ['transaction throttled', 531, [{ name: 'capacity', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, probability: 0.4, effect: { type: 'transaction-throttled' } }]],
  ['transaction conflict', 502, [{ name: 'conflict', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, nth: [2, 3], effect: { type: 'transaction-conflict' } }]],
  // A hot stock item: the chunks' transactions conflict again and again (five in a row outlast a pass's resends, so
  // the rest goes on in a new message). Before c76976c a chunk was never resent under a new token and the receipt
  // ended Completing, half its stock applied, its message in the DLQ.
  ['transaction conflicts in a row', 530, [{ name: 'conflicts', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, nth: [2, 3, 4, 5, 6, 7, 8], effect: { type: 'transaction-conflict' } }]],
  ['commit-then-crash', 506, [{ name: 'commit-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, nth: [2], effect: { type: 'commit-then-crash' } }]],
  // A chunk's transaction lands but its answer never comes: the SDK's timeout, then its retry (same ClientRequestToken).
  ['DynamoDB hang (the commit lands)', 505, [{ name: 'stalled-commit', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, nth: [2], effect: { type: 'hang', forward: true } }]],
  ['duplicate delivery', 509, [{ name: 'duplicate', service: 'sqs', operation: 'deliver', caller: consumer, nth: [1], effect: { type: 'duplicate' } }]],
  // The visibility timeout runs out while the consumer still works (its DynamoDB calls slowed): the batch is received
  // again and a second invocation applies it beside the first, 600 ms into the first's work.
  ['visibility timeout runs out mid-work', 532, [
    { name: 'redelivered', service: 'sqs', operation: 'deliver', caller: consumer, nth: [1], effect: { type: 'duplicate', ms: 600 } },
    { name: 'slow-work', service: 'dynamodb', caller: consumer, effect: { type: 'latency', ms: 250 } },
  ]],
  ['Lambda crash after last write', 514, [{ name: 'crash-after', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'crash', when: 'after-last-write' } }]],
  // The save that asks for the completion commits its start (Completing) and dies before its answer: the client's
  // retry with the same key must be answered the completion, not a refusal of a receipt no longer InProgress (it was
  // 409 stale-version while the key's claim was written alone after the completion). The save function's fourth
  // transaction: the receipt's create takes three (its 100 lines in two chunks, then the header), the fourth is the
  // completion's start.
  ['save commit-then-crash', 516, [{ name: 'save-commit-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, nth: [4], effect: { type: 'commit-then-crash' } }]],
  // A save that changes the body and completes commits the body first, then completes; it dies after the body's
  // commit: the save function's fourth transaction (the header and the key's pending claim; the completion's start
  // is the fifth). Before the pending claim the body went alone (one Put, not a transaction) and the key was claimed
  // only with the completion: a death between the two left the body committed, no claim, and the retry (its Version
  // now stale) was 409 with the receipt InProgress (test/integration/delivery-receipts/idempotency.test.ts shows
  // that on the old code). The retry now resumes at the completion.
  ['save commit-then-crash before its completion', 517, [{ name: 'save-body-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, nth: [4], effect: { type: 'commit-then-crash' } }]],
  // Lambda refuses the completions consumer's first batch: it comes back after the visibility timeout.
  ['Lambda throttle', 519, [{ name: 'consumer-throttle', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'throttle' } }]],
  ['invocation timeout', 515, [{ name: 'timeout', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'timeout', ms: 1_000 } }]],
  ['DynamoDB internal error', 520, [{ name: 'ddb-500', service: 'dynamodb', caller: consumer, probability: 0.2, effect: { type: 'error', code: 'InternalServerError' } }]],
  ['DynamoDB latency', 521, [{ name: 'slow', service: 'dynamodb', probability: 0.5, effect: { type: 'latency', ms: 400 } }]],
  // A chunk's transaction never answers (and never lands): the SDK's timeout, then its retry.
  ['DynamoDB hang', 522, [{ name: 'hang', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, nth: [2], effect: { type: 'hang' } }]],
  ['late delivery', 523, [{ name: 'late', service: 'sqs', operation: 'deliver', caller: consumer, times: 2, effect: { type: 'delay', ms: 2_000 } }]],
  ['reorder', 524, [{ name: 'reorder', service: 'sqs', operation: 'deliver', caller: consumer, effect: { type: 'reorder' } }]],
  // The completing save's first message (its guarantee) is refused past the SDK's own retries: the save answers 503
  // and the client retries with its key.
  ['SQS send refused', 528, [{ name: 'send-refused', service: 'sqs', operation: 'SendMessage', caller: save, nth: [1, 2, 3], effect: { type: 'error', code: 'RequestThrottled' } }]],
  // The completing save's guarantee message is sent, then its environment dies before its answer: the client's retry
  // with its key must be answered the completion, which completes once.
  ['SQS send commit-then-crash', 529, [{ name: 'send-commit-crash', service: 'sqs', operation: 'SendMessage', caller: save, nth: [1], effect: { type: 'commit-then-crash' } }]],
  // The stage refuses the completing save's first attempt and its first retry (the receipt's create is request 1).
  ['API Gateway throttle', 527, [{ name: 'stage', service: 'apigateway', operation: 'request', caller: save, nth: [2, 3], effect: { type: 'throttle' } }]],
  ['Lambda crash before first call', 525, [{ name: 'crash-before', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'crash', when: 'before-first-call' } }]],
  // The completing save's environment and the consumer's die as soon as each has answered: nothing may be left to
  // run after an answer.
  ['Lambda crash between calls', 526, [
    { name: 'save-crash-between', service: 'lambda', operation: 'invoke', caller: save, nth: [2], effect: { type: 'crash', when: 'between-calls' } },
    { name: 'consumer-crash-between', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'crash', when: 'between-calls' } },
  ]],
];

/** A save that died after its completion's start leaves the rest to its guarantee message, a minute later: checked last. */
const deferred = new Set(['save commit-then-crash', 'SQS send refused', 'SQS send commit-then-crash']);
/** Cells whose completing save also changes the body. */
const changesBody = new Set(['save commit-then-crash before its completion']);

describe('delivery receipts under faults: stock on hand is the sum of the completed lines, exactly', () => {
  it.each(cells)('%s (seed %d)', async (fault, seed, rules) => {
    await chaos.cell({
      flow: 'Delivery receipts',
      fault,
      seed,
      rules,
      deferCheck: deferred.has(fault),
      run: () => runReceipts(retryingClient(seed), `dr${seed}`, changesBody.has(fault) ? { note: `dr${seed} completed with a change` } : {}),
      check: async (run) => ({ findings: await checkReceipts(run), sent: run.completion ? [run.completion] : [] }),
    });
  }, 150_000);

  it('holds the invariant of the cells left to their completions\' guarantees', () => chaos.checkDeferred(), 150_000);
});
