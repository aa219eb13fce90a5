// Chaos tier, tenant locations: a burst of creates in a fresh tenant (some asking to be the default), each retried
// by a client that does what the README says, under each fault that can touch a save (one cell each, seed fixed).
// Invariant: test/chaos/support/tenant-locations.ts.
import { describe, it } from '@jest/globals';
import type { FaultRule } from '#infra/local/faults';
import { chaosStack } from './support/chaos-stack';
import { retryingClient } from './support/retrying-client';
import { checkLocations, runLocations } from './support/tenant-locations';

const chaos = chaosStack('tenant-locations');

const save = 'tenantLocationSave';

const cells: readonly [fault: string, seed: number, rules: readonly FaultRule[]][] = [
  ['DynamoDB throttle', 301, [{ name: 'throttle', service: 'dynamodb', caller: save, probability: 0.3, effect: { type: 'error', code: 'ProvisionedThroughputExceededException' } }]],
  ['transaction conflict', 302, [{ name: 'conflict', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, probability: 0.4, effect: { type: 'transaction-conflict' } }]],
  ['DynamoDB internal error', 303, [{ name: 'ddb-500', service: 'dynamodb', caller: save, probability: 0.2, effect: { type: 'error', code: 'InternalServerError' } }]],
  ['DynamoDB latency', 304, [{ name: 'slow', service: 'dynamodb', caller: save, probability: 0.5, effect: { type: 'latency', ms: 400 } }]],
  ['DynamoDB hang', 305, [{ name: 'hang', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, nth: [2], effect: { type: 'hang' } }]],
  ['commit-then-crash', 306, [{ name: 'commit-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, nth: [3], effect: { type: 'commit-then-crash' } }]],
  ['index lag', 307, [{ name: 'lag', service: 'dynamodb', operation: 'Query', effect: { type: 'index-lag', ms: 2_000 } }]],
  // GetAll's BatchGetItem processed in part (half its keys, the rest UnprocessedKeys, its items in another order):
  // every location listed once all the same.
  ['batch processed in part', 308, [{ name: 'part', service: 'dynamodb', operation: 'BatchGetItem', caller: 'tenantLocationGetAll', effect: { type: 'unprocessed' } }]],
  // The stage's throttle: 429 with Retry-After before anything runs; the client waits and sends again.
  ['API Gateway throttle', 320, [{ name: 'stage', service: 'apigateway', operation: 'request', caller: save, nth: [1, 3, 4], effect: { type: 'throttle' } }]],
  // Lambda refuses the save before it runs (its concurrency used up): the gateway's 502, the client's retry.
  ['Lambda throttle', 319, [{ name: 'throttle', service: 'lambda', operation: 'invoke', caller: save, nth: [2, 3, 6], effect: { type: 'throttle' } }]],
  ['Lambda crash before first call', 312, [{ name: 'crash-before', service: 'lambda', operation: 'invoke', caller: save, nth: [2], effect: { type: 'crash', when: 'before-first-call' } }]],
  ['Lambda crash between calls', 313, [{ name: 'crash-between', service: 'lambda', operation: 'invoke', caller: save, nth: [4], effect: { type: 'crash', when: 'between-calls' } }]],
  ['Lambda crash after last write', 314, [{ name: 'crash-after', service: 'lambda', operation: 'invoke', caller: save, nth: [3, 7], effect: { type: 'crash', when: 'after-last-write' } }]],
  ['invocation timeout', 315, [{ name: 'timeout', service: 'lambda', operation: 'invoke', caller: save, nth: [2], effect: { type: 'timeout', ms: 1_500 } }]],
];

describe('tenant locations under faults: every save answered 2xx stored once, one default, names unique', () => {
  it.each(cells)('%s (seed %d)', async (fault, seed, rules) => {
    await chaos.cell({
      flow: 'Tenant locations',
      fault,
      seed,
      rules,
      run: () => runLocations(retryingClient(seed), `loc${seed}`),
      check: async (run) => ({ findings: await checkLocations(run, { indexLags: rules.some((rule) => rule.effect.type === 'index-lag') }), sent: [...run.saves, run.listed] }),
    });
  }, 120_000);
});
