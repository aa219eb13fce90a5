// HTTP middleware: the response's media type is chosen first (406 before any work), and the handler's answer is
// serialised into it.
import { NotAcceptable } from '#shared/errors';
import type { CompiledOperation } from '#shared/operations/compiled-operation';
import { serializeXml } from '#shared/http/codecs/xml';
import { isXmlMediaType, negotiate, responseMediaTypes } from '#shared/http/media';
import { isHttpResult, respond } from '#shared/http/result';
import { headerOf, type HttpMiddleware } from './request';

/** Writes `request.internal.responseType` before; replaces `request.response` by the serialised answer after. */
export const contentNegotiation = (operation: Pick<CompiledOperation, 'media' | 'success'>): HttpMiddleware => {
  const available = responseMediaTypes[operation.media];
  const xmlRoot = operation.success?.xmlRoot ?? { name: 'Response' };
  return {
    before: (request) => {
      const chosen = negotiate(headerOf(request.event, 'accept'), available);
      if (!chosen) throw new NotAcceptable(available);
      request.internal.responseType = chosen;
    },
    after: (request) => {
      const answer = request.response;
      const result = isHttpResult(answer) ? answer : respond(operation.success?.status ?? 200, answer);
      const type = request.internal.responseType ?? available[0];
      const headers: Record<string, string> = { ...result.headers };
      let body = '';
      if (result.body !== undefined) {
        headers['Content-Type'] = `${type}; charset=utf-8`;
        body = isXmlMediaType(type) ? serializeXml(xmlRoot, result.body) : JSON.stringify(result.body);
      }
      if (operation.media === 'standard') headers.Vary = 'Accept';
      request.response = { statusCode: result.body === undefined && result.status === 200 ? 204 : result.status, headers, body };
    },
  };
};
