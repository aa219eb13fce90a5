// Unit: the local stack's fault mode. The rule engine (matching by service, operation, caller and effect; n-th
// calls, a maximum count, a probability from a seeded PRNG that replays), its log line, the rule files and
// profiles it accepts, what the IAM edge answers for an injected error, conflict or index lag, and the scheduler
// emulation's firing faults (its real server on loopback, deliveries collected).
import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import {
  describeEffect,
  edgeEffects,
  FaultEngine,
  faultLogLine,
  faultProfiles,
  loadFaultRules,
  parseFaultRules,
  type FaultCall,
  type FaultRules,
} from '#infra/local/faults';
import { seededRandom } from '#infra/local/seeded-random';
import { retryDelayMs, startSchedulerEmulation } from '#infra/local/scheduler';
import { faultErrorReply, laggedReadOf, operationOf, partialBatchOf, transactionConflictReply } from '#infra/local/edge-faults';

const quiet = () => undefined;
const put: FaultCall = { service: 'dynamodb', operation: 'PutItem', caller: 'tenantLocationSave' };
const error = { type: 'error', code: 'ThrottlingException' } as const;

const firings = (engine: FaultEngine, call: FaultCall, calls: number) =>
  Array.from({ length: calls }, () => engine.decide(call, edgeEffects)?.rule ?? '-');

describe('the fault rule engine', () => {
  it('matches by service, operation and caller, and only effects the injection point produces', () => {
    const engine = new FaultEngine(
      {
        rules: [
          { name: 'other-service', service: 'sqs', effect: error },
          { name: 'other-operation', service: 'dynamodb', operation: 'Query', effect: error },
          { name: 'other-caller', service: 'dynamodb', caller: 'paymentPostRefund', effect: error },
          { name: 'index', service: 'dynamodb', effect: { type: 'index-lag', ms: 100 } },
          { name: 'hit', service: 'dynamodb', operation: 'PutItem', caller: 'tenantLocationSave', effect: error },
        ],
      },
      quiet,
    );
    expect(engine.decide(put, edgeEffects)?.rule).toBe('hit');
    expect(engine.decide({ ...put, operation: 'Query' }, edgeEffects)?.rule).toBe('other-operation');
    expect(engine.decide({ ...put, operation: 'Query' }, ['index-lag'])?.rule).toBe('index');
    expect(engine.decide({ service: 'kms', operation: 'Encrypt', caller: 'x' }, edgeEffects)).toBeUndefined();
  });

  it('fires only the n-th matching calls, and at most `times` times', () => {
    const engine = new FaultEngine({ rules: [{ name: 'second-and-fourth', service: 'dynamodb', nth: [2, 4], effect: error }] }, quiet);
    expect(firings(engine, put, 5)).toEqual(['-', 'second-and-fourth', '-', 'second-and-fourth', '-']);
    engine.setRules({ rules: [{ name: 'twice', service: 'dynamodb', times: 2, effect: error }] });
    expect(firings(engine, put, 4)).toEqual(['twice', 'twice', '-', '-']);
  });

  it('gives the first firing rule the call, and counts the call for every rule that matched it', () => {
    const engine = new FaultEngine(
      {
        rules: [
          { name: 'first', service: 'dynamodb', nth: [1], effect: error },
          { name: 'second-call', service: 'dynamodb', nth: [1, 2], effect: { type: 'latency', ms: 1 } },
        ],
      },
      quiet,
    );
    // Call 1 is first's; second-call counted it all the same, so its call 2 is the next one.
    expect(firings(engine, put, 3)).toEqual(['first', 'second-call', '-']);
  });

  it('replays the same faults from the same seed, and others from another seed', () => {
    const rules: FaultRules = { seed: 42, rules: [{ name: 'coin', service: 'dynamodb', probability: 0.5, effect: error }] };
    const run = (seed?: number) => firings(new FaultEngine(rules, quiet, seed), put, 40).join(',');
    expect(run()).toBe(run());
    expect(run()).toBe(run(42));
    expect(run(43)).not.toBe(run());
    const fired = run().split(',').filter((rule) => rule === 'coin').length;
    expect(fired).toBeGreaterThan(5);
    expect(fired).toBeLessThan(35);
  });

  it('restarts its counters and its PRNG when the rules are replaced, and fires nothing once cleared', () => {
    const rules: FaultRules = { seed: 9, rules: [{ name: 'coin', service: 'dynamodb', probability: 0.3, nth: [1, 2, 3, 4, 5, 6, 7, 8], effect: error }] };
    const engine = new FaultEngine(rules, quiet);
    const first = firings(engine, put, 8);
    engine.setRules(rules);
    expect(firings(engine, put, 8)).toEqual(first);
    engine.clear();
    expect(firings(engine, put, 3)).toEqual(['-', '-', '-']);
  });

  it('logs one line per fired fault and keeps it for the control endpoint', () => {
    const lines: string[] = [];
    const engine = new FaultEngine({ rules: [{ name: 'ddb-throttle', service: 'dynamodb', nth: [2], effect: error }] }, (line) => lines.push(line));
    firings(engine, put, 3);
    expect(lines).toEqual(['[fault] ddb-throttle dynamodb.PutItem caller=tenantLocationSave -> error code=ThrottlingException']);
    expect(engine.firedFaults()).toEqual([
      expect.objectContaining({ rule: 'ddb-throttle', service: 'dynamodb', operation: 'PutItem', caller: 'tenantLocationSave', call: 2, effect: error }),
    ]);
    expect(faultLogLine({ ...engine.firedFaults()[0]!, caller: undefined })).toContain('caller=- ->');
    expect(describeEffect({ type: 'crash', when: 'after-last-write' })).toBe('crash when=after-last-write');
    engine.clearLog();
    expect(engine.firedFaults()).toEqual([]);
  });

  it('has a seeded PRNG in [0, 1)', () => {
    const draw = seededRandom(5);
    const values = Array.from({ length: 1000 }, draw);
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
    expect(Array.from({ length: 5 }, seededRandom(5))).toEqual(values.slice(0, 5));
  });
});

