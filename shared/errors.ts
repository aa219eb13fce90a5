// Domain and HTTP errors: named classes thrown anywhere in the flow and turned into RFC 9457 problem responses in
// one place (shared/http/problem.ts). A domain module throws these; it never builds a response.

/** One invalid input: a body field by JSON pointer (RFC 6901), or a path/query parameter by name. */
export type FieldError =
  | { readonly pointer: string; readonly detail: string }
  | { readonly parameter: string; readonly detail: string };

/** One member name as a JSON pointer segment (RFC 6901: `~` as `~0`, `/` as `~1`). */
export const pointerSegment = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');

export interface ProblemKind {
  readonly status: number;
  readonly title: string;
  /** `about:blank` when the status says it all; otherwise a tag URI naming the problem type. */
  readonly type: string;
}

const problemType = (slug: string) => `tag:business-platform.api,2026:problems/${slug}`;

export const problemKinds = {
  badRequest: { status: 400, title: 'Bad Request', type: 'about:blank' },
  validationFailed: { status: 400, title: 'Request validation failed', type: problemType('validation-failed') },
  malformedBody: { status: 400, title: 'Malformed request body', type: problemType('malformed-body') },
  unauthorized: { status: 401, title: 'Unauthorized', type: 'about:blank' },
  forbidden: { status: 403, title: 'Forbidden', type: 'about:blank' },
  tenancyMismatch: { status: 403, title: 'Tenancy mismatch', type: problemType('tenancy-mismatch') },
  notFound: { status: 404, title: 'Not Found', type: 'about:blank' },
  methodNotAllowed: { status: 405, title: 'Method Not Allowed', type: 'about:blank' },
  notAcceptable: { status: 406, title: 'Not Acceptable', type: 'about:blank' },
  /** The local gateway's, for a client too slow to send its request (node:http's limits). */
  requestTimeout: { status: 408, title: 'Request Timeout', type: 'about:blank' },
  conflict: { status: 409, title: 'Conflict', type: 'about:blank' },
  nameTaken: { status: 409, title: 'Name already in use', type: problemType('name-taken') },
  staleVersion: { status: 409, title: 'Stale version', type: problemType('stale-version') },
  refundExceedsBalance: { status: 409, title: 'Refund exceeds the refundable amount', type: problemType('refund-exceeds-balance') },
  guidTaken: { status: 409, title: 'GUID already in use', type: problemType('guid-taken') },
  idempotencyKeyInUse: { status: 409, title: 'Request in progress', type: problemType('idempotency-key-in-use') },
  preconditionFailed: { status: 412, title: 'Precondition Failed', type: 'about:blank' },
  payloadTooLarge: { status: 413, title: 'Content Too Large', type: 'about:blank' },
  recordTooLarge: { status: 413, title: 'Record too large to store', type: problemType('record-too-large') },
  unsupportedMediaType: { status: 415, title: 'Unsupported Media Type', type: 'about:blank' },
  /** The local gateway's, for an `Expect` other than 100-continue (RFC 9110 §10.1.1). */
  expectationFailed: { status: 417, title: 'Expectation Failed', type: 'about:blank' },
  idempotencyKeyReused: { status: 422, title: 'Idempotency key reused', type: problemType('idempotency-key-reused') },
  answerTooLarge: { status: 422, title: 'Answer too large', type: problemType('answer-too-large') },
  tooManyRequests: { status: 429, title: 'Too Many Requests', type: 'about:blank' },
  internal: { status: 500, title: 'Internal Server Error', type: 'about:blank' },
  badGateway: { status: 502, title: 'Bad Gateway', type: 'about:blank' },
  serviceUnavailable: { status: 503, title: 'Service Unavailable', type: 'about:blank' },
  gatewayTimeout: { status: 504, title: 'Gateway Timeout', type: 'about:blank' },
} as const satisfies Record<string, ProblemKind>;

/** RFC 9457 extension members of a problem (e.g. a refund's `RefundableAmount`): scalars, named by the problem type. */
export type ProblemExtensions = Readonly<Record<string, string | number | boolean>>;

export interface ApiErrorOptions {
  readonly errors?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
  readonly extensions?: ProblemExtensions;
}

/** A problem lists at most this many field errors (a hostile body can hold thousands; the first ones say enough). */
export const maxReportedErrors = 100;

