// Unit: which writes of an invocation may have landed unknown to it (shared/data/write-outcome.ts), on a real SDK
// client whose HTTP handler answers each attempt in process as DynamoDB would: a write that failed after an attempt
// that timed out, broke or got a 5xx is noted (its last error says nothing of it); a write refused whole (4xx), one
// whose resend succeeded, and a read are not.
import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#shared/data/client';
import { refusedWhole } from '#shared/data/write-outcome';
import { apartFromWriteLedger, withinInvocation } from '#shared/invocation';

type Attempt = 'ok' | 'timeout' | 'reset' | 500 | 'throttle' | 'condition' | 'in-progress';

const errorAnswer = (status: number, type: string) => ({
  response: {
    statusCode: status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ' },
    body: Readable.from([Buffer.from(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: type }))]),
  },
});

/** A document client whose attempts are answered in turn by `attempts` (the last one again past the end). */
const scripted = (attempts: readonly Attempt[]) => {
  let sent = 0;
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: attempts.length,
    requestHandler: {
      handle: async () => {
        const attempt = attempts[Math.min(sent, attempts.length - 1)];
        sent += 1;
        if (attempt === 'timeout') throw Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
        if (attempt === 'reset') throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        if (attempt === 500) return errorAnswer(500, 'InternalServerError');
        if (attempt === 'throttle') return errorAnswer(400, 'ProvisionedThroughputExceededException');
        if (attempt === 'condition') return errorAnswer(400, 'ConditionalCheckFailedException');
        if (attempt === 'in-progress') return errorAnswer(400, 'TransactionInProgressException');
        return { response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{}')]) } };
      },
    } as never,
  });
  return { documents: createDocumentClient(client), sent: () => sent };
};

const put = () => new PutCommand({ TableName: 'business', Item: { pk: 'T#1', sk: 'X' } });
const transaction = () => new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 'business', Item: { pk: 'T#1', sk: 'X' } } }] });
const get = () => new GetCommand({ TableName: 'business', Key: { pk: 'T#1', sk: 'X' } });

/** Sends `command` inside an invocation; what its ledger says after, and whether the call failed. */
const outcome = async (attempts: readonly Attempt[], command: () => PutCommand | TransactWriteCommand | GetCommand) => {
  const { documents, sent } = scripted(attempts);
  const writes = { uncertain: false };
  const failed = await withinInvocation({ signal: new AbortController().signal, writes }, () =>
    documents.send(command() as never).then(
      () => false,
      () => true,
    ),
  );
  return { failed, uncertain: writes.uncertain, sent: sent() };
};

describe('a write of an invocation', () => {
  it('that failed after an attempt that may have landed is noted, whatever its last error', async () => {
    expect(await outcome(['timeout', 'throttle'], put)).toEqual({ failed: true, uncertain: true, sent: 2 });
    expect(await outcome([500, 500], put)).toEqual({ failed: true, uncertain: true, sent: 2 });
    expect(await outcome(['reset', 'condition'], put)).toEqual({ failed: true, uncertain: true, sent: 2 });
    // A resend of a transaction still committing (the same ClientRequestToken).
    expect(await outcome(['timeout', 'in-progress'], transaction)).toEqual({ failed: true, uncertain: true, sent: 2 });
  });

  it('refused whole on every attempt, or answered in the end, is not', async () => {
    expect(await outcome(['throttle', 'throttle'], put)).toEqual({ failed: true, uncertain: false, sent: 2 });
    expect(await outcome(['condition'], put)).toEqual({ failed: true, uncertain: false, sent: 1 });
    expect(await outcome(['timeout', 'ok'], transaction)).toEqual({ failed: false, uncertain: false, sent: 2 });
  });

  it("apart from the ledger (a sequence's value taken or given back), it is not, though it may have landed", async () => {
    const { documents } = scripted(['timeout', 500]);
    const writes = { uncertain: false };
    const signal = new AbortController().signal;
    await withinInvocation({ signal, writes }, () => apartFromWriteLedger(() => documents.send(put()).catch(() => undefined)));
    expect(writes.uncertain).toBe(false);
    // The invocation's signal still reaches it.
    await withinInvocation({ signal: AbortSignal.abort(), writes }, () =>
      apartFromWriteLedger(() => expect(documents.send(put())).rejects.toThrow(/abort/i)),
    );
  });

  it('a read never is', async () => {
    expect(await outcome([500, 'timeout'], get)).toEqual({ failed: true, uncertain: false, sent: 2 });
  });

  it('outside an invocation (a consumer, a test), nothing is kept', async () => {
    const { documents } = scripted(['timeout', 500]);
    await expect(documents.send(put())).rejects.toThrow();
  });
});

describe('refusedWhole', () => {
  it('takes a 4xx or a connection never made for a refusal, but TransactionInProgressException; a 5xx, a timeout or a broken connection may have landed', () => {
    const answered = (status: number, name: string) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
    expect(refusedWhole(answered(400, 'ConditionalCheckFailedException'))).toBe(true);
    expect(refusedWhole(answered(400, 'TransactionCanceledException'))).toBe(true);
    expect(refusedWhole(answered(400, 'TransactionInProgressException'))).toBe(false);
    expect(refusedWhole(answered(500, 'InternalServerError'))).toBe(false);
    expect(refusedWhole(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))).toBe(false);
    expect(refusedWhole(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(false);
    // Never connected: nothing was sent.
    expect(refusedWhole(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(refusedWhole(undefined)).toBe(false);
  });
});
