// The AWS SDK clients' request timeouts: one setting for every client of the service (DynamoDB, SQS, Secrets
// Manager, KMS; the scheduler's too, with fewer attempts). Without one, a call that is never answered (a stalled
// connection, a service that accepted the request and went quiet) holds the invocation until the function's own
// timeout, and the caller learns nothing but a 5xx. With one, the SDK ends the attempt, treats it as a transient
// error and retries within its attempts (three by default): 3 x 3 s plus back-off stays inside the operations' 10 s
// timeout less middy's 0.5 s early answer, so the function still answers its 503 + Retry-After itself.
// A timed-out attempt may still have landed (as on AWS): writes that are retried this way are idempotent or
// conditional (the data kit's transactions carry a ClientRequestToken).
// `throwOnRequestTimeout`: without it, @smithy/node-http-handler 4.x only logs a warning when `requestTimeout`
// passes and keeps waiting (found by the local stack's `hang` fault: a stalled call held the invocation to its end).
export const awsRequestHandler = { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true } as const;
