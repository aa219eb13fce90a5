// HTTP middleware: every response carries the request id and the security headers, and every request writes one
// access log line. The logger gets the Lambda context and the request's keys (`requestId`, `operationId`; `tenantId`
// from authenticate.ts) before, and Powertools' `resetKeys()` drops every key appended during the request after the
// line, so nothing of one request's keys reaches the next request's lines.
import type { APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '#shared/observability/logger';
import type { CompiledOperation } from '#shared/operations/compiled-operation';
import { gatewaySecurityHeaders, requestIdHeader, securityHeaders } from '#shared/http/headers';
import { requestIdOf, type HttpMiddleware, type HttpRequest } from './request';

/** Notes the start, the Lambda context and the log keys before; adds the headers, logs the line and resets the keys after. */
export const accessLog = (operation: Pick<CompiledOperation, 'operationId'>): HttpMiddleware => {
  const finish = (request: HttpRequest) => {
    const response = request.response as APIGatewayProxyResult | undefined;
    if (!response) {
      logger.resetKeys();
      return;
    }
    const security = request.internal.gatewayAnswer ? gatewaySecurityHeaders : securityHeaders;
    response.headers = { ...response.headers, ...security, [requestIdHeader]: requestIdOf(request) };
    logger.info('request completed', {
      operationId: operation.operationId,
      status: response.statusCode,
      durationMs: request.internal.startedAt === undefined ? undefined : Date.now() - request.internal.startedAt,
    });
    logger.resetKeys();
  };
  return {
    before: (request) => {
      request.internal.startedAt = Date.now();
      logger.addContext(request.context);
      logger.appendKeys({ requestId: requestIdOf(request), operationId: operation.operationId });
    },
    after: finish,
    onError: finish,
  };
};