describe('rule files and profiles', () => {
  it('refuses a malformed rule, saying which and why', () => {
    const bad = (rule: unknown) => () => parseFaultRules({ rules: [rule] }, 'rules.json');
    expect(bad({ name: 'x', service: 'dynamodb', effect: { type: 'crash', when: 'between-calls' } })).toThrow('rules.json: rule 0 (x): effect crash applies to lambda, not dynamodb');
    expect(bad({ name: 'x', service: 'sqs', effect: { type: 'throttle' } })).toThrow('rules.json: rule 0 (x): effect throttle applies to lambda, apigateway, not sqs');
    expect(parseFaultRules({ rules: [{ name: 'busy', service: 'lambda', caller: 'paymentPost', effect: { type: 'throttle' } }, { name: 'stage', service: 'apigateway', effect: { type: 'throttle' } }] }).rules).toHaveLength(2);
    expect(bad({ name: 'x', service: 'ec2', effect: error })).toThrow('service must be one of');
    expect(bad({ name: 'x', service: 'secretsmanager', effect: { type: 'duplicate' } })).toThrow('effect duplicate applies to sqs, not secretsmanager');
    expect(bad({ name: 'x', service: 'dynamodb', probability: 2, effect: error })).toThrow('probability must be within 0..1');
    expect(bad({ name: 'x', service: 'dynamodb', nth: [0], effect: error })).toThrow('nth must be a list');
    expect(bad({ name: 'x', service: 'dynamodb', effect: { type: 'error' } })).toThrow('needs a code');
    expect(bad({ name: 'x', service: 'dynamodb', effect: { type: 'latency' } })).toThrow('needs ms');
    expect(bad({ name: 'x', service: 'dynamodb', effect: { type: 'error', code: 'InternalServerError', forward: 'yes' } })).toThrow('forward must be true or false');
    expect(bad({ name: 'x', service: 'dynamodb', effect: { type: 'error', code: 'ThrottlingException', forward: true } })).toThrow('forward applies to a 5xx error');
    expect(bad({ name: 'x', service: 'dynamodb', effect: { type: 'error', code: 'constructor', forward: true } })).toThrow('forward applies to a 5xx error');
    expect(() => parseFaultRules({ rules: [{ name: 'x', service: 'dynamodb', effect: { type: 'error', code: 'Custom', status: 502, forward: true } }] })).not.toThrow();
    expect(bad({ name: 'x', service: 'scheduler', effect: { type: 'fire-fails', landed: 1 } })).toThrow('landed must be true or false');
    expect(bad({ name: 'x', service: 'sqs', effect: { type: 'fire-fails' } })).toThrow('effect fire-fails applies to scheduler, not sqs');
    expect(bad({ name: 'x', service: 'sqs', effect: { type: 'duplicate', ms: -1 } })).toThrow('ms must be a number of milliseconds');
    expect(parseFaultRules({ rules: [{ name: 'x', service: 'sqs', effect: { type: 'duplicate', ms: 500 } }] }).rules).toHaveLength(1);
    expect(bad({ name: 'x', service: 'sqs', effect: { type: 'unprocessed' } })).toThrow('effect unprocessed applies to dynamodb, not sqs');
    expect(bad({ name: 'x', service: 'dynamodb', operation: 'Query', effect: { type: 'unprocessed' } })).toThrow('an unprocessed effect applies to BatchGetItem and BatchWriteItem, not Query');
    expect(parseFaultRules({ rules: [{ name: 'x', service: 'dynamodb', operation: 'BatchGetItem', effect: { type: 'unprocessed' } }] }).rules).toHaveLength(1);
    expect(() => parseFaultRules({ rules: [{ name: 'a', service: 'sqs', effect: error }, { name: 'a', service: 'kms', effect: error }] })).toThrow('two rules are named a');
    expect(() => parseFaultRules([])).toThrow('must be a JSON object');
  });

  it('loads every profile of fault-profiles.json, flaky among them', () => {
    const profiles = faultProfiles();
    expect(Object.keys(profiles)).toContain('flaky');
    for (const name of Object.keys(profiles)) expect(loadFaultRules(name).rules.length).toBeGreaterThan(0);
    expect(() => loadFaultRules('no-such-profile')).toThrow('neither a profile (flaky');
  });
});

