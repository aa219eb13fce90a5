// HTTP middleware: header names are case-insensitive (RFC 9110 §5.1), but API Gateway keys the event's maps by the
// names as sent.
import { ambiguousOnceOnlyHeader, eventHeaderLines, normalizedHeaderMaps } from '#shared/http/header-lines';
import type { HttpMiddleware } from './request';

/**
 * Replaces both header maps by their case-insensitive form (lower-case names, every line kept: `header-lines.ts`), so
 * no reader can pick one of `Content-Type` and `content-type`, and writes a once-only header that several lines carry,
 * or whose `headers` and `multiValueHeaders` disagree, to `request.internal.ambiguousHeader` for
 * `refuse-ambiguous-headers.ts`. (@middy/http-header-normalizer, used before, kept whichever case form it met last,
 * and so hid the conflict.)
 */
export const caseInsensitiveHeaders = (): HttpMiddleware => ({
  before: (request) => {
    const inspected = eventHeaderLines(request.event);
    Object.assign(request.event, normalizedHeaderMaps(inspected.lines));
    request.internal.ambiguousHeader = ambiguousOnceOnlyHeader(inspected);
  },
});
