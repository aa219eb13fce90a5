// Unit: X-Ray subsegments of SDK calls (shared/observability/tracing.ts): the trace header read and passed on, the
// daemon's address, the document of a call (X-Ray's segment document format) and what it never holds, and the
// middleware on a real SDK client whose HTTP handler answers in process. The bundle on the functions' Node, with a
// UDP daemon: test/infra/bundle-tracing.test.ts.
import { createSocket as createDgramSocket } from 'node:dgram';
import { Readable } from 'node:stream';
import { jest } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  DaemonEmitter,
  daemonEndpointOf,
  subsegmentMiddleware,
  subsegmentOf,
  traceContextOf,
  traceHeaderFor,
  tracingEnabled,
  type SdkCall,
} from '#shared/observability/tracing';

const root = '1-67891233-abcdef012345678912345678';
const parent = '53995c3f42cd8ad8';

describe('the trace header', () => {
  it('reads Root, Parent and Sampled, and keeps the other fields in order but Self', () => {
    expect(traceContextOf(`Root=${root};Parent=${parent};Sampled=1;Lineage=a87bd80c:1;Self=x;Tenant=7`)).toEqual({ root, parent, sampled: true, rest: ['Lineage=a87bd80c:1', 'Tenant=7'] });
    // Keys in any case, as the X-Ray SDK reads them.
    expect(traceContextOf(`root=${root};PARENT=${parent};sampled=1;self=y;lineage=l:1`)).toEqual({ root, parent, sampled: true, rest: ['lineage=l:1'] });
    expect(traceContextOf(`Root=${root};Parent=${parent};Sampled=0`)).toEqual({ root, parent, sampled: false, rest: [] });
    // Sampled missing or undecided: not recorded here (Lambda decides before it invokes).
    expect(traceContextOf(`Root=${root};Parent=${parent}`)?.sampled).toBe(false);
    expect(traceContextOf(`Root=${root};Parent=${parent};Sampled=?`)?.sampled).toBe(false);
  });

  it('passes on at most 256 characters of other fields, whole fields only', () => {
    const many = Array.from({ length: 40 }, (_, index) => `Field${index}=abcdef`);
    const { rest } = traceContextOf([`Root=${root}`, `Parent=${parent}`, 'Sampled=1', ...many].join(';'))!;
    expect(rest.join(';').length).toBeLessThanOrEqual(256);
    expect(rest).toEqual(many.slice(0, rest.length));
    expect(rest.length).toBeGreaterThan(10);
  });

  it.each([undefined, '', 'Root=1-2-3', `Parent=${parent};Sampled=1`, 'garbage', ';;;'])('is no context without Root and Parent: %p', (header) => {
    expect(traceContextOf(header)).toBeUndefined();
  });

  it("names the call's subsegment as the parent and passes the other fields on", () => {
    const context = traceContextOf(`Root=${root};Parent=${parent};Sampled=1;Lineage=a87bd80c:1`)!;
    expect(traceHeaderFor(context, '0123456789abcdef')).toBe(`Root=${root};Parent=0123456789abcdef;Sampled=1;Lineage=a87bd80c:1`);
  });
});

