// Observability: X-Ray traces of every AWS SDK call. Every client of the service is created through `traced(...)`
// (by `serviceClient`, shared/aws-requests.ts: the DynamoDB, SQS, Scheduler, Secrets Manager clients and the
// Encryption SDK's KMS client), so on AWS, where the
// functions run with Tracing.ACTIVE, each call is a subsegment of the function's segment, and the request carries a
// trace header naming that subsegment as the parent of what the service records.
//
// Tracing is on only where an X-Ray daemon is: Lambda sets AWS_XRAY_DAEMON_ADDRESS when active tracing is on, and
// the local stack, the tests and the bench's SDK-only baseline have none. POWERTOOLS_TRACE_ENABLED=false turns it off
// anyway (the stack setting `tracing`, shared/operations/settings.ts; the variable keeps the name Powertools gave it).
//
// Why not Powertools Tracer (the X-Ray SDK) any more: the service asked it for one thing, a subsegment per SDK call
// (`captureAWSv3Client`, no handler segment, no annotations, no HTTP patching), and paid for it on every traced cold
// start: the X-Ray SDK's 88 KiB chunk compiled and evaluated at load, its segment machinery on the first call, about
// 12 ms of a 100 ms cold start (test/bench/README.md, "the tracer without the X-Ray SDK"). The same subsegments are an
// SDK middleware, a JSON document and a UDP datagram: this file, evaluated with the bundle. It writes what the X-Ray
// SDK wrote for an SDK v3 call (name, namespace `aws`, operation, region, request ID, retries, the table or queue, the
// HTTP status, the error/throttle/fault flags) and less where the SDK wrote more: an error is recorded by its class
// only, never its message or stack (as the logs do: a dependency's message may quote what it was sent), and no request
// parameter but the table's or queue's name. Lambda creates the function's segment; the invocation's trace header
// (the runtime's InvokeStore, else `_X_AMZN_TRACE_ID`, read at each call as the SDK's own recursion detection reads it)
// says which segment is the parent and whether the trace is sampled. Fields other than Root, Parent and Sampled
// (Lambda's `Lineage`, which its recursive-loop detection counts) are passed on in the header unchanged.
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:dgram';
import { InvokeStore } from '@aws/lambda-invoke-store';
import { environmentVariables } from '#shared/environment';
import { createSocket } from './daemon-socket';

/** Whether this process traces its SDK calls: an X-Ray daemon to send to, and tracing not turned off. */
export const tracingEnabled = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env[environmentVariables.tracing]?.toLowerCase() !== 'false' && Boolean(env.AWS_XRAY_DAEMON_ADDRESS);

/** The invocation's place in a trace, from its `X-Amzn-Trace-Id` header. */
export interface TraceContext {
  readonly root: string;
  readonly parent: string;
  readonly sampled: boolean;
  /** The header's other fields (`Lineage=...`), in their order, passed on unchanged. */
  readonly rest: readonly string[];
}

/** What the X-Ray SDK passes on of a header's other fields, at most (its `additionalTraceData` limit). */
const additionalDataLimit = 256;

/**
 * Parses a trace header (`Root=1-...;Parent=53995c3f42cd8ad8;Sampled=1;Lineage=...`); undefined without Root and
 * Parent. Keys are read whatever their case, as the X-Ray SDK reads them; `Self` (what a load balancer adds about
 * itself) is not passed on, and the other fields only up to 256 characters in all.
 */
export const traceContextOf = (header: string | undefined): TraceContext | undefined => {
  if (!header) return undefined;
  let root: string | undefined;
  let parent: string | undefined;
  let sampled = false;
  const rest: string[] = [];
  let restLength = 0;
  for (const field of header.split(';')) {
    const separator = field.indexOf('=');
    const key = (separator < 0 ? field : field.slice(0, separator)).trim();
    const value = separator < 0 ? '' : field.slice(separator + 1).trim();
    const name = key.toLowerCase();
    if (name === 'root') root = value;
    else if (name === 'parent') parent = value;
    else if (name === 'sampled') sampled = value === '1';
    else if (name !== '' && name !== 'self') {
      const text = `${key}=${value}`;
      restLength += text.length + 1;
      if (restLength <= additionalDataLimit) rest.push(text);
    }
  }
  return root && parent ? { root, parent, sampled, rest } : undefined;
};