/**
 * A field error's pointer is at most this many characters. Member names are the client's, so a pointer can be as long
 * as the body (1 MiB), and the problem repeats it in `Messages`: written as XML (`<` as `&lt;`) that was more than the
 * 6 MB a Lambda function may answer, a 502 for a refused body. A pointer made of the document's own member names
 * always fits: 33 segments (the depth bound, 32 levels, and a member of the last) of the longest name, 41 characters,
 * are 1,386 (test/unit/http/problem.test.ts holds it). At most 100 such pointers, each written twice and 4 times as
 * long in XML, stay under 2 MB.
 */
export const maxReportedPointerLength = 2_048;

/**
 * The pointer of the deepest ancestor (whole segments) that fits maxReportedPointerLength, for a pointer too long
 * to repeat; '' (the body) when even the first segment is too long.
 */
const ancestorWithin = (pointer: string): string => {
  const cut = pointer.lastIndexOf('/', maxReportedPointerLength);
  return cut <= 0 ? '' : pointer.slice(0, cut);
};

/**
 * The field errors a problem reports, whoever built them: the first maxReportedErrors, each pointer at most
 * maxReportedPointerLength characters (a longer one is reported at its deepest ancestor that fits, saying so), so
 * a refusal is small whatever was sent. A parameter's name is bounded by the request line (10,240 bytes).
 */
export const reportedErrors = (errors: readonly FieldError[]): FieldError[] =>
  errors.slice(0, maxReportedErrors).map((error) =>
    'pointer' in error && error.pointer.length > maxReportedPointerLength
      ? {
          pointer: ancestorWithin(error.pointer),
          detail: `a member below this one, whose pointer is longer than ${maxReportedPointerLength} characters: ${error.detail}`,
        }
      : error,
  );

/** An error that maps to a problem response. `detail` is shown to the caller: never put secrets in it. */
export class ApiError extends Error {
  readonly kind: ProblemKind;
  readonly detail: string;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: ProblemExtensions;

  constructor(kind: ProblemKind, detail: string, options: ApiErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    // Each subclass names itself (`override readonly name`): a class's own name is minified in a bundle, and the
    // logs carry `errorName` (test/unit/errors/error-names.test.ts holds every error class to it).
    this.name = 'ApiError';
    this.kind = kind;
    this.detail = detail;
    this.errors = options.errors === undefined ? undefined : reportedErrors(options.errors);
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }

  get status(): number {
    return this.kind.status;
  }
}

export class ValidationFailed extends ApiError {
  override readonly name: string = 'ValidationFailed';
  constructor(errors: readonly FieldError[], detail = 'The request is not valid; see errors for each field.') {
    super(problemKinds.validationFailed, detail, { errors });
  }
}

export class MalformedBody extends ApiError {
  override readonly name: string = 'MalformedBody';
  constructor(detail: string) {
    super(problemKinds.malformedBody, detail);
  }
}

/** The challenge of every 401 (RFC 6750), from a function or from the gateway itself. */
export const bearerChallenge: Readonly<Record<string, string>> = { 'WWW-Authenticate': 'Bearer realm="api"' };

/** The webhook authenticates by the HMAC `signature` member of the event, not by a token: its own challenge. */
export const signatureChallenge: Readonly<Record<string, string>> = { 'WWW-Authenticate': 'Signature realm="webhook"' };

export class Unauthorized extends ApiError {
  override readonly name: string = 'Unauthorized';
  constructor(detail = 'A valid bearer token is required.', challenge: Readonly<Record<string, string>> = bearerChallenge) {
    super(problemKinds.unauthorized, detail, { headers: challenge });
  }
}

export class TenancyMismatch extends ApiError {
  override readonly name: string = 'TenancyMismatch';
  /** `pointer`: where the field is in the body (a nested record's `/AdaptorDetails/TenantID`); the top level by default. */
  constructor(field: string, pointer = `/${field}`) {
    const where = pointer === `/${field}` ? field : `${field} at ${pointer}`;
    super(problemKinds.tenancyMismatch, `${where} does not match the caller's token.`, {
      errors: [{ pointer, detail: "differs from the caller's token" }],
    });
  }
}

export class NotFound extends ApiError {
  override readonly name: string = 'NotFound';
  constructor(detail = 'The resource does not exist.') {
    super(problemKinds.notFound, detail);
  }
}

