// HTTP middleware: conditional requests (RFC 9110 §13). This API serves no entity tags (a write is conditional on the
// body's `Version`, 409 `stale-version`), so `If-Match` naming a tag cannot be true: the method is not performed and
// the answer is 412 (§13.1.1: an origin server MUST NOT perform the method when the condition is false; ignoring the
// header performed it). `If-Match: *` is true of every operation's target. `If-Unmodified-Since` is ignored, as §13.1.4
// requires of a resource without a modification date; `If-None-Match` and `If-Modified-Since` may be ignored (§13.2.1:
// no representation is selected by them here, a GET answers the current one).
import { PreconditionFailed } from '#shared/errors';
import { headerOf, type HttpMiddleware } from './request';

/** Whether an If-Match field value is `*` (the only value that can be true here). */
const matchesAny = (value: string): boolean => value.trim() === '*';

export const preconditions = (): HttpMiddleware => ({
  before: (request) => {
    const ifMatch = headerOf(request.event, 'if-match');
    if (ifMatch !== undefined && !matchesAny(ifMatch)) throw new PreconditionFailed();
  },
});