/** The header a traced call sends: the same trace, this call's subsegment as the parent, the other fields kept. */
export const traceHeaderFor = (context: TraceContext, subsegmentId: string): string =>
  [`Root=${context.root}`, `Parent=${subsegmentId}`, 'Sampled=1', ...context.rest].join(';');

/**
 * The running invocation's trace header: the runtime's per-invocation store first (concurrent invocations of one
 * environment each have their own), else the environment variable; the store the SDK's recursion detection reads.
 */
export const invocationTraceHeader = async (): Promise<string | undefined> =>
  (await InvokeStore.getInstanceAsync())?.getXRayTraceId() ?? process.env._X_AMZN_TRACE_ID;

/** Where the daemon listens for segments: `AWS_XRAY_DAEMON_ADDRESS`, `host:port` or `tcp:host:port udp:host:port`. */
export const daemonEndpointOf = (address: string): { readonly host: string; readonly port: number } => {
  const tokens = address.trim().split(/\s+/);
  const udpToken = tokens.length === 1 && !tokens[0]?.startsWith('tcp:') ? tokens[0] : tokens.find((token) => token.startsWith('udp:'));
  const udp = udpToken?.startsWith('udp:') ? udpToken.slice('udp:'.length) : udpToken;
  const separator = udp?.lastIndexOf(':') ?? -1;
  const port = Number(udp?.slice(separator + 1));
  const host = udp?.slice(0, separator).replace(/^\[(.*)\]$/, '$1');
  if (!host || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`AWS_XRAY_DAEMON_ADDRESS must be host:port or "tcp:host:port udp:host:port"; got ${JSON.stringify(address)}`);
  }
  return { host, port };
};

/** What an SDK answer (or a service's error) says of its request: the `$metadata` of every output and service error. */
export interface ResponseMetadata {
  readonly httpStatusCode?: number;
  readonly requestId?: string;
  readonly attempts?: number;
}

/** What the middleware knows of one SDK call when it ends. */
export interface SdkCall {
  readonly id: string;
  readonly context: TraceContext;
  /** The client's name without `Client`: `DynamoDB`, `SQS`, `KMS`, `Scheduler`, `SecretsManager`. */
  readonly service: string;
  /** The command's name without `Command`: `GetItem`. */
  readonly operation: string;
  readonly region: string | undefined;
  readonly input: Readonly<Record<string, unknown>>;
  /** Seconds since the epoch, as X-Ray takes them. */
  readonly startTime: number;
  readonly endTime: number;
  /** The answer's metadata (`$metadata`), of the output or of the service's error. */
  readonly metadata: ResponseMetadata | undefined;
  readonly error?: unknown;
}

const throttlingErrors = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  'SlowDown',
  'LimitExceededException',
  'BandwidthLimitExceeded',
  'PriorRequestNotComplete',
  'EC2ThrottledException',
]);

const isThrottled = (status: number | undefined, error: unknown): boolean => {
  if (status === 429) return true;
  if (!(error instanceof Error)) return false;
  const retryable = (error as { $retryable?: { throttling?: boolean } }).$retryable;
  return throttlingErrors.has(error.name) || retryable?.throttling === true;
};

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The names of the tables a DynamoDB call reads or writes: its own, a batch's keys, a transaction's items' (never an item). */
const tableNamesOf = (input: Readonly<Record<string, unknown>>): string[] => {
  const names = new Set<string>();
  const requestItems = input.RequestItems;
  if (requestItems !== null && typeof requestItems === 'object') for (const name of Object.keys(requestItems)) names.add(name);
  const transactItems = input.TransactItems;
  if (Array.isArray(transactItems)) {
    for (const item of transactItems as unknown[]) {
      if (item === null || typeof item !== 'object') continue;
      for (const action of Object.values(item as Record<string, unknown>)) {
        const name = stringOf((action as { TableName?: unknown } | null)?.TableName);
        if (name) names.add(name);
      }
    }
  }
  return [...names].sort();
};