export class NameTaken extends ApiError {
  override readonly name: string = 'NameTaken';
  constructor(detail = 'Another record of this tenant already has this name.') {
    super(problemKinds.nameTaken, detail, { errors: [{ pointer: '/Name', detail: 'already in use' }] });
  }
}

export class StaleVersion extends ApiError {
  override readonly name: string = 'StaleVersion';
  /** `at`: where the client named the Version it read (the body's `/Version`, or a query's `Version`). */
  constructor(detail = 'The record was changed by someone else; fetch it again and retry.', at: FieldError = { pointer: '/Version', detail: 'stale' }) {
    super(problemKinds.staleVersion, detail, { errors: [at] });
  }
}

export class Conflict extends ApiError {
  override readonly name: string = 'Conflict';
  constructor(detail: string) {
    super(problemKinds.conflict, detail);
  }
}

export class PayloadTooLarge extends ApiError {
  override readonly name: string = 'PayloadTooLarge';
  constructor(limitBytes: number, detail = `The request body exceeds ${limitBytes} bytes.`) {
    super(problemKinds.payloadTooLarge, detail);
  }
}

/**
 * A record too large for one DynamoDB item (400 KB, attribute names included): 413 with the size and the limit, in the
 * detail and as extension members, and the attribute that takes the most.
 */
export class ItemTooLarge extends ApiError {
  override readonly name: string = 'ItemTooLarge';
  constructor(bytes: number, limitBytes: number, largestAttribute: string, detail?: string) {
    super(
      problemKinds.recordTooLarge,
      detail ??
        `The record would take ${bytes} bytes in storage; at most ${limitBytes} bytes can be stored in one record` +
          (largestAttribute ? ` (the largest field is ${largestAttribute}).` : '.'),
      { extensions: { ItemSize: bytes, ItemSizeLimit: limitBytes, ...(largestAttribute ? { LargestField: largestAttribute } : {}) } },
    );
  }
}

/** 412: an `If-Match` naming an entity tag; the API serves none, so the condition is false (shared/http/middlewares/preconditions.ts). */
export class PreconditionFailed extends ApiError {
  override readonly name: string = 'PreconditionFailed';
  constructor() {
    super(problemKinds.preconditionFailed, "If-Match names an entity tag, and this API serves none: nothing was done. A write is conditional on the body's Version (409 stale-version when it moved).");
  }
}

/**
 * The answer would be larger than a Lambda function may answer (6 MB, the whole response): API Gateway would answer
 * 502 for it. The request is valid; what it asks for does not fit one answer (GetAll of a tenant whose locations hold
 * megabytes of text), so the client is told to ask for less (Search pages it) rather than shown a failure.
 */
export class AnswerTooLarge extends ApiError {
  override readonly name: string = 'AnswerTooLarge';
  constructor(bytes: number, limitBytes: number) {
    super(problemKinds.answerTooLarge, `The answer would take ${bytes} bytes; an answer can be at most ${limitBytes}. Ask for less: a search answers page by page.`, {
      extensions: { AnswerSize: bytes, AnswerSizeLimit: limitBytes },
    });
  }
}

export class UnsupportedMediaType extends ApiError {
  override readonly name: string = 'UnsupportedMediaType';
  constructor(accepted: readonly string[]) {
    super(problemKinds.unsupportedMediaType, `Send the body as one of: ${accepted.join(', ')}.`, {
      headers: { 'Accept-Post': accepted.join(', ') },
    });
  }
}

export class NotAcceptable extends ApiError {
  override readonly name: string = 'NotAcceptable';
  constructor(produced: readonly string[], detail = `This operation can answer with: ${produced.join(', ')}.`) {
    super(problemKinds.notAcceptable, detail);
  }
}

export class ServiceUnavailable extends ApiError {
  override readonly name: string = 'ServiceUnavailable';
  constructor(detail: string, retryAfterSeconds: number, cause?: unknown) {
    super(problemKinds.serviceUnavailable, detail, { headers: { 'Retry-After': String(retryAfterSeconds) }, cause });
  }
}

/**
 * 504: a write ran out of time (the function's early timeout, or a request to a dependency that timed out) while what
 * it sent may still commit. No Retry-After: the answer does not invite a blind retry (shared/http/README.md, "A write
 * that runs out of time").
 */
