// HTTP middleware: any error becomes a problem response (XML when the client prefers XML); 5xx are logged with safe
// fields only.
import { WriteOutcomeUnknown } from '#shared/errors';
import type { Invocation } from '#shared/invocation';
import { describeError, logger } from '#shared/observability/logger';
import type { CompiledOperation } from '#shared/operations/compiled-operation';
import { gatewayResponseFromFunction } from '#shared/http/gateway-responses';
import { isXmlMediaType, negotiate, responseMediaTypes } from '#shared/http/media';
import { problemResponse, toApiError } from '#shared/http/problem';
import { GatewayRefusal } from './gateway-refusal';
import { headerOf, requestIdOf, type HttpMiddleware } from './request';

type ProblemOperation = Pick<CompiledOperation, 'media' | 'method'>;

const prefersXml = (operation: ProblemOperation, accept: string | undefined): boolean =>
  operation.media === 'standard' && isXmlMediaType(negotiate(accept, responseMediaTypes[operation.media]) ?? '');

/** An operation whose method may write (anything but GET). */
const mayWrite = (operation: ProblemOperation): boolean => operation.method !== 'GET';

/**
 * The rule of a write whose outcome is unknown (README.md, "A write that runs out of time"): middy's early timeout, or
 * a request to a dependency that timed out (`TimeoutError` both), leaves what the write sent in flight, and it may
 * still commit; so does a failure after a write of the invocation that may have landed (a timed-out, broken or 5xx
 * attempt whose resends failed too: shared/data/write-outcome.ts), whatever error ends the request. A read answers
 * 503 with Retry-After (a retry is harmless); a write answers 504 without it, and says that only a retry with the same
 * Idempotency-Key is safe. A refusal of the service's own (a 4xx) is answered as it is.
 */
const answerOf = (operation: ProblemOperation, error: unknown, invocation: Invocation | undefined) => {
  if (!mayWrite(operation)) return toApiError(error);
  if (error instanceof Error && error.name === 'TimeoutError') return new WriteOutcomeUnknown(error);
  const answer = toApiError(error);
  return answer.status >= 500 && invocation?.writes?.uncertain === true ? new WriteOutcomeUnknown(error) : answer;
};

/** Writes `request.response`: the problem of `request.error`, or the gateway's own response for a `GatewayRefusal`. */
export const problemResponses = (operation: ProblemOperation): HttpMiddleware => ({
  onError: (request) => {
    if (request.error instanceof GatewayRefusal) {
      logger.info('request refused', { status: 401, reason: request.error.message });
      request.internal.gatewayAnswer = true;
      request.response = gatewayResponseFromFunction(request.error.type, requestIdOf(request));
      return;
    }
    const error = answerOf(operation, request.error, request.context.invocation);
    if (error.status >= 500) logger.error('request failed', describeError(request.error));
    else logger.info('request refused', { status: error.status, problemType: error.kind.type });
    request.response = problemResponse(error, requestIdOf(request), prefersXml(operation, headerOf(request.event, 'accept')));
  },
});