describe("the daemon's address", () => {
  it.each([
    ['169.254.79.129:2000', '169.254.79.129', 2000],
    ['tcp:127.0.0.1:2000 udp:127.0.0.2:2001', '127.0.0.2', 2001],
    ['udp:127.0.0.2:2001 tcp:127.0.0.1:2000', '127.0.0.2', 2001],
    ['[::1]:2000', '::1', 2000],
    ['xray-daemon:2000', 'xray-daemon', 2000],
    ['udp:127.0.0.3:2002', '127.0.0.3', 2002],
  ])('%s is %s port %s', (address, host, port) => {
    expect(daemonEndpointOf(address)).toEqual({ host, port });
  });

  it.each(['nowhere', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:70000', ':2000', 'tcp:127.0.0.1:2000 tcp:127.0.0.2:2000', '127.0.0.1:20a', 'tcp:127.0.0.1:2000'])('refuses %p, naming the variable', (address) => {
    expect(() => daemonEndpointOf(address)).toThrow(/AWS_XRAY_DAEMON_ADDRESS/);
  });

  it('is what turns tracing on, unless the setting turns it off', () => {
    expect(tracingEnabled({ AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000' })).toBe(true);
    expect(tracingEnabled({ AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000', POWERTOOLS_TRACE_ENABLED: 'FALSE' })).toBe(false);
    expect(tracingEnabled({})).toBe(false);
  });
});

const call = (overrides: Partial<SdkCall> = {}): SdkCall => ({
  id: '0123456789abcdef',
  context: traceContextOf(`Root=${root};Parent=${parent};Sampled=1`)!,
  service: 'DynamoDB',
  operation: 'PutItem',
  region: 'eu-west-1',
  input: { TableName: 'business', Item: { PK: 'TENANT#1', CardNumber: '4111111111111111', Holder: 'Alice Example' } },
  startTime: 1_764_000_000.123,
  endTime: 1_764_000_000.131,
  metadata: { httpStatusCode: 200, requestId: 'REQ1', attempts: 1 },
  ...overrides,
});

class ServiceError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly $metadata: { httpStatusCode?: number; requestId?: string; attempts?: number },
    readonly $retryable?: { throttling?: boolean },
  ) {
    super(message);
  }
}

describe('the subsegment of a call', () => {
  it('is an independent subsegment of the invocation, naming the table and nothing else of the request', () => {
    const document = subsegmentOf(call());
    expect(document).toEqual({
      type: 'subsegment',
      id: '0123456789abcdef',
      trace_id: root,
      parent_id: parent,
      name: 'DynamoDB',
      namespace: 'aws',
      start_time: 1_764_000_000.123,
      end_time: 1_764_000_000.131,
      aws: { operation: 'PutItem', region: 'eu-west-1', request_id: 'REQ1', retries: 0, table_name: 'business' },
      http: { response: { status: 200 } },
    });
    expect(JSON.stringify(document)).not.toMatch(/4111|Alice|TENANT#1/);
  });

  it("names every table of a transaction or a batch once, never an item's contents", () => {
    const transaction = subsegmentOf(
      call({
        operation: 'TransactWriteItems',
        input: {
          TransactItems: [
            { Put: { TableName: 'b', Item: { Secret: 's3cr3t' } } },
            { Update: { TableName: 'a', Key: { PK: 'x' }, UpdateExpression: 'SET Secret = :s', ExpressionAttributeValues: { ':s': 's3cr3t' } } },
            { ConditionCheck: { TableName: 'b', Key: { PK: 'y' }, ConditionExpression: 'attribute_exists(PK)' } },
          ],
        },
        metadata: { httpStatusCode: 200, requestId: 'R', attempts: 3 },
      }),
    );
    expect(transaction.aws).toEqual({ operation: 'TransactWriteItems', region: 'eu-west-1', request_id: 'R', retries: 2, table_names: ['a', 'b'] });
    expect(JSON.stringify(transaction)).not.toContain('s3cr3t');
    const batch = subsegmentOf(call({ operation: 'BatchGetItem', input: { RequestItems: { t2: { Keys: [] }, t1: { Keys: [] } } } }));
    expect(batch.aws).toMatchObject({ table_names: ['t1', 't2'] });
    expect(batch.aws).not.toHaveProperty('table_name');
    // One table, as every call of this service's single-table design: its name is also `table_name`, X-Ray's node name.
    expect(subsegmentOf(call({ operation: 'TransactGetItems', input: { TransactItems: [{ Get: { TableName: 'business', Key: {} } }] } })).aws).toMatchObject({ table_name: 'business', table_names: ['business'] });
    expect(subsegmentOf(call({ service: 'SQS', operation: 'SendMessage', input: { QueueUrl: 'https://sqs/q', MessageBody: 'card 4111' } })).aws).toEqual({ operation: 'SendMessage', region: 'eu-west-1', request_id: 'REQ1', retries: 0, queue_url: 'https://sqs/q' });
  });

  it("marks a 4xx as the caller's error and a 5xx as the service's fault, naming the error's class and never its message", () => {
    const conditional = new ServiceError('ConditionalCheckFailedException', 'The conditional request failed for Alice', { httpStatusCode: 400, requestId: 'R4', attempts: 1 });
    const refused = subsegmentOf(call({ metadata: conditional.$metadata, error: conditional }));
    expect(refused).toMatchObject({ error: true, http: { response: { status: 400 } }, cause: { exceptions: [{ id: expect.stringMatching(/^[0-9a-f]{16}$/), type: 'ConditionalCheckFailedException', remote: true }] } });
    expect(refused).not.toHaveProperty('fault');
    expect(refused).not.toHaveProperty('throttle');
    const internal = new ServiceError('InternalServerError', 'boom', { httpStatusCode: 500, attempts: 3 });
    expect(subsegmentOf(call({ metadata: internal.$metadata, error: internal }))).toMatchObject({ fault: true, aws: { retries: 2 } });
    expect(JSON.stringify(refused)).not.toMatch(/Alice|conditional request|stack/);
  });

  it.each([
    ['a 429', new ServiceError('TooManyRequestsException', 'slow down', { httpStatusCode: 429 }), { error: true, throttle: true }],
    ['DynamoDB throughput exceeded', new ServiceError('ProvisionedThroughputExceededException', 'x', { httpStatusCode: 400 }), { error: true, throttle: true }],
    ['KMS throttling', new ServiceError('ThrottlingException', 'x', { httpStatusCode: 400 }), { error: true, throttle: true }],
    ["an error the SDK models as throttling", new ServiceError('SomethingElse', 'x', { httpStatusCode: 400 }, { throttling: true }), { error: true, throttle: true }],
    ['a 503 throttle', new ServiceError('RequestLimitExceeded', 'x', { httpStatusCode: 503 }), { fault: true, throttle: true }],
  ])('flags %s as throttled', (_, error, flags) => {
    expect(subsegmentOf(call({ metadata: error.$metadata, error }))).toMatchObject(flags);
  });

  it('marks a call that got no answer (network, timeout) as a fault of a local error', () => {
    // The SDK's retries give every error metadata (its attempts), but no HTTP status when nothing answered.
    const error = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED', $metadata: { attempts: 3, totalRetryDelay: 120 } });
    const document = subsegmentOf(call({ metadata: error.$metadata, error }));
    expect(document).toMatchObject({ fault: true, cause: { exceptions: [{ type: 'Error', remote: false }] } });
    expect(document).not.toHaveProperty('http');
    expect(JSON.stringify(document)).not.toContain('10.0.0.1');
  });
});

/** A DynamoDB client whose HTTP handler answers in process, as `traced` would equip it (an in-memory emit). */
/** What an SDK request handler answers: a status, headers and a body stream. */
interface StubResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: Readable;
}

const clientAnswering = (answer: () => StubResponse, header: () => string | undefined | Promise<string | undefined>) => {
  const sent: Record<string, string>[] = [];
  const documents: Record<string, unknown>[] = [];
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: { headers: Record<string, string> }) => {
        sent.push({ ...request.headers });
        return { response: answer() };
      },
    } as never,
  });
  client.middlewareStack.add(subsegmentMiddleware(client as never, { open: () => undefined, send: (document) => documents.push(document) }, async () => header()) as never, { step: 'build', name: 'xraySubsegments', override: true });
  return { client: DynamoDBDocumentClient.from(client), sent, documents };
};
const json = (status: number, body: unknown, requestId = 'REQ'): StubResponse => ({
  statusCode: status,
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': requestId },
  body: Readable.from([Buffer.from(JSON.stringify(body))]),
});