export class WriteOutcomeUnknown extends ApiError {
  override readonly name: string = 'WriteOutcomeUnknown';
  constructor(cause?: unknown) {
    super(
      problemKinds.gatewayTimeout,
      'The operation did not finish in time and its changes may still be applied. Read the result before sending it again, or send it again with the same Idempotency-Key, which is never applied twice.',
      { cause },
    );
  }
}

/** A conditional write lost a race with another writer; the domain may retry, else the caller gets 409. */
export class ConcurrentModification extends ApiError {
  override readonly name: string = 'ConcurrentModification';
  constructor(detail = 'The record changed while this request was saving it; retry.') {
    super(problemKinds.conflict, detail);
  }
}

/** A requested status change the record's lifecycle does not allow; the detail and `allowed` name those it does. */
export class InvalidTransition extends ApiError {
  override readonly name: string = 'InvalidTransition';
  readonly allowed: readonly string[];

  constructor(from: string, to: string, allowed: readonly string[], pointer = '/Value/Status') {
    const choices = allowed.length > 0 ? `allowed now: ${allowed.join(', ')}` : 'no status change is allowed now';
    super(problemKinds.conflict, `The status cannot change from ${from} to ${to}; ${choices}.`, {
      errors: [{ pointer, detail: choices }],
    });
    this.allowed = allowed;
  }
}

/** A change to a record that is read-only in its current state; `errors` points at each field that would change. */
export class ReadOnlyRecord extends ApiError {
  override readonly name: string = 'ReadOnlyRecord';
  constructor(detail: string, pointers: readonly string[]) {
    super(problemKinds.conflict, detail, { errors: pointers.map((pointer) => ({ pointer, detail: 'read-only' })) });
  }
}

/** The tenant has taken every value of one of its sequences (IDs are 32-bit): 409, naming the sequence. */
export class SequenceExhausted extends Conflict {
  override readonly name: string = 'SequenceExhausted';
  constructor(description: string) {
    super(`This tenant has used every ${description}.`);
  }
}

/** A versioned write found another Version stored than the one it read: retried, or StaleVersion when the client named it. */
export class VersionConflict extends ConcurrentModification {
  override readonly name: string = 'VersionConflict';
  constructor(detail = 'The record was changed by someone else while this request was saving it; retry.') {
    super(detail);
  }
}

/** A reference number another record of the tenant holds (409, pointing at the field). */
export class ReferenceTaken extends ApiError {
  override readonly name: string = 'ReferenceTaken';
  constructor(detail: string, pointer: string) {
    super(problemKinds.conflict, detail, { errors: [{ pointer, detail: 'already in use' }] });
  }
}

const dependencyDownErrors = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalServerError',
  'InternalFailure',
  'TimeoutError',
  'RequestTimeout',
  'TransactionInProgressException',
  // A single-item write refused while a transaction held its item (nothing written), still refused after the
  // caller's resends (a sequence's take behind a give-back: data/sequence.ts): contention, not a bug (it was a 500).
  'TransactionConflictException',
  // shared/data/transaction.ts: a transaction cancelled for capacity, still refused after its resends.
  'TransactionThrottled',
  // shared/data/snapshot.ts: a read at one moment refused while transactions held its items, past its resends.
  'SnapshotContended',
  // shared/data/client.ts: keys of a batch read DynamoDB left unprocessed (its capacity), past its resends.
  'BatchReadUnprocessed',
]);
const networkErrorCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** True when an error means a dependency (DynamoDB, SQS, ...) is unavailable rather than our code being wrong. */
export const isDependencyUnavailable = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  const fault = (error as { $fault?: unknown }).$fault;
  return (
    dependencyDownErrors.has(error.name) ||
    (typeof code === 'string' && networkErrorCodes.has(code)) ||
    (fault === 'server' && (error as { $metadata?: unknown }).$metadata !== undefined)
  );
};

/**
 * True when a failure says only that the work could not be done now: a dependency down or throttling (above), a 503
 * of the service's own, contention past its retries, or a write whose outcome is unknown. Trying the same work later
 * may succeed; such a failure never decides an outcome for good (a queued refund is never marked Failed for it).
 */
export const isTransientFailure = (error: unknown): boolean =>
  isDependencyUnavailable(error) || error instanceof ServiceUnavailable || error instanceof WriteOutcomeUnknown || error instanceof ConcurrentModification;
