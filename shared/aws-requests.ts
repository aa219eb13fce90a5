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
import { traced } from '#shared/observability/tracing';

export const awsRequestHandler = { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true } as const;

/** What `serviceClient` needs of a client: its middleware stack (every SDK v3 client has one). */
interface SdkClient {
  readonly middlewareStack: { remove(name: string): boolean };
}

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
 * A client as the service uses it: every call traced when tracing is on (observability/tracing.ts), and nothing of a
 * call's input or output handed to a logger. The SDK's own warnings (its `logger.warn`) are not this middleware's.
 */
export const serviceClient = <Client extends SdkClient>(client: Client): Client => {
  client.middlewareStack.remove(sdkPayloadLogger);
  return traced(client);
};
