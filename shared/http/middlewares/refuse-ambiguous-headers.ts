// HTTP middleware: a once-only header carried ambiguously is refused (400, naming it) before anything reads a header.
import { RepeatedHeader } from '#shared/http/header-lines';
import type { HttpMiddleware } from './request';

/** Throws `RepeatedHeader` for what `case-insensitive-headers.ts` wrote to `request.internal.ambiguousHeader`. */
export const refuseAmbiguousHeaders = (): HttpMiddleware => ({
  before: (request) => {
    if (request.internal.ambiguousHeader) throw new RepeatedHeader(request.internal.ambiguousHeader);
  },
});