describe('the middleware on an SDK client', () => {
  it("records the call with the client's region and the command's name, and sends the header naming it", async () => {
    const { client, sent, documents } = clientAnswering(() => json(200, {}), () => `Root=${root};Parent=${parent};Sampled=1;Lineage=l:1`);
    await client.send(new PutCommand({ TableName: 'business', Item: { PK: 'a', Holder: 'Alice Example' } }));
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ name: 'DynamoDB', trace_id: root, parent_id: parent, aws: { operation: 'PutItem', region: 'eu-west-1', request_id: 'REQ', table_name: 'business' }, http: { response: { status: 200 } } });
    expect(sent[0]!['X-Amzn-Trace-Id']).toBe(`Root=${root};Parent=${String(documents[0]!.id)};Sampled=1;Lineage=l:1`);
    expect(JSON.stringify(documents)).not.toContain('Alice');
  });

  it('records a refused transaction as an error and throws what the SDK threw', async () => {
    const { client, documents } = clientAnswering(
      () => json(400, { __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException', message: 'Transaction cancelled for Alice', CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] }),
      () => `Root=${root};Parent=${parent};Sampled=1`,
    );
    await expect(client.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 'business', Item: { PK: 'a' } } }] }))).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(documents).toEqual([expect.objectContaining({ error: true, aws: expect.objectContaining({ operation: 'TransactWriteItems', table_name: 'business', table_names: ['business'] }), cause: { exceptions: [expect.objectContaining({ type: 'TransactionCanceledException', remote: true })] } })]);
    expect(JSON.stringify(documents)).not.toContain('Alice');
  });

  it("records a refused connection as a local fault, and the SDK's error is what the caller gets", async () => {
    const { client, documents } = clientAnswering(() => {
      throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
    }, () => `Root=${root};Parent=${parent};Sampled=1`);
    await expect(client.send(new PutCommand({ TableName: 'business', Item: { PK: 'a' } }))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(documents).toEqual([expect.objectContaining({ fault: true, cause: { exceptions: [expect.objectContaining({ type: 'Error', remote: false })] } })]);
    expect(documents[0]).not.toHaveProperty('http');
  });

  it('gives concurrent calls their own subsegments, each request naming its own', async () => {
    const { client, sent, documents } = clientAnswering(() => json(200, {}), () => `Root=${root};Parent=${parent};Sampled=1`);
    await Promise.all(['a', 'b', 'c'].map((key) => client.send(new PutCommand({ TableName: 'business', Item: { PK: key } }))));
    const ids = documents.map((document) => String(document.id));
    expect(new Set(ids).size).toBe(3);
    expect(sent.map((headers) => headers['X-Amzn-Trace-Id']).sort()).toEqual(ids.map((id) => `Root=${root};Parent=${id};Sampled=1`).sort());
  });

  it('sends the call untraced, and answers it, when the trace header cannot be read', async () => {
    const { client, sent, documents } = clientAnswering(() => json(200, {}), () => Promise.reject(new Error('no invoke store')));
    await expect(client.send(new PutCommand({ TableName: 'business', Item: { PK: 'a' } }))).resolves.toBeDefined();
    expect(documents).toEqual([]);
    expect(sent[0]!['X-Amzn-Trace-Id']).toBeUndefined();
  });

  it.each([
    ['an unsampled trace', `Root=${root};Parent=${parent};Sampled=0`],
    ['no trace at all', undefined],
  ])('records nothing and leaves the header alone for %s', async (_, header) => {
    const { client, sent, documents } = clientAnswering(() => json(200, {}), () => header);
    await client.send(new PutCommand({ TableName: 'business', Item: { PK: 'a' } }));
    expect(documents).toEqual([]);
    // No function name here, so the SDK's recursion detection adds no header either.
    expect(sent[0]!['X-Amzn-Trace-Id']).toBeUndefined();
  });
});

