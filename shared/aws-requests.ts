// How every AWS SDK client of the service is set up: its request timeouts, its traces, and no logging of what a call
// sends or gets back. Every client (DynamoDB, SQS, Secrets Manager, KMS, the scheduler's with fewer attempts) is
// `serviceClient(new <Service>Client({ requestHandler: awsRequestHandler, ... }))`.
//
// Request timeouts: one setting for every client. Without one, a call that is never answered (a stalled
// connection, a service that accepted the request and went quiet) holds the invocation until the function's own
// timeout, and the caller learns nothing but a 5xx. With one, the SDK ends the attempt, treats it as a transient
// error and retries within its attempts (three by default): 3 x 3 s plus back-off stays inside the operations' 10 s
// timeout less middy's 0.5 s early answer, so the function still answers its 503 + Retry-After itself.
// A timed-out attempt may still have landed (as on AWS): writes that are retried this way are idempotent or
// conditional (the data kit's transactions carry a ClientRequestToken).
// `throwOnRequestTimeout`: without it, @smithy/node-http-handler 4.x only logs a warning when `requestTimeout`
// passes and keeps waiting (found by the local stack's `hang` fault: a stalled call held the invocation to its end).
//
// Work left behind by an early answer: an operation answers its own 504 or 503 half a second before Lambda's deadline
// (middy's `timeoutEarlyInMillis`, shared/http/operation.ts), and its handler's promise is not stopped by that. On
// Lambda the environment is then frozen, and thawed at its next invocation, seconds or hours later: what the handler
// had left to do would go on then (a chunk written under a lease that ran out meanwhile, a transaction's retry sent
// with a ClientRequestToken past DynamoDB's ten minutes, a sequence number given back after another write took it).
// So every call an operation makes carries the invocation's abort signal (shared/invocation.ts), which middy aborts
// with its early answer: the request in flight has its socket destroyed there and then, and every later attempt (the
// SDK's retry, the handler's next step) fails with an AbortError before it is sent. What was already sent may still
// land, as with any timed-out call; nothing more is sent.
import { currentInvocation } from '#shared/invocation';
import { traced } from '#shared/observability/tracing';

export const awsRequestHandler = { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true } as const;

/** What `serviceClient` needs of a client: its middleware stack and `send` (every SDK v3 client has both). */
interface SdkClient {
  readonly middlewareStack: { remove(name: string): boolean };
  send(...args: never[]): unknown;
}

type Send = (command: unknown, options?: unknown, callback?: unknown) => unknown;

/**
 * The client with each `send` made inside an invocation (`withinInvocation`) given its signal as `abortSignal` (one the
 * caller gives wins; a call made outside, as a consumer's are, is unchanged). A document client has its own `send`
 * over its base client's stack, so it is given this too (data/client.ts).
 */
export const carryingInvocationSignal = <Client extends { send(...args: never[]): unknown }>(client: Client): Client => {
  const sender = client as unknown as { send: Send };
  const send: Send = sender.send.bind(client);
  sender.send = (command, options, callback) => {
    const signal = currentInvocation()?.signal;
    if (signal === undefined || typeof options === 'function') return send(command, options, callback);
    return send(command, { abortSignal: signal, ...(options as object | undefined) }, callback);
  };
  return client;
};

/**
 * The SDK's `loggerMiddleware` (every client has it) hands each call's input and output to the client's logger, after
 * passing both through the models' sensitive-data filter: a walk of the whole request and answer, made even for the
 * default logger that discards them. Removed from every client of the service, for two reasons. What a call carries
 * must never reach a log (an item's attributes are not "sensitive" in DynamoDB's model: a logger given to a client
 * would log card holders' names, documents' contents and sealed secrets as they are); and the walk costs CPU on every
 * call, in proportion to what it carries (a warm Query of 100 items about 0.6 ms of the client's 3.1, about 1 ms of a
 * cold search's first call: test/bench/README.md).
 */
const sdkPayloadLogger = 'loggerMiddleware';

/**
 * A client as the service uses it: every call traced when tracing is on (observability/tracing.ts), nothing of a
 * call's input or output handed to a logger (the SDK's own warnings, its `logger.warn`, are not this middleware's),
 * and every call of an operation's invocation aborted with its early answer (`carryingInvocationSignal`).
 */
export const serviceClient = <Client extends SdkClient>(client: Client): Client => {
  client.middlewareStack.remove(sdkPayloadLogger);
  return carryingInvocationSignal(traced(client));
};
