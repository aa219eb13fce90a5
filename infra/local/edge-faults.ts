// Local stack: the fault mode at the IAM edge (iam-edge.ts), where every AWS call of every function passes with its
// caller's identity. What a rule's effect answers, in each service's protocol as AWS answers it (status, `__type`,
// the SDK's retry signals), and which calls read an index (the index lag reads those on a lagging replica:
// index-lag.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { faultStatusOf, partialBatchOperations, type FaultEffect } from './faults';
import { isJsonObject } from '#shared/openapi/types';

export interface EdgeReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}


const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The operation of a call to an emulated service: `X-Amz-Target`'s, an SQS form's `Action`, a scheduler REST route's. */
export const operationOf = (service: string, request: IncomingMessage, body: Buffer): string => {
  const target = String(request.headers['x-amz-target'] ?? '');
  if (target) return target.slice(target.indexOf('.') + 1);
  if (service === 'sqs') return new URLSearchParams(body.toString('utf8')).get('Action') ?? 'Unknown';
  if (service === 'scheduler') {
    const path = new URL(request.url ?? '/', 'http://edge').pathname;
    if (path === '/schedules') return 'ListSchedules';
    const byMethod: Record<string, string> = { POST: 'CreateSchedule', PUT: 'UpdateSchedule', GET: 'GetSchedule', DELETE: 'DeleteSchedule' };
    return byMethod[request.method ?? 'GET'] ?? 'Unknown';
  }
  return 'Unknown';
};

/** The messages AWS gives with the errors the profiles use. */
const defaultMessages: Record<string, string> = {
  ThrottlingException: 'Rate of requests exceeds the allowed throughput.',
  ProvisionedThroughputExceededException:
    'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  RequestLimitExceeded: 'Throughput exceeds the current throughput limit for your account.',
  RequestThrottled: 'Request is throttled.',
  InternalServerError: 'Internal server error',
  InternalError: 'We encountered an internal error. Please try again.',
  InternalServerException: 'Unexpected error encountered while processing the request.',
  KMSInternalException: 'An internal error occurred.',
  InternalServiceError: 'An error occurred on the server side.',
  ServiceUnavailable: 'Service Unavailable',
  ServiceUnavailableException: 'Service Unavailable',
  DependencyTimeoutException: 'The system timed out while trying to fulfill the request.',
};

/** The namespace of a DynamoDB error's `__type`: the availability layer's for throttling, the service's otherwise. */
const dynamoDbNamespace = (code: string) => (code === 'ThrottlingException' ? 'com.amazon.coral.availability' : 'com.amazonaws.dynamodb.v20120810');

/**
 * An error as the service answers it. DynamoDB, KMS and Secrets Manager (JSON 1.0/1.1): `__type` and `message`. SQS, JSON protocol:
 * `__type` `com.amazonaws.sqs#<code>` and `x-amzn-query-error: <code>;Sender|Receiver` (the SDK names the error from
 * it); query protocol: the XML ErrorResponse. Scheduler (REST-JSON): the status and `x-amzn-ErrorType`.
 */