/** The `aws` member: the operation and where it went; of the request, only the names of the resources it names. */
const awsOf = (call: SdkCall): Record<string, unknown> => {
  const aws: Record<string, unknown> = { operation: call.operation };
  if (call.region) aws.region = call.region;
  if (call.metadata?.requestId) aws.request_id = call.metadata.requestId;
  aws.retries = Math.max(0, (call.metadata?.attempts ?? 1) - 1);
  const tableNames = tableNamesOf(call.input);
  // `table_name` is what X-Ray's console names a DynamoDB node by: a transaction or batch of one table gives it too.
  const tableName = stringOf(call.input.TableName) ?? (tableNames.length === 1 ? tableNames[0] : undefined);
  if (tableName) aws.table_name = tableName;
  if (tableNames.length > 0) aws.table_names = tableNames;
  const queueUrl = stringOf(call.input.QueueUrl);
  if (queueUrl) aws.queue_url = queueUrl;
  return aws;
};

/** The random 16 hexadecimal digits X-Ray takes as a segment's or an exception's ID. */
export const segmentId = (): string => randomBytes(8).toString('hex');

/** The subsegment document (X-Ray's segment document format) of one SDK call, sent on its own to the daemon. */
export const subsegmentOf = (call: SdkCall): Record<string, unknown> => {
  const status = call.metadata?.httpStatusCode;
  const document: Record<string, unknown> = {
    type: 'subsegment',
    id: call.id,
    trace_id: call.context.root,
    parent_id: call.context.parent,
    name: call.service,
    namespace: 'aws',
    start_time: call.startTime,
    end_time: call.endTime,
    aws: awsOf(call),
  };
  if (status !== undefined) document.http = { response: { status } };
  if (call.error === undefined && (status === undefined || status < 400)) return document;
  if (isThrottled(status, call.error)) document.throttle = true;
  // A 4xx is the caller's error; a 5xx, or a call that got no answer at all (network, timeout), the service's fault.
  if (status !== undefined && status >= 400 && status < 500) document.error = true;
  else document.fault = true;
  if (call.error !== undefined) {
    const type = call.error instanceof Error ? call.error.name : typeof call.error;
    // Remote: the service answered it. The SDK gives every error metadata (its attempts), a refused connection too.
    document.cause = { exceptions: [{ id: segmentId(), type, remote: call.metadata?.httpStatusCode !== undefined }] };
  }
  return document;
};

const documentHeader = '{"format":"json","version":1}\n';

/**
 * Sends segment documents to the daemon over UDP, one datagram each. Nothing of it runs inside an SDK call: the socket
 * is opened (and bound: every bind loads Node's `cluster` module, about 2.5 ms) on the event loop's check phase after
 * the first traced call has gone out, so while the function waits for that call's answer; documents are sent on the
 * check phase after the call ends, while the function waits for its next round trip or after its answer has gone.
 * The socket never keeps the process alive, and a document that cannot go is dropped (UDP promises no more).
 */
export class DaemonEmitter {
  #socket: Socket | undefined;
  readonly #endpoint: { readonly host: string; readonly port: number };
  #queue: Record<string, unknown>[] = [];
  #opening = false;

  constructor(address: string) {
    this.#endpoint = daemonEndpointOf(address);
  }

