// Local stack: what DynamoDB refuses and DynamoDB Local accepts, refused at the IAM edge (iam-edge.ts) for the
// functions' calls, with the answer DynamoDB gives. DynamoDB Local applies a TransactWriteItems whose actions name one
// item twice, in turn (a create then a check of the same key fails its check); DynamoDB refuses the whole request
// with a ValidationException, which reaches a caller as a 500. Without this, code that builds such a transaction
// passes every test here and fails in the cloud (found by a bad-day review: a refund whose new ID was its payment's).
import { randomUUID } from 'node:crypto';
import type { EdgeReply } from './edge-faults';
import { isJsonObject } from '#shared/openapi/types';

/** A table's primary key attributes, as its template declares them. */
export interface TableKeys {
  readonly partitionKey: string;
  readonly sortKey?: string;
}

/** The TransactWriteItems entry types and where each names its item. */
const keyOfEntry = (type: string, request: Record<string, unknown>): unknown => (type === 'Put' ? request.Item : request.Key);

/**
 * DynamoDB's answer to a request it refuses and DynamoDB Local does not, or undefined. `keysOf` gives a table's key
 * attributes; an entry of a table it does not know is left to the IAM edge (which refused it already) and to
 * DynamoDB Local.
 */
export const dynamoDbRefusal = (operation: string, raw: Buffer, keysOf: (tableName: string) => TableKeys | undefined): EdgeReply | undefined => {
  if (operation !== 'TransactWriteItems') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isJsonObject(body) || !Array.isArray(body.TransactItems)) return undefined;
  const named = new Set<string>();
  for (const entry of body.TransactItems) {
    const [type, request] = isJsonObject(entry) ? (Object.entries(entry)[0] ?? []) : [];
    if (typeof type !== 'string' || !isJsonObject(request) || typeof request.TableName !== 'string') continue;
    const keys = keysOf(request.TableName);
    const item = keyOfEntry(type, request);
    if (!keys || !isJsonObject(item)) continue;
    const identity = JSON.stringify([request.TableName, item[keys.partitionKey], keys.sortKey === undefined ? null : item[keys.sortKey]]);
    if (named.has(identity)) {
      return {
        status: 400,
        headers: { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': randomUUID() },
        body: JSON.stringify({ __type: 'com.amazon.coral.validate#ValidationException', message: 'Transaction request cannot include multiple operations on one item' }),
      };
    }
    named.add(identity);
  }
  return undefined;
};
