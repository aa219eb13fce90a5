// HTTP conventions: the one place where errors become RFC 9457 problem responses (JSON or XML). A 5xx says nothing
// internal; a dependency that is down or throttling becomes 503 with Retry-After, anything else unexpected is 500.
// Every problem also carries the platform's outcome members (IsSuccess false, Messages, ErrorCode = the status), so a
// client of the platform that checks IsSuccess reads our errors as it reads the platform's.
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, isDependencyUnavailable, problemKinds, ServiceUnavailable, type FieldError } from '#shared/errors';
import { serializeXml } from './codecs/xml';
import { failureOutcome } from './failure-outcome';

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly errors?: readonly FieldError[];
  /** Extension members (RFC 9457 §3.2) the platform's clients read: always false here. */
  readonly IsSuccess: false;
  /** The detail, then each field error as text (`/Name: must be at most 200 characters`). */
  readonly Messages: readonly string[];
  /** The HTTP status. */
  readonly ErrorCode: number;
  /** Extension members of the problem type (RFC 9457 section 3.2), e.g. a refund's RefundableAmount. */
  readonly [extension: string]: unknown;
}

/** Maps anything thrown to an ApiError. Unknown errors become a 500 whose detail reveals nothing. */
export const toApiError = (error: unknown): ApiError => {
  if (error instanceof ApiError) return error;
  if (isDependencyUnavailable(error)) {
    return new ServiceUnavailable('A service this operation depends on is unavailable; retry shortly.', 2);
  }
  return new ApiError(problemKinds.internal, 'The request could not be completed.');
};

export const toProblem = (error: ApiError, requestId: string): Problem => ({
  // Extension members first: they can never replace a member RFC 9457 defines.
  ...error.extensions,
  type: error.kind.type,
  title: error.kind.title,
  status: error.kind.status,
  detail: error.detail,
  instance: requestId,
  ...(error.errors && error.errors.length > 0 ? { errors: error.errors } : {}),
  ...failureOutcome(error.kind.status, error.detail, error.errors),
});

/** RFC 9457 Appendix B: the XML form lives in the urn:ietf:rfc:7807 namespace; list members are `i` elements. */
export const problemXml = (problem: Problem): string =>
  serializeXml(
    { name: 'problem', attributes: { xmlns: 'urn:ietf:rfc:7807' } },
    { ...problem, ...(problem.errors ? { errors: { i: problem.errors } } : {}), Messages: { i: problem.Messages } },
  );

export const problemResponse = (error: ApiError, requestId: string, asXml: boolean): APIGatewayProxyResult => {
  const problem = toProblem(error, requestId);
  return {
    statusCode: problem.status,
    headers: {
      'Content-Type': asXml ? 'application/problem+xml; charset=utf-8' : 'application/problem+json; charset=utf-8',
      ...error.headers,
    },
    body: asXml ? problemXml(problem) : JSON.stringify(problem),
  };
};