/** A UDP socket standing in for the daemon, an emitter aimed at it, both closed after `test` whatever it does. */
const withDaemon = async (test: (emitter: DaemonEmitter, received: string[]) => Promise<void>, family: 'udp4' | 'udp6' = 'udp4'): Promise<void> => {
  const daemon = createDgramSocket(family);
  const received: string[] = [];
  daemon.on('message', (message) => received.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, family === 'udp6' ? '::1' : '127.0.0.1', resolve));
  const emitter = new DaemonEmitter(family === 'udp6' ? `[::1]:${daemon.address().port}` : `127.0.0.1:${daemon.address().port}`);
  try {
    await test(emitter, received);
  } finally {
    emitter.close();
    daemon.close();
  }
};
const receivedCount = async (received: readonly string[], count: number): Promise<void> => {
  for (let attempt = 0; attempt < 200 && received.length < count; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('the daemon emitter', () => {
  it("sends each document as one datagram after X-Ray's header line", () =>
    withDaemon(async (emitter, received) => {
      emitter.send({ id: 'a' });
      emitter.send({ id: 'b' });
      await receivedCount(received, 2);
      expect([...received].sort()).toEqual(['{"format":"json","version":1}\n{"id":"a"}', '{"format":"json","version":1}\n{"id":"b"}']);
    }));

  it('sends nothing inside the call that ends, only on the next check phase', () =>
    withDaemon(async (emitter, received) => {
      // The emitter's socket is made on its first send, from `process.getBuiltinModule('node:dgram')`.
      const builtins = jest.spyOn(process, 'getBuiltinModule');
      try {
        emitter.send({ id: 'c' });
        await Promise.resolve();
        expect(builtins).not.toHaveBeenCalledWith('node:dgram');
        await new Promise((resolve) => setImmediate(resolve));
        expect(builtins).toHaveBeenCalledWith('node:dgram');
      } finally {
        builtins.mockRestore();
      }
      await receivedCount(received, 1);
      expect(received).toEqual(['{"format":"json","version":1}\n{"id":"c"}']);
    }));

  it('opens a udp6 socket for an IPv6 daemon address', () =>
    withDaemon(async (emitter, received) => {
      emitter.send({ id: 'six' });
      await receivedCount(received, 1);
      expect(received).toEqual(['{"format":"json","version":1}\n{"id":"six"}']);
    }, 'udp6'));

  it("never asks net.isIPv6 of Lambda's IPv4 address: its first use compiles Node's IPv6 expression (about 3 ms of a cold start)", () =>
    withDaemon(async (emitter, received) => {
      const net = process.getBuiltinModule('node:net');
      const isIPv6 = jest.spyOn(net, 'isIPv6');
      try {
        emitter.send({ id: 'four' });
        await receivedCount(received, 1);
        expect(received).toHaveLength(1);
        expect(isIPv6).not.toHaveBeenCalled();
      } finally {
        isIPv6.mockRestore();
      }
    }));

  it('never throws: a document that cannot be sent is dropped, and the next one still goes', () =>
    withDaemon(async (emitter, received) => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect(() => emitter.send(cyclic)).not.toThrow();
      emitter.send({ id: 'd' });
      expect(() => emitter.flush()).not.toThrow();
      await receivedCount(received, 1);
      expect(received).toEqual(['{"format":"json","version":1}\n{"id":"d"}']);
    }));
});
