// Chaos tier, payments: a burst of payments, then a burst of inline and queued refunds against one of them, every
// request with its own Idempotency-Key and retried by a client that does what the README says, under each fault
// that can touch the flow (one cell each, seed fixed). The three doubled cases of issue 22 section 0 are cells of
// their own: refund environments killed with a burst in flight (after their writes), a crash between the refund's
// commit and its answer,
// DynamoDB stalled during a burst of payments. Invariant: test/chaos/support/payments.ts.
import { describe, it } from '@jest/globals';
import type { FaultRule } from '#infra/local/faults';
import { chaosStack } from './support/chaos-stack';
import { checkPayments, runPayments, smallBurst } from './support/payments';
import { retryingClient } from './support/retrying-client';

const chaos = chaosStack('payments', { visibilityTimeouts: { Payments: 8 } });

const refund = 'paymentPostRefund';
const consumer = 'paymentsConsumer';

const cells: readonly [fault: string, seed: number, rules: readonly FaultRule[]][] = [
  ['DynamoDB throttle', 101, [{ name: 'throttle', service: 'dynamodb', caller: refund, probability: 0.3, effect: { type: 'error', code: 'ProvisionedThroughputExceededException' } }]],
  ['transaction conflict', 102, [{ name: 'conflict', service: 'dynamodb', operation: 'TransactWriteItems', caller: refund, probability: 0.4, effect: { type: 'transaction-conflict' } }]],
  // Refunds' transactions cancelled for capacity (ThrottlingError, not retried by the SDK): sent again by the data
  // kit, else a 503 the client retries with its key (before: a 500).
  ['transaction throttled', 123, [{ name: 'capacity', service: 'dynamodb', operation: 'TransactWriteItems', caller: refund, probability: 0.4, effect: { type: 'transaction-throttled' } }]],
  ['DynamoDB internal error', 103, [{ name: 'ddb-500', service: 'dynamodb', probability: 0.15, effect: { type: 'error', code: 'InternalServerError' } }]],
  ['DynamoDB latency', 104, [{ name: 'slow', service: 'dynamodb', probability: 0.5, effect: { type: 'latency', ms: 400 } }]],
  ['DynamoDB hang', 105, [{ name: 'hang', service: 'dynamodb', operation: 'TransactWriteItems', caller: refund, nth: [2, 5], effect: { type: 'hang' } }]],
  // A refund's transaction lands but its answer never comes: the SDK's retry (same ClientRequestToken) must not refund twice.
  ['DynamoDB hang (the commit lands)', 122, [{ name: 'stalled-commit', service: 'dynamodb', operation: 'TransactWriteItems', caller: refund, nth: [2, 5], effect: { type: 'hang', forward: true } }]],
  // Issue 22 section 0, second case: the refund's transaction commits, then its environment dies before it answers.
  ['commit-then-crash', 106, [{ name: 'commit-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: refund, nth: [3, 8], effect: { type: 'commit-then-crash' } }]],
  // Issue 22 section 0, third case: DynamoDB stalled for 11 s during a burst of payments (middy's early 503).
  // Every attempt the SDK makes of each payment's first transaction is held 11 s (4 payments x 3 attempts): the
  // transactions land after the function has answered, and the client's retry must find them.
  ['DynamoDB stalled (burst of payments)', 107, [{ name: 'stall', service: 'dynamodb', operation: 'TransactWriteItems', caller: 'paymentPost', times: 12, effect: { type: 'latency', ms: 11_000 } }]],
  ['SQS send refused', 108, [{ name: 'send-refused', service: 'sqs', operation: 'SendMessage', caller: refund, times: 10, effect: { type: 'error', code: 'RequestThrottled' } }]],
  ['duplicate delivery', 109, [{ name: 'duplicate', service: 'sqs', operation: 'deliver', caller: consumer, effect: { type: 'duplicate' } }]],
  // The visibility timeout runs out while the consumer still works (its DynamoDB calls slowed): the batch is received
  // again and a second invocation applies it beside the first, 400 ms into the first's work.
  ['visibility timeout runs out mid-work', 124, [
    { name: 'redelivered', service: 'sqs', operation: 'deliver', caller: consumer, effect: { type: 'duplicate', ms: 400 } },
    { name: 'slow-work', service: 'dynamodb', caller: consumer, effect: { type: 'latency', ms: 250 } },
  ]],
  ['late delivery', 110, [{ name: 'late', service: 'sqs', operation: 'deliver', caller: consumer, times: 2, effect: { type: 'delay', ms: 2_000 } }]],
  ['reorder', 111, [{ name: 'reorder', service: 'sqs', operation: 'deliver', caller: consumer, effect: { type: 'reorder' } }]],
  ['API Gateway throttle', 121, [{ name: 'stage', service: 'apigateway', operation: 'request', caller: refund, nth: [2, 3], effect: { type: 'throttle' } }]],
  // Lambda refuses refunds before they run (the client's retry with the same key) and the consumer's first batch.
  ['Lambda throttle', 120, [
    { name: 'refund-throttle', service: 'lambda', operation: 'invoke', caller: refund, nth: [2, 5], effect: { type: 'throttle' } },
    { name: 'consumer-throttle', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'throttle' } },
  ]],
  ['Lambda crash before first call', 112, [{ name: 'crash-before', service: 'lambda', operation: 'invoke', caller: refund, nth: [2, 5], effect: { type: 'crash', when: 'before-first-call' } }]],
  ['Lambda crash between calls', 113, [{ name: 'crash-between', service: 'lambda', operation: 'invoke', caller: refund, nth: [4], effect: { type: 'crash', when: 'between-calls' } }]],
  // Issue 22 section 0, first case: refund environments killed with a burst in flight, after their writes landed
  // (each killed invocation's answer is lost: the gateway answers 502 and the client retries with its key).
  ['Lambda crash after last write', 114, [{ name: 'crash-after', service: 'lambda', operation: 'invoke', caller: refund, nth: [2, 4, 6, 8], effect: { type: 'crash', when: 'after-last-write' } }]],
  ['invocation timeout', 115, [{ name: 'timeout', service: 'lambda', operation: 'invoke', caller: refund, nth: [2, 7], effect: { type: 'timeout', ms: 1_500 } }]],
  // A payment's transaction commits, then its environment dies before it answers: the retry must find it by its key.
  ['payment commit-then-crash', 117, [{ name: 'payment-commit-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: 'paymentPost', nth: [1, 3], effect: { type: 'commit-then-crash' } }]],
  // A queued refund's own message is sent, then its environment dies before it answers: the retry replays its 202,
  // and the message, its guarantee and the replay's settle it once.
  ['SQS send commit-then-crash', 118, [{ name: 'send-commit-crash', service: 'sqs', operation: 'SendMessage', caller: refund, nth: [2, 5], effect: { type: 'commit-then-crash' } }]],
  ['consumer crash after last write', 116, [{ name: 'consumer-crash', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'crash', when: 'after-last-write' } }]],
];

/** A refund environment that dies mid-way may leave a Queued refund to its guarantee, 60 s later: checked last. */
const deferred = new Set(['commit-then-crash', 'invocation timeout', 'SQS send commit-then-crash']);

describe('payments under faults: every refund answered 2xx applied once, the refunded sum exact', () => {
  it.each(cells)('%s (seed %d)', async (fault, seed, rules) => {
    await chaos.cell({
      flow: 'Payments',
      fault,
      seed,
      rules,
      deferCheck: deferred.has(fault),
      run: () => runPayments(retryingClient(seed), `pay-${seed}`, smallBurst),
      check: async (run) => ({ findings: await checkPayments(run), sent: [...run.payments, ...run.refunds] }),
    });
  }, 150_000);

  it('holds the invariant of the cells left to their queued refunds\' guarantees', () => chaos.checkDeferred(), 150_000);
});
