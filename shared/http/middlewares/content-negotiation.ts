// HTTP middleware: the response's media type is chosen first (406 before any work), and the handler's answer is
// serialised into it.
import { AnswerTooLarge, NotAcceptable } from '#shared/errors';
import type { CompiledOperation } from '#shared/operations/compiled-operation';
import { holdsNonXmlText, serializeXml } from '#shared/http/codecs/xml';
import { isXmlMediaType, negotiate, responseMediaTypes } from '#shared/http/media';
import { isHttpResult, respond } from '#shared/http/result';
import { headerOf, type HttpMiddleware } from './request';

/**
 * The most a function's answer may take: Lambda's 6 MB (6,291,456 bytes) for the whole response, its headers and the
 * body as a JSON string (escaped), less a margin for what the runtime adds. Past it Lambda fails the invocation and
 * API Gateway answers 502; the function answers 422 `answer-too-large` instead (errors.ts AnswerTooLarge).
 */
export const maxAnswerBytes = 6_000_000;

/** The bytes of the answer's body as it travels in the function's response (a JSON string). */
const answerBytes = (body: string): number => {
  const plain = Buffer.byteLength(body);
  // Escaping writes a quote or a backslash as two bytes, a control character as six: measured only when it could matter.
  return plain * 6 < maxAnswerBytes ? plain : Buffer.byteLength(JSON.stringify(body));
};

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
        // A record holding text XML cannot carry is refused as XML (406), never sent changed.
        if (isXmlMediaType(type) && holdsNonXmlText(result.body)) {
          throw new NotAcceptable(available, 'This answer holds characters XML 1.0 cannot carry (control characters): ask for it as application/json, which carries them exactly.');
        }
        body = isXmlMediaType(type) ? serializeXml(xmlRoot, result.body) : JSON.stringify(result.body);
        const bytes = answerBytes(body);
        if (bytes > maxAnswerBytes) throw new AnswerTooLarge(bytes, maxAnswerBytes);
      }
      if (operation.media === 'standard') headers.Vary = 'Accept';
      request.response = { statusCode: result.body === undefined && result.status === 200 ? 204 : result.status, headers, body };
    },
  };
};