const request = (headers: Record<string, string>, method = 'POST', url = '/') => ({ headers, method, url }) as unknown as IncomingMessage;

describe('what the edge answers for a fault', () => {
  it('answers errors in each service protocol, with the status AWS gives the code', () => {
    const dynamodb = faultErrorReply('dynamodb', request({ 'x-amz-target': 'DynamoDB_20120810.PutItem' }), error);
    expect(dynamodb.status).toBe(400);
    expect(JSON.parse(dynamodb.body)).toEqual({ __type: 'com.amazon.coral.availability#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' });
    const internal = faultErrorReply('dynamodb', request({}), { type: 'error', code: 'InternalServerError' });
    expect(internal.status).toBe(500);
    expect(JSON.parse(internal.body).__type).toBe('com.amazonaws.dynamodb.v20120810#InternalServerError');
    const sqs = faultErrorReply('sqs', request({ 'x-amz-target': 'AmazonSQS.SendMessage' }), { type: 'error', code: 'InternalError' });
    expect(sqs.status).toBe(500);
    expect(sqs.headers['x-amzn-query-error']).toBe('InternalError;Receiver');
    const scheduler = faultErrorReply('scheduler', request({}), error);
    expect(scheduler.status).toBe(429);
    expect(scheduler.headers['x-amzn-ErrorType']).toBe('ThrottlingException');
    expect(faultErrorReply('kms', request({}), { type: 'error', code: 'Custom', status: 503 }).status).toBe(503);
    const secrets = faultErrorReply('secretsmanager', request({ 'x-amz-target': 'secretsmanager.GetSecretValue' }), { type: 'error', code: 'InternalServiceError' });
    expect(secrets.status).toBe(500);
    expect(secrets.headers['Content-Type']).toBe('application/x-amz-json-1.1');
    expect(JSON.parse(secrets.body)).toEqual({ __type: 'InternalServiceError', message: 'An error occurred on the server side.' });
  });

  it('makes Secrets Manager a fault service of the edge: errors, latency, hangs', () => {
    for (const effect of [error, { type: 'latency', ms: 10 }, { type: 'hang' }]) {
      expect(parseFaultRules({ rules: [{ name: 'sm', service: 'secretsmanager', operation: 'GetSecretValue', effect }] }).rules).toHaveLength(1);
    }
  });

  it('cancels a transaction with a TransactionConflict reason, and refuses a single write with TransactionConflictException', () => {
    const body = Buffer.from(JSON.stringify({ TransactItems: [{ Put: {} }, { Update: {} }] }));
    const cancelled = JSON.parse(transactionConflictReply('TransactWriteItems', body).body);
    expect(cancelled.__type).toBe('com.amazonaws.dynamodb.v20120810#TransactionCanceledException');
    expect(cancelled.CancellationReasons).toEqual([{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }, { Code: 'None' }]);
    expect(JSON.parse(transactionConflictReply('PutItem', Buffer.from('{}')).body).__type).toBe('com.amazonaws.dynamodb.v20120810#TransactionConflictException');
  });

  it('names the operation of each protocol', () => {
    expect(operationOf('dynamodb', request({ 'x-amz-target': 'DynamoDB_20120810.Query' }), Buffer.from(''))).toBe('Query');
    expect(operationOf('sqs', request({}), Buffer.from('Action=SendMessage&QueueUrl=x'))).toBe('SendMessage');
    expect(operationOf('scheduler', request({}, 'DELETE', '/schedules/a'), Buffer.from(''))).toBe('DeleteSchedule');
  });

  it('tells the reads index lag answers on its replica (an index; the table, not strongly consistent) from the rest', () => {
    const body = (input: object) => Buffer.from(JSON.stringify(input));
    const lagged = (operation: string, input: object) => {
      const read = laggedReadOf(operation, body(input));
      return read && { tables: read.tables, what: read.what, onReplicas: JSON.parse(read.onReplicas(new Map([['t', 't-index-lag']])).toString('utf8')) as unknown };
    };
    expect(lagged('Query', { TableName: 't', IndexName: 'byName' })).toEqual({ tables: ['t'], what: 'byName', onReplicas: { TableName: 't-index-lag', IndexName: 'byName' } });
    expect(lagged('Scan', { TableName: 't', IndexName: 'byName' })?.what).toBe('byName');
    // The table itself, read eventually consistently (DynamoDB's default): it may lag too.
    expect(lagged('Query', { TableName: 't' })).toEqual({ tables: ['t'], what: 'eventually consistent', onReplicas: { TableName: 't-index-lag' } });
    expect(lagged('GetItem', { TableName: 't', Key: {}, ConsistentRead: false })?.onReplicas).toEqual({ TableName: 't-index-lag', Key: {}, ConsistentRead: false });
    expect(lagged('Scan', { TableName: 't' })?.what).toBe('eventually consistent');
    // Strongly consistent reads, writes and transactions read the table as it is.
    expect(lagged('Query', { TableName: 't', ConsistentRead: true })).toBeUndefined();
    expect(lagged('GetItem', { TableName: 't', ConsistentRead: true })).toBeUndefined();
    expect(lagged('PutItem', { TableName: 't' })).toBeUndefined();
    expect(lagged('TransactGetItems', { TransactItems: [] })).toBeUndefined();
    expect(laggedReadOf('Query', Buffer.from('not json'))).toBeUndefined();
    // A BatchGetItem: the tables it reads eventually consistently, each on its replica.
    const batch = lagged('BatchGetItem', { RequestItems: { t: { Keys: [] }, u: { Keys: [], ConsistentRead: true } } });
    expect(batch).toEqual({ tables: ['t'], what: 'eventually consistent', onReplicas: { RequestItems: { 't-index-lag': { Keys: [] }, u: { Keys: [], ConsistentRead: true } } } });
    expect(lagged('BatchGetItem', { RequestItems: { t: { Keys: [], ConsistentRead: true } } })).toBeUndefined();
  });
});

