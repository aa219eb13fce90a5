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

/**
 * The Content-Security-Policy of responses the gateway makes itself. A gateway-response header is a static literal
 * between single quotes with no escape for a quote inside it, so `'none'` cannot be written there. `sandbox` needs
 * no quotes and is as strict for these bodies: a problem document opened in a browser gets an opaque origin with no
 * scripts, plugins, forms or popups. Framing stays forbidden by X-Frame-Options: DENY.
 */
export const gatewayContentSecurityPolicy = 'sandbox';

/** Security headers of gateway-made responses, on AWS (CDK gateway responses) and locally (the local gateway). */
export const gatewaySecurityHeaders: Readonly<Record<string, string>> = {
  ...securityHeaders,
  'Content-Security-Policy': gatewayContentSecurityPolicy,
};
