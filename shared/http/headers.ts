// HTTP conventions: headers every response carries, from a function or from the gateway itself.

/** Name of the response header that carries the request id (also `instance` of every problem). */
export const requestIdHeader = 'X-Request-Id';

/** An API serves data, never pages: forbid framing, sniffing, caching and any active content. */
export const securityHeaders: Readonly<Record<string, string>> = {
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