export const faultErrorReply = (service: string, request: IncomingMessage, effect: Extract<FaultEffect, { type: 'error' }>): EdgeReply => {
  const status = effect.status ?? faultStatusOf(service, effect.code);
  const message = effect.message ?? defaultMessages[effect.code] ?? `${effect.code} (injected by the local stack's fault mode)`;
  const requestId = randomUUID();
  if (service === 'scheduler') {
    return {
      status,
      headers: { 'Content-Type': 'application/json', 'x-amzn-RequestId': requestId, 'x-amzn-ErrorType': effect.code },
      body: JSON.stringify({ Message: message }),
    };
  }
  if (service === 'sqs') {
    const fault = status >= 500 ? 'Receiver' : 'Sender';
    if (!request.headers['x-amz-target']) {
      return {
        status,
        headers: { 'Content-Type': 'text/xml', 'x-amzn-RequestId': requestId },
        body: `<?xml version="1.0"?><ErrorResponse><Error><Type>${fault}</Type><Code>${effect.code}</Code><Message>${message}</Message><Detail/></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      };
    }
    return {
      status,
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': requestId, 'x-amzn-query-error': `${effect.code};${fault}` },
      body: JSON.stringify({ __type: `com.amazonaws.sqs#${effect.code}`, message }),
    };
  }
  const type = service === 'dynamodb' ? `${dynamoDbNamespace(effect.code)}#${effect.code}` : effect.code;
  const contentType = service === 'dynamodb' ? 'application/x-amz-json-1.0' : 'application/x-amz-json-1.1';
  return { status, headers: { 'Content-Type': contentType, 'x-amzn-RequestId': requestId }, body: JSON.stringify({ __type: type, message }) };
};

/**
 * A transaction cancelled as DynamoDB cancels one (TransactionCanceledException, one reason per entry: `reason` for
 * the first, None for the rest, as DynamoDB cancels at the first item it cannot write); a single-item write is
 * refused with the single-write error of the same cause.
 */
const transactionCancelledReply = (operation: string, body: Buffer, reason: { code: string; message: string; singleWrite: string }): EdgeReply => {
  const headers = { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': randomUUID() };
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const input = parseJson(body.toString('utf8'));
    const entries = isJsonObject(input) && Array.isArray(input.TransactItems) ? input.TransactItems.length : 1;
    const reasons = Array.from({ length: Math.max(1, entries) }, (_, index) => (index === 0 ? { Code: reason.code, Message: reason.message } : { Code: 'None' }));
    return {
      status: 400,
      headers,
      body: JSON.stringify({
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        CancellationReasons: reasons,
        Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((entry) => entry.Code).join(', ')}]`,
      }),
    };
  }
  return { status: 400, headers, body: JSON.stringify({ __type: `${dynamoDbNamespace(reason.singleWrite)}#${reason.singleWrite}`, message: reason.message }) };
};

/** Another transaction holds one of the items: TransactionConflict (TransactionConflictException for a single write). */
export const transactionConflictReply = (operation: string, body: Buffer): EdgeReply =>
  transactionCancelledReply(operation, body, { code: 'TransactionConflict', message: 'Transaction is ongoing for the item', singleWrite: 'TransactionConflictException' });

/** The table's or an index's capacity is exceeded: ThrottlingError (ThrottlingException for a single write). */
export const transactionThrottledReply = (operation: string, body: Buffer): EdgeReply =>
  transactionCancelledReply(operation, body, {
    code: 'ThrottlingError',
    message: 'Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly.',
    singleWrite: 'ThrottlingException',
  });

/**
 * A read DynamoDB may answer from a copy that lags the table's writes (the `index-lag` fault reads it on the lagging
 * replica): a Query or Scan of an index (AWS feeds a GSI from the table's writes asynchronously), and a read of the
 * table itself that is not strongly consistent (GetItem, Query, Scan, or a table of a BatchGetItem, without
 * `ConsistentRead: true`: DynamoDB may answer it from a replica of the partition that has not applied the last
 * second's writes). Undefined for any other call (a strongly consistent read, a write, a transaction).
 */
export interface LaggedRead {
  /** The tables it reads as they were. */
  readonly tables: readonly string[];
  /** What it reads of them, for the log: the index, or `eventually consistent`. */
  readonly what: string;
  /** The same request on the replicas (`replicas`: a table's replica by its name; a table without one is read as it is). */
  onReplicas(replicas: ReadonlyMap<string, string>): Buffer;
}

export const laggedReadOf = (operation: string, body: Buffer): LaggedRead | undefined => {
  const input = parseJson(body.toString('utf8'));
  if (!isJsonObject(input)) return undefined;
  if (operation === 'Query' || operation === 'Scan' || operation === 'GetItem') {
    const table = input.TableName;
    if (typeof table !== 'string') return undefined;
    const index = operation !== 'GetItem' && typeof input.IndexName === 'string' ? input.IndexName : undefined;
    if (index === undefined && input.ConsistentRead === true) return undefined;
    return {
      tables: [table],
      what: index ?? 'eventually consistent',
      onReplicas: (replicas) => Buffer.from(JSON.stringify({ ...input, TableName: replicas.get(table) ?? table })),
    };
  }
  if (operation === 'BatchGetItem' && isJsonObject(input.RequestItems)) {
    const requests = Object.entries(input.RequestItems);
    const tables = requests.filter(([, request]) => !(isJsonObject(request) && request.ConsistentRead === true)).map(([table]) => table);
    if (tables.length === 0) return undefined;
    const lagged = new Set(tables);
    return {
      tables,
      what: 'eventually consistent',
      onReplicas: (replicas) =>
        Buffer.from(
          JSON.stringify({
            ...input,
            RequestItems: Object.fromEntries(requests.map(([table, request]) => [(lagged.has(table) && replicas.get(table)) || table, request])),
          }),
        ),
    };
  }
  return undefined;
};

/**
 * A batch DynamoDB processes in part (the `unprocessed` effect). BatchGetItem and BatchWriteItem may process any part
 * of a request and return the rest as `UnprocessedKeys` / `UnprocessedItems` (a partition's capacity, an internal
 * failure, BatchGetItem's 16 MB answer): the caller must send that rest again. BatchGetItem also answers its items in
 * no particular order. Here the first half of the request's entries (at least one) is forwarded, the rest comes back
 * unprocessed with its table's other parameters, and what was read is answered in reverse. Undefined for a call that
 * is not a batch of two entries or more (DynamoDB refuses a batch it can process none of with a throttle instead), or
 * one DynamoDB refuses whole.
 */
export interface PartialBatch {
  /** The request of the processed half. */
  readonly forwarded: Buffer;
  /** DynamoDB's answer to that half, as the whole request's: the rest added as unprocessed, the items reordered. */
  answer(upstream: Buffer): Buffer;
}

export const partialBatchOf = (operation: string, body: Buffer): PartialBatch | undefined => {
  if (!partialBatchOperations.includes(operation)) return undefined;
  const input = parseJson(body.toString('utf8'));
  if (!isJsonObject(input) || !isJsonObject(input.RequestItems)) return undefined;
  const reads = operation === 'BatchGetItem';
  // Each table's entries: a BatchGetItem table's Keys (beside its other parameters), a BatchWriteItem table's requests.
  const tables = Object.entries(input.RequestItems).map(([table, request]) => {
    const entries = reads ? (isJsonObject(request) && Array.isArray(request.Keys) ? request.Keys : []) : Array.isArray(request) ? request : [];
    return { table, request, entries };
  });
  const total = tables.reduce((sum, { entries }) => sum + entries.length, 0);
  // A request DynamoDB refuses whole (a table without entries, more than its 100 keys or 25 writes) is forwarded as it
  // is, for DynamoDB to refuse: never made a success by the split.
  if (total < 2 || total > (reads ? 100 : 25) || tables.some(({ entries }) => entries.length === 0)) return undefined;
  let processing = Math.ceil(total / 2);
  const processed = new Map<string, unknown>();
  const unprocessed = new Map<string, unknown>();
  const withEntries = (request: unknown, entries: unknown[]) => (reads ? { ...(request as Record<string, unknown>), Keys: entries } : entries);
  for (const { table, request, entries } of tables) {
    const taken = entries.slice(0, processing);
    const left = entries.slice(taken.length);
    processing -= taken.length;
    if (taken.length > 0) processed.set(table, withEntries(request, taken));
    if (left.length > 0) unprocessed.set(table, withEntries(request, left));
  }
  const restName = reads ? 'UnprocessedKeys' : 'UnprocessedItems';
  return {
    forwarded: Buffer.from(JSON.stringify({ ...input, RequestItems: Object.fromEntries(processed) })),
    answer(upstream) {
      const output = parseJson(upstream.toString('utf8'));
      if (!isJsonObject(output)) return upstream;
      const rest: Record<string, unknown> = isJsonObject(output[restName]) ? { ...output[restName] } : {};
      for (const [table, request] of unprocessed) {
        const already = rest[table];
        // A table DynamoDB itself left some of: its entries and ours, one request.
        if (already === undefined) rest[table] = request;
        else if (reads) rest[table] = withEntries(request, [...((already as { Keys?: unknown[] }).Keys ?? []), ...(request as { Keys: unknown[] }).Keys]);
        else rest[table] = [...(already as unknown[]), ...(request as unknown[])];
      }
      const responses = reads && isJsonObject(output.Responses)
        ? { Responses: Object.fromEntries(Object.entries(output.Responses).map(([table, items]) => [table, Array.isArray(items) ? [...items].reverse() : items])) }
        : {};
      return Buffer.from(JSON.stringify({ ...output, ...responses, [restName]: rest }));
    },
  };
};