  /** Opens the socket on the next check phase, once: called as a traced call goes out. Never throws. */
  open(): void {
    if (this.#socket || this.#opening) return;
    this.#opening = true;
    setImmediate(() => {
      this.#opening = false;
      try {
        this.#open();
      } catch {
        // The first send tries again.
      }
    });
  }

  /** Queues one document for the next check phase; never throws (a trace is worth less than the call it describes). */
  send(document: Record<string, unknown>): void {
    this.#queue.push(document);
    if (this.#queue.length === 1) setImmediate(() => this.flush());
  }

  /** Sends what is queued now. */
  flush(): void {
    const documents = this.#queue;
    this.#queue = [];
    for (const document of documents) {
      try {
        this.#open().send(documentHeader + JSON.stringify(document), this.#endpoint.port, this.#endpoint.host, () => undefined);
      } catch {
        // Dropped, as a datagram the network loses.
      }
    }
  }

  #open(): Socket {
    if (this.#socket) return this.#socket;
    // A host name is looked up as IPv4 (Lambda gives the daemon's IPv4 address); an IPv6 address gets a udp6 socket.
    // (`net` as daemon-socket.ts takes it: no ESM namespace of it.) `isIP`, not `isIPv6`: it tries IPv4 first, and
    // `isIPv6` compiles Node's IPv6 expression on its first use, about 3 ms of every traced cold start's first call
    // for Lambda's IPv4 address (profiles: test/bench/README.md).
    const socket = createSocket(process.getBuiltinModule('node:net').isIP(this.#endpoint.host) === 6 ? 'udp6' : 'udp4');
    // A socket that failed (its bind, say) is dropped: the next document opens another.
    socket.on('error', () => {
      if (this.#socket === socket) this.#socket = undefined;
      try {
        socket.close();
      } catch {
        // Closed already.
      }
    });
    // What the first send would do (an ephemeral port), done now.
    socket.bind({ port: 0, exclusive: true });
    socket.unref();
    this.#socket = socket;
    return socket;
  }

  close(): void {
    this.#socket?.close();
    this.#socket = undefined;
  }
}

const nowInSeconds = (): number => Date.now() / 1000;

interface HandlerContext {
  readonly clientName?: string;
  readonly commandName?: string;
}
interface BuildArgs {
  readonly input?: Readonly<Record<string, unknown>>;
  readonly request?: unknown;
}
interface HttpRequestLike {
  headers: Record<string, string>;
}
interface TraceableClient {
  readonly config: { readonly region?: string | (() => Promise<string>) };
  readonly middlewareStack: {
    add(middleware: unknown, options: { step: 'build'; name: string; override: boolean }): void;
  };
}

const strip = (name: string | undefined, suffix: string): string => (name?.endsWith(suffix) ? name.slice(0, -suffix.length) : (name ?? 'Unknown'));

const isHttpRequest = (request: unknown): request is HttpRequestLike =>
  request !== null && typeof request === 'object' && typeof (request as { headers?: unknown }).headers === 'object';

/**
 * The build-step middleware that records one subsegment per call of `client` when the invocation's trace is sampled
 * (an unsampled or absent trace costs one header read). It runs before the SDK's recursion detection, which then
 * leaves the header it set.
 */
export const subsegmentMiddleware =
  (client: TraceableClient, emitter: Pick<DaemonEmitter, 'open' | 'send'>, header: () => Promise<string | undefined> = invocationTraceHeader) =>
  (next: (args: BuildArgs) => Promise<{ output?: { $metadata?: ResponseMetadata } }>, handlerContext: HandlerContext) =>
  async (args: BuildArgs): Promise<{ output?: { $metadata?: ResponseMetadata } }> => {
    let traced: { readonly context: TraceContext; readonly id: string } | undefined;
    try {
      const context = traceContextOf(await header());
      if (context?.sampled) {
        const id = segmentId();
        if (isHttpRequest(args.request)) args.request.headers['X-Amzn-Trace-Id'] = traceHeaderFor(context, id);
        emitter.open();
        traced = { context, id };
      }
    } catch {
      // A trace that cannot be read or written is no reason to fail the call: the call goes untraced.
      traced = undefined;
    }
    if (!traced) return next(args);
    const { context, id } = traced;
    const startTime = nowInSeconds();
    // Never throws: the call's own answer or error is what its caller gets, traced or not.
    const record = async (metadata: ResponseMetadata | undefined, error?: unknown): Promise<void> => {
      try {
        const endTime = nowInSeconds();
        const region = typeof client.config.region === 'function' ? await client.config.region() : client.config.region;
        const service = strip(handlerContext.clientName, 'Client');
        const operation = strip(handlerContext.commandName, 'Command');
        emitter.send(subsegmentOf({ id, context, service, operation, region, input: args.input ?? {}, startTime, endTime, metadata, error }));
      } catch {
        // No subsegment for this call.
      }
    };
    let result: { output?: { $metadata?: ResponseMetadata } };
    try {
      result = await next(args);
    } catch (error) {
      await record((error as { $metadata?: ResponseMetadata } | undefined)?.$metadata, error);
      throw error;
    }
    await record(result.output?.$metadata);
    return result;
  };

const middlewareName = 'xraySubsegments';

const daemonAddress = process.env.AWS_XRAY_DAEMON_ADDRESS;
/** The emitter, made at module evaluation (the daemon's address checked at once) only when tracing is on. */
const emitter = tracingEnabled() && daemonAddress ? new DaemonEmitter(daemonAddress) : undefined;

/** The client with every call traced as an X-Ray subsegment when tracing is on; the client itself otherwise. */
export const traced = <Client>(client: Client): Client => {
  if (!emitter) return client;
  const traceable = client as unknown as TraceableClient;
  traceable.middlewareStack.add(subsegmentMiddleware(traceable, emitter), { step: 'build', name: middlewareName, override: true });
  return client;
};
