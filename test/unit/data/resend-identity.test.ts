// Unit: `transact` sends a write again under the same identity after a send that may have landed
// (shared/data/transaction.ts `SendIdentity`, write-outcome.ts `mayHaveLanded`). The SDK resends an attempt that timed
// out; when that resend is cancelled (a conflict, capacity), `transact` sends the write again itself. Under a new
// ClientRequestToken or mark, a first attempt that landed would meet its own write as another's: a create's item taken
// (ValueInUse: a refund written again under the next ID), an edit's Version moved (409 for its own write). On a real
// SDK client whose HTTP handler answers each attempt in process, as DynamoDB would.
import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '#shared/data/client';
import { conflictAttempts, transact, type TransactionAction } from '#shared/data/transaction';
import { ConcurrentModification, WriteOutcomeUnknown } from '#shared/errors';
import { withinInvocation } from '#shared/invocation';

type Answer = 'ok' | 'timeout' | 'cancelled-conflict' | 'cancelled-throttle' | 'conflict' | 'own-mark';

const json = (status: number, body: unknown) => ({
  response: {
    statusCode: status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ' },
    body: Readable.from([Buffer.from(JSON.stringify(body))]),
  },
});

/** A table whose attempts are answered in turn by `answers`; it keeps each attempt's token and mark. */
const scripted = (answers: readonly Answer[]) => {
  const sent: { token?: string; mark?: string }[] = [];
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 2,
    requestHandler: {
      handle: async (request: { body?: string }) => {
        const body = JSON.parse(String(request.body)) as { ClientRequestToken?: string; Item?: { lastWrite?: { S?: string } } };
        const mark = body.Item?.lastWrite?.S;
        sent.push({ ...(body.ClientRequestToken ? { token: body.ClientRequestToken } : {}), ...(mark ? { mark } : {}) });
        const answer = answers[sent.length - 1] ?? 'ok';
        if (answer === 'timeout') throw Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
        if (answer === 'cancelled-conflict' || answer === 'cancelled-throttle') {
          const code = answer === 'cancelled-conflict' ? 'TransactionConflict' : 'ThrottlingError';
          return json(400, { __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException', message: 'cancelled', CancellationReasons: [{ Code: code }, { Code: 'None' }] });
        }
        if (answer === 'conflict') return json(400, { __type: 'com.amazonaws.dynamodb.v20120810#TransactionConflictException', message: 'conflict' });
        // The item as it stands, bearing the mark of the attempt that landed (ReturnValuesOnConditionCheckFailure).
        if (answer === 'own-mark') return json(400, { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'failed', Item: { pk: { S: 'T#1' }, sk: { S: 'A' }, lastWrite: { S: sent[0]?.mark } } });
        return json(200, {});
      },
    } as never,
  });
  return { table: { client: createDocumentClient(client), tableName: 'business' }, sent };
};

const twoActions: TransactionAction<'record' | 'claim'>[] = [
  { role: 'record', item: { Put: { TableName: 'business', Item: { pk: 'T#1', sk: 'A' }, ConditionExpression: 'attribute_not_exists(pk)' } } },
  { role: 'claim', item: { Put: { TableName: 'business', Item: { pk: 'T#1', sk: 'B' }, ConditionExpression: 'attribute_not_exists(pk)' } } },
];
const edit: TransactionAction<'record'>[] = [
  { role: 'record', item: { Put: { TableName: 'business', Item: { pk: 'T#1', sk: 'A', Version: 2 }, ConditionExpression: 'Version = :v', ExpressionAttributeValues: { ':v': 1 } } } },
];

const inInvocation = <T>(work: () => Promise<T>) => withinInvocation({ signal: new AbortController().signal, writes: { uncertain: false } }, work);

describe('transact after a send that may have landed', () => {
  it('sends a transaction again under its first token (a conflict cancelled the resend of an attempt that timed out)', async () => {
    const { table, sent } = scripted(['timeout', 'cancelled-conflict', 'ok']);
    await expect(inInvocation(() => transact(table, twoActions))).resolves.toBeUndefined();
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map(({ token }) => token)).size).toBe(1);
  });

  it('does so after a cancellation for capacity too, and keeps the token for every later send', async () => {
    const { table, sent } = scripted(['timeout', 'cancelled-throttle', 'cancelled-conflict', 'ok']);
    await expect(inInvocation(() => transact(table, twoActions))).resolves.toBeUndefined();
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map(({ token }) => token)).size).toBe(1);
  });

  it('sends a write that certainly did not land under a new token, as before', async () => {
    const { table, sent } = scripted(['cancelled-conflict', 'ok']);
    await expect(inInvocation(() => transact(table, twoActions))).resolves.toBeUndefined();
    expect(sent).toHaveLength(2);
    expect(sent[0]?.token).not.toBe(sent[1]?.token);
  });

  it('answers an edit sent alone as written when its own mark is found: the resend carries the first mark', async () => {
    const { table, sent } = scripted(['timeout', 'conflict', 'own-mark']);
    await expect(inInvocation(() => transact(table, edit, { errors: { record: () => new Error('stale version') } }))).resolves.toBeUndefined();
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map(({ mark }) => mark)).size).toBe(1);
  });

  it('answers its outcome unknown (504), not a conflict to decide again, when its resends are spent', async () => {
    const { table, sent } = scripted(['timeout', ...Array.from({ length: conflictAttempts }, (): Answer => 'cancelled-conflict')]);
    const failure = await inInvocation(() => transact(table, twoActions).catch((error: unknown) => error));
    expect(failure).toBeInstanceOf(WriteOutcomeUnknown);
    expect(failure).not.toBeInstanceOf(ConcurrentModification);
    expect(sent).toHaveLength(1 + conflictAttempts);
  });
});