describe('a batch processed in part (unprocessed)', () => {
  const json = (buffer: Buffer) => JSON.parse(buffer.toString('utf8')) as Record<string, unknown>;
  const keys = (...ids: number[]) => ids.map((id) => ({ pk: { S: `P#${id}` } }));

  it('forwards the first half of a BatchGetItem, answers the rest unprocessed with its parameters, and the items read in another order', () => {
    const input = { RequestItems: { t: { Keys: keys(1, 2, 3), ConsistentRead: true, ProjectionExpression: '#a' }, u: { Keys: keys(4, 5) } }, ReturnConsumedCapacity: 'NONE' };
    const batch = partialBatchOf('BatchGetItem', Buffer.from(JSON.stringify(input)));
    expect(batch).toBeDefined();
    // Five keys: three processed (the first ones), two left, each table's parameters kept.
    expect(json(batch!.forwarded)).toEqual({ RequestItems: { t: { Keys: keys(1, 2, 3), ConsistentRead: true, ProjectionExpression: '#a' } }, ReturnConsumedCapacity: 'NONE' });
    const upstream = { Responses: { t: [{ id: 1 }, { id: 2 }, { id: 3 }] }, UnprocessedKeys: {} };
    expect(json(batch!.answer(Buffer.from(JSON.stringify(upstream))))).toEqual({
      Responses: { t: [{ id: 3 }, { id: 2 }, { id: 1 }] },
      UnprocessedKeys: { u: { Keys: keys(4, 5) } },
    });
    // What DynamoDB itself left of a table is kept, ours added to it.
    const split = partialBatchOf('BatchGetItem', Buffer.from(JSON.stringify({ RequestItems: { t: { Keys: keys(1, 2, 3, 4), ConsistentRead: true } } })))!;
    expect(json(split.forwarded)).toEqual({ RequestItems: { t: { Keys: keys(1, 2), ConsistentRead: true } } });
    const left = json(split.answer(Buffer.from(JSON.stringify({ Responses: { t: [{ id: 1 }] }, UnprocessedKeys: { t: { Keys: keys(2), ConsistentRead: true } } }))));
    expect(left.UnprocessedKeys).toEqual({ t: { Keys: keys(2, 3, 4), ConsistentRead: true } });
  });

  it('splits a BatchWriteItem the same way, into UnprocessedItems', () => {
    const put = (id: number) => ({ PutRequest: { Item: { pk: { S: `P#${id}` } } } });
    const batch = partialBatchOf('BatchWriteItem', Buffer.from(JSON.stringify({ RequestItems: { t: [put(1), put(2)], u: [put(3)] } })))!;
    expect(json(batch.forwarded)).toEqual({ RequestItems: { t: [put(1), put(2)] } });
    expect(json(batch.answer(Buffer.from(JSON.stringify({ UnprocessedItems: {} }))))).toEqual({ UnprocessedItems: { u: [put(3)] } });
  });

  it('applies to a batch of two entries or more only (DynamoDB throttles a batch it can process none of)', () => {
    expect(partialBatchOf('BatchGetItem', Buffer.from(JSON.stringify({ RequestItems: { t: { Keys: keys(1) } } })))).toBeUndefined();
    expect(partialBatchOf('Query', Buffer.from(JSON.stringify({ RequestItems: { t: { Keys: keys(1, 2) } } })))).toBeUndefined();
    expect(partialBatchOf('BatchGetItem', Buffer.from('not json'))).toBeUndefined();
    // A request DynamoDB refuses whole goes to DynamoDB as it is, never made a success by the split.
    expect(partialBatchOf('BatchGetItem', Buffer.from(JSON.stringify({ RequestItems: { t: { Keys: [] }, u: { Keys: keys(1, 2) } } })))).toBeUndefined();
    expect(partialBatchOf('BatchGetItem', Buffer.from(JSON.stringify({ RequestItems: { t: { Keys: keys(...Array.from({ length: 101 }, (_, i) => i)) } } })))).toBeUndefined();
    const put = (id: number) => ({ PutRequest: { Item: { pk: { S: `P#${id}` } } } });
    expect(partialBatchOf('BatchWriteItem', Buffer.from(JSON.stringify({ RequestItems: { t: Array.from({ length: 26 }, (_, i) => put(i)) } })))).toBeUndefined();
  });
});

