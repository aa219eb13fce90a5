// Chaos tier, webhook -> queue -> consumer: a burst of signed provider events for two documents, each posted by a
// provider that retries every 5xx and dropped answer with the same body, under each fault that can touch the flow
// (one cell each, seed fixed). Invariant: test/chaos/support/document-events.ts.
import { describe, it } from '@jest/globals';
import type { FaultRule } from '#infra/local/faults';
import { chaosStack } from './support/chaos-stack';
import { checkDocuments, runDocuments } from './support/document-events';
import { retryingClient } from './support/retrying-client';

const chaos = chaosStack('document-events', { visibilityTimeouts: { DocumentEvents: 8 } });

const webhook = 'providerWebhook';
const consumer = 'documentEventsConsumer';

const cells: readonly [fault: string, seed: number, rules: readonly FaultRule[]][] = [
  ['DynamoDB throttle', 201, [{ name: 'throttle', service: 'dynamodb', caller: consumer, probability: 0.3, effect: { type: 'error', code: 'ThrottlingException' } }]],
  ['transaction conflict', 202, [{ name: 'conflict', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, probability: 0.4, effect: { type: 'transaction-conflict' } }]],
  ['DynamoDB internal error', 203, [{ name: 'ddb-500', service: 'dynamodb', caller: consumer, probability: 0.2, effect: { type: 'error', code: 'InternalServerError' } }]],
  ['DynamoDB latency', 204, [{ name: 'slow', service: 'dynamodb', caller: consumer, probability: 0.5, effect: { type: 'latency', ms: 400 } }]],
  ['DynamoDB hang', 205, [{ name: 'hang', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, nth: [2], effect: { type: 'hang' } }]],
  // An event's transaction lands but its answer never comes: the SDK's timeout, then its retry (same ClientRequestToken).
  ['DynamoDB hang (the commit lands)', 221, [{ name: 'stalled-commit', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, nth: [2], effect: { type: 'hang', forward: true } }]],
  ['commit-then-crash', 206, [{ name: 'commit-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: consumer, nth: [2], effect: { type: 'commit-then-crash' } }]],
  ['SQS send refused', 207, [{ name: 'send-refused', service: 'sqs', operation: 'SendMessage', caller: webhook, times: 12, effect: { type: 'error', code: 'RequestThrottled' } }]],
  ['SQS send commit-then-crash', 208, [{ name: 'send-crash', service: 'sqs', operation: 'SendMessage', caller: webhook, nth: [2], effect: { type: 'commit-then-crash' } }]],
  ['duplicate delivery', 209, [{ name: 'duplicate', service: 'sqs', operation: 'deliver', caller: consumer, effect: { type: 'duplicate' } }]],
  // The visibility timeout runs out while the consumer still works (its DynamoDB calls slowed): the batch is received
  // again and a second invocation applies it beside the first, 400 ms into the first's work.
  ['visibility timeout runs out mid-work', 222, [
    { name: 'redelivered', service: 'sqs', operation: 'deliver', caller: consumer, effect: { type: 'duplicate', ms: 400 } },
    { name: 'slow-work', service: 'dynamodb', caller: consumer, effect: { type: 'latency', ms: 250 } },
  ]],
  ['late delivery', 210, [{ name: 'late', service: 'sqs', operation: 'deliver', caller: consumer, times: 2, effect: { type: 'delay', ms: 2_000 } }]],
  ['reorder', 211, [{ name: 'reorder', service: 'sqs', operation: 'deliver', caller: consumer, effect: { type: 'reorder' } }]],
  ['API Gateway throttle', 220, [{ name: 'stage', service: 'apigateway', operation: 'request', caller: webhook, nth: [1, 4], effect: { type: 'throttle' } }]],
  // Lambda refuses the webhook twice (the provider's retry) and the consumer's first batch (it comes back after the
  // visibility timeout, as an event source mapping's throttled batch does).
  ['Lambda throttle', 219, [
    { name: 'webhook-throttle', service: 'lambda', operation: 'invoke', caller: webhook, nth: [2, 5], effect: { type: 'throttle' } },
    { name: 'consumer-throttle', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'throttle' } },
  ]],
  ['Lambda crash before first call', 212, [{ name: 'crash-before', service: 'lambda', operation: 'invoke', caller: webhook, nth: [2, 5], effect: { type: 'crash', when: 'before-first-call' } }]],
  ['Lambda crash between calls', 213, [{ name: 'crash-between', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'crash', when: 'between-calls' } }]],
  // The webhook's message is sent, then its environment dies: 502, and the provider's retry sends the event again.
  ['Lambda crash after last write', 214, [{ name: 'crash-after', service: 'lambda', operation: 'invoke', caller: webhook, nth: [3, 6], effect: { type: 'crash', when: 'after-last-write' } }]],
  // The consumer applied its batch, then died: the whole batch comes back after the visibility timeout.
  ['consumer crash after last write', 216, [{ name: 'consumer-crash', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'crash', when: 'after-last-write' } }]],
  ['invocation timeout', 215, [{ name: 'timeout', service: 'lambda', operation: 'invoke', caller: consumer, nth: [1], effect: { type: 'timeout', ms: 1_500 } }]],
  // Secrets Manager failing while the webhook's environments start: a warm environment holds the secret five minutes,
  // so the first ten invocations (as many as the stack's environments per function: each takes an idle one first)
  // lose their environment before they run (502, nothing sent); every later one is a cold start that reads the
  // secret, and its first reads fail (503 with Retry-After once the SDK's attempts are spent).
  ['Secrets Manager unavailable', 217, [
    { name: 'sm-cold', service: 'lambda', operation: 'invoke', caller: webhook, nth: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], effect: { type: 'crash', when: 'before-first-call' } },
    { name: 'sm-down', service: 'secretsmanager', operation: 'GetSecretValue', caller: webhook, times: 9, effect: { type: 'error', code: 'InternalServiceError' } },
  ]],
];

describe('document events under faults: every event answered 2xx applied once, the state its events give', () => {
  it.each(cells)('%s (seed %d)', async (fault, seed, rules) => {
    await chaos.cell({
      flow: 'Webhook -> queue -> consumer',
      fault,
      seed,
      rules,
      run: () => runDocuments(retryingClient(seed), `doc${seed}`),
      check: async (run) => ({ findings: await checkDocuments(run), sent: run.posts }),
    });
  }, 150_000);
});
