// Unit: the data kit's batch read (shared/data/client.ts `batchGetAll`). DynamoDB may process any part of a
// BatchGetItem and answer the rest as UnprocessedKeys, in no particular order; the read sends the rest again until
// every key is answered, and gives up as a dependency's 503 when capacity keeps leaving keys behind. On a real SDK
// client whose HTTP handler answers each request in process, as DynamoDB would.
import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchReadUnprocessed, batchGetAll, createDocumentClient } from '#shared/data/client';
import { optimisticRetryPolicy } from '#shared/data/retry';
import { toApiError } from '#shared/http/problem';

interface KeyShape {
  readonly pk: { readonly S: string };
}

/** A table that processes at most `processedPerRequest` keys of each request (the last ones), answering the rest unprocessed. */
const partial = (processedPerRequest: number) => {
  const requests: { keys: string[]; consistent: boolean }[] = [];
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    requestHandler: {
      handle: async (request: { body?: string | Uint8Array }) => {
        const sentBody = request.body;
        const text = sentBody instanceof Uint8Array ? new TextDecoder().decode(new Uint8Array(sentBody.buffer, sentBody.byteOffset, sentBody.byteLength)) : String(sentBody);
        const body = JSON.parse(text) as { RequestItems: Record<string, { Keys: KeyShape[]; ConsistentRead?: boolean }> };
        const asked = body.RequestItems.business!;
        requests.push({ keys: asked.Keys.map((key) => key.pk.S), consistent: asked.ConsistentRead === true });
        const processed = asked.Keys.slice(Math.max(0, asked.Keys.length - processedPerRequest));
        const left = asked.Keys.slice(0, asked.Keys.length - processed.length);
        const answer = {
          Responses: { business: processed.map((key) => ({ pk: key.pk, name: { S: `item ${key.pk.S}` } })).reverse() },
          UnprocessedKeys: left.length > 0 ? { business: { Keys: left, ...(asked.ConsistentRead ? { ConsistentRead: true } : {}) } } : {},
        };
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ' },
            body: Readable.from([Buffer.from(JSON.stringify(answer))]),
          },
        };
      },
    } as never,
  });
  return { table: { client: createDocumentClient(client), tableName: 'business' }, requests };
};

const keys = (count: number) => Array.from({ length: count }, (_, index) => ({ pk: `K${index + 1}` }));

describe('batchGetAll', () => {
  it('sends what DynamoDB left unprocessed again until every key is answered, strongly consistent every time', async () => {
    const { table, requests } = partial(2);
    const items = await batchGetAll(table, keys(7), { consistent: true });
    expect(items.map((item) => item.pk).sort()).toEqual(['K1', 'K2', 'K3', 'K4', 'K5', 'K6', 'K7']);
    expect(requests.map(({ keys: sent }) => sent.length)).toEqual([7, 5, 3, 1]);
    expect(requests.every(({ consistent }) => consistent)).toBe(true);
  });

  it('reads 100 keys a request, each hundred to its end', async () => {
    const { table, requests } = partial(100);
    const items = await batchGetAll(table, keys(250));
    expect(new Set(items.map((item) => item.pk)).size).toBe(250);
    expect(requests.map(({ keys: sent }) => sent.length)).toEqual([100, 100, 50]);
    expect(requests.some(({ consistent }) => consistent)).toBe(false);
  });

  it('shares one budget of resends across its hundreds, so its wait stays within the policy\'s bound however many keys it reads', async () => {
    // Each hundred needs four resends at 20 keys a request: three hundreds need twelve, past the policy's nine.
    const { table, requests } = partial(20);
    await expect(batchGetAll(table, keys(300))).rejects.toBeInstanceOf(BatchReadUnprocessed);
    expect(requests).toHaveLength(optimisticRetryPolicy.maxAttempts + 2);
  }, 20_000);

  it('gives up as a dependency that is down (503) when capacity keeps leaving keys behind, after the retry policy\'s requests', async () => {
    const { table, requests } = partial(0);
    const read = batchGetAll(table, keys(3));
    await expect(read).rejects.toBeInstanceOf(BatchReadUnprocessed);
    expect(requests).toHaveLength(optimisticRetryPolicy.maxAttempts);
    const error = await read.catch((caught: unknown) => caught);
    expect(toApiError(error).kind.status).toBe(503);
  }, 20_000);
});