describe('the scheduler emulation under firing faults', () => {
  const roleArn = 'arn:aws:iam::123456789012:role/test-task-scheduler';
  const queueArn = 'arn:aws:sqs:us-east-1:123456789012:runs';

  it('delivers a firing twice (same execution id), and another one late', async () => {
    let now = Date.parse('2026-06-01T00:00:30Z');
    const delivered: string[] = [];
    const engine = new FaultEngine(
      {
        rules: [
          { name: 'twice', service: 'scheduler', operation: 'fire', caller: 'daily', nth: [1], effect: { type: 'fire-twice' } },
          { name: 'late', service: 'scheduler', operation: 'fire', caller: 'daily', nth: [2], effect: { type: 'fire-late', ms: 50 } },
        ],
      },
      quiet,
    );
    const scheduler = await startSchedulerEmulation({
      groups: [],
      roles: new Map([[roleArn, [{ actions: ['sqs:SendMessage'], resources: [queueArn] }]]]),
      deliver: async (_arn, body) => void delivered.push(body),
      clock: () => now,
      tickMs: 0,
      faults: engine,
      log: quiet,
    });
    const client = new SchedulerClient({ region: 'us-east-1', endpoint: scheduler.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      await client.send(
        new CreateScheduleCommand({
          Name: 'daily',
          ScheduleExpression: 'cron(0 9 * * ? *)',
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: { Arn: queueArn, RoleArn: roleArn, Input: '{"at":"<aws.scheduler.scheduled-time>","id":"<aws.scheduler.execution-id>"}' },
        }),
      );
      now = Date.parse('2026-06-01T09:00:00Z');
      await scheduler.fireDue();
      expect(delivered).toHaveLength(2);
      expect(delivered[1]).toBe(delivered[0]);
      now = Date.parse('2026-06-02T09:00:00Z');
      await scheduler.fireDue();
      expect(delivered).toHaveLength(2);
      const deadline = Date.now() + 5_000;
      while (delivered.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(JSON.parse(delivered[2]!).at).toBe('2026-06-02T09:00:00Z');
      expect(engine.firedFaults().map((fired) => fired.rule)).toEqual(['twice', 'late']);
    } finally {
      client.destroy();
      await scheduler.close();
    }
  });

  it('fails a delivery attempt (refused, or landed with its answer lost): retried with backoff, the next attempt number and the same execution id, dead-lettered past the retry policy; a late delivery that fails is retried too', async () => {
    const deadLetterArn = 'arn:aws:sqs:us-east-1:123456789012:runs-dlq';
    let now = Date.parse('2026-06-01T00:00:30Z');
    const delivered: { arn: string; body: { at: string; id: string; attempt: string } }[] = [];
    let refuseNext = 0;
    const engine = new FaultEngine(
      {
        rules: [
          { name: 'refused', service: 'scheduler', operation: 'fire', caller: 'daily', nth: [1], effect: { type: 'fire-fails' } },
          { name: 'lost', service: 'scheduler', operation: 'fire', caller: 'daily', nth: [2], effect: { type: 'fire-fails', landed: true } },
          { name: 'never', service: 'scheduler', operation: 'fire', caller: 'doomed', effect: { type: 'fire-fails' } },
          { name: 'late', service: 'scheduler', operation: 'fire', caller: 'later', nth: [1], effect: { type: 'fire-late', ms: 20 } },
        ],
      },
      quiet,
    );
    const scheduler = await startSchedulerEmulation({
      groups: [],
      roles: new Map([[roleArn, [{ actions: ['sqs:SendMessage'], resources: [queueArn, deadLetterArn] }]]]),
      deliver: async (arn, body) => {
        if (refuseNext > 0) {
          refuseNext -= 1;
          throw new Error('queue unavailable');
        }
        delivered.push({ arn, body: JSON.parse(body) as { at: string; id: string; attempt: string } });
      },
      clock: () => now,
      tickMs: 0,
      faults: engine,
      log: quiet,
    });
    const client = new SchedulerClient({ region: 'us-east-1', endpoint: scheduler.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const input = '{"at":"<aws.scheduler.scheduled-time>","id":"<aws.scheduler.execution-id>","attempt":"<aws.scheduler.attempt-number>"}';
    const create = (name: string, expression: string, extra: object = {}) =>
      client.send(new CreateScheduleCommand({ Name: name, ScheduleExpression: expression, FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn: queueArn, RoleArn: roleArn, Input: input, ...extra } }));
    try {
      await create('daily', 'cron(0 9 * * ? *)');
      now = Date.parse('2026-06-01T09:00:00Z');
      expect(await scheduler.fireDue()).toBe(0); // attempt 1 refused: nothing delivered; retried in 1 s (retryDelayMs)
      now += 999;
      expect(await scheduler.fireDue()).toBe(0); // not due yet
      expect(delivered).toEqual([]);
      now += 1;
      expect(await scheduler.fireDue()).toBe(0); // attempt 2 landed, its answer lost: retried in 2 s
      now += retryDelayMs(2);
      expect(await scheduler.fireDue()).toBe(1); // attempt 3
      expect(delivered.map(({ body }) => body.attempt)).toEqual(['2', '3']);
      expect(new Set(delivered.map(({ body }) => `${body.at} ${body.id}`)).size).toBe(1);
      expect(await scheduler.fireDue()).toBe(0); // nothing left to retry

      delivered.length = 0;
      await create('doomed', 'at(2026-06-01T10:00:00)', { RetryPolicy: { MaximumRetryAttempts: 1, MaximumEventAgeInSeconds: 60 }, DeadLetterConfig: { Arn: deadLetterArn } });
      now = Date.parse('2026-06-01T10:00:00Z');
      await scheduler.fireDue();
      now += retryDelayMs(1);
      await scheduler.fireDue();
      expect(delivered).toEqual([{ arn: deadLetterArn, body: expect.objectContaining({ at: '2026-06-01T10:00:00Z', attempt: '2' }) }]);
      expect(await scheduler.fireDue()).toBe(0);

      delivered.length = 0;
      await create('later', 'at(2026-06-01T11:00:00)');
      now = Date.parse('2026-06-01T11:00:00Z');
      refuseNext = 1;
      await scheduler.fireDue(); // held 20 ms, then refused by the queue
      const deadline = Date.now() + 5_000;
      while (refuseNext > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 20));
      now += retryDelayMs(1);
      expect(await scheduler.fireDue()).toBe(1);
      expect(delivered).toEqual([{ arn: queueArn, body: expect.objectContaining({ at: '2026-06-01T11:00:00Z', attempt: '2' }) }]);
      expect(engine.firedFaults().map((fired) => fired.rule)).toEqual(['refused', 'lost', 'never', 'never', 'late']);
    } finally {
      client.destroy();
      await scheduler.close();
    }
  });
});
