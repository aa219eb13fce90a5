// Test support: what end-to-end tests expect of every response (request id, security headers, problem bodies),
// and a reader that turns a response into one value a single `toEqual` can compare whole.
import { expect } from '@jest/globals';
import type { z } from 'zod';
import { coerceToSchema } from '#shared/http/codecs/coerce';
import { parseXml } from '#shared/http/codecs/xml';
import type { ApiResponse } from './http';

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Written out rather than imported, so a header that silently disappears fails these tests. Lower-case, as fetch reports them. */
export const securityHeaders = {
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
} as const;

/** The security headers of responses the gateway makes itself: CSP `sandbox`, as on AWS (shared/http/headers.ts). */
export const gatewaySecurityHeaders = { ...securityHeaders, 'content-security-policy': 'sandbox' } as const;

/** Headers of the transport or of the gateway's own bookkeeping: true of every response, never asserted whole. */
const transportHeaders = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'x-amz-apigw-id', 'x-amzn-requestid']);

export interface ResponseView {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Parsed JSON for a JSON type, else the raw text ('' when empty). */
  readonly body: unknown;
}

/** The response as one value (status, every header but the transport's, body), without further checks. */
export const responseView = (response: ApiResponse): ResponseView => {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!transportHeaders.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, body: response.json === undefined ? response.text : response.json };
};

/**
 * The response as one value: status, every header but the transport's (lower-case names), and the body. Also checks
 * what holds for every response: X-Request-Id is a UUID, the gateway's x-amzn-RequestId is the same id, and a
 * problem's `instance` is that id too.
 */
export const viewOf = (response: ApiResponse): ResponseView => {
  const view = responseView(response);
  const { headers, body } = view;
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toMatch(uuidPattern);
  expect(response.headers.get('x-amzn-requestid')).toBe(requestId);
  if (/problem\+json/.test(headers['content-type'] ?? '')) expect((body as { instance?: unknown }).instance).toBe(requestId);
  return view;
};

const requestIdHeader = { 'x-request-id': expect.stringMatching(uuidPattern) };

/** Headers of a successful answer of a standard operation in `type` (plus e.g. `location`). */
export const successHeaders = (type: string, extra: Readonly<Record<string, string>> = {}) => ({
  'content-type': `${type}; charset=utf-8`,
  vary: 'Accept',
  ...securityHeaders,
  ...requestIdHeader,
  ...extra,
});

/** Headers of a problem answered by a function (`format` follows the client's preference). */
export const problemHeaders = (format: 'json' | 'xml' = 'json', extra: Readonly<Record<string, string>> = {}) => ({
  'content-type': `application/problem+${format}; charset=utf-8`,
  ...securityHeaders,
  ...requestIdHeader,
  ...extra,
});

/** Headers of a problem answered by the gateway itself (unknown route, missing or refused token, ...): its CSP is
 * `sandbox`, as on AWS, where a gateway-response header cannot carry the quoted 'none'. */
export const gatewayProblemHeaders = (extra: Readonly<Record<string, string>> = {}) => ({
  'content-type': 'application/problem+json',
  ...gatewaySecurityHeaders,
  ...requestIdHeader,
  ...extra,
});

export const problemType = (slug: string) => `tag:business-platform.api,2026:problems/${slug}`;

export interface ExpectedProblem {
  readonly status: number;
  readonly title: string;
  readonly type?: string;
  readonly detail?: string | ReturnType<typeof expect.any>;
  readonly errors?: readonly object[];
}

/**
 * The platform's outcome members every problem carries: IsSuccess false, Messages (the detail, then each field error
 * as `where: what`), ErrorCode (the status). A message built from a matcher is any string.
 */
export const problemOutcome = (status: number, detail: unknown, errors: readonly object[] = []) => ({
  IsSuccess: false,
  Messages: [
    detail,
    ...errors.map((error) => {
      const { pointer, parameter, detail: what } = error as { pointer?: unknown; parameter?: unknown; detail?: unknown };
      const where = pointer ?? parameter;
      if (typeof where !== 'string' || typeof what !== 'string') return expect.any(String);
      return where === '' ? what : `${where}: ${what}`;
    }),
  ],
  ErrorCode: status,
});

/** A problem body; `instance` is the request id (checked against the header by viewOf). */
export const problem = ({ status, title, type = 'about:blank', detail = expect.any(String), errors }: ExpectedProblem) => ({
  type,
  title,
  status,
  detail,
  instance: expect.stringMatching(uuidPattern),
  ...(errors ? { errors } : {}),
  ...problemOutcome(status, detail, errors),
});

export const validationProblem = (errors: readonly object[], detail = 'The request is not valid; see errors for each field.') =>
  problem({ status: 400, title: 'Request validation failed', type: problemType('validation-failed'), detail, errors });

export const malformedProblem = (detail: string | ReturnType<typeof expect.any> = expect.any(String)) =>
  problem({ status: 400, title: 'Malformed request body', type: problemType('malformed-body'), detail });

/** The problem a reserved key (`__proto__`, `constructor`, `prototype`) earns, wherever it appears. */
export const reservedKeyProblem = (pointer: string) =>
  validationProblem([{ pointer, detail: 'this key is not allowed' }], 'The body uses a reserved key.');

/**
 * Reads an XML response the way the service reads an XML request (its own parseXml and coercion), then validates
 * it with the operation's response schema: the result must equal the JSON answer for the same record.
 */
export const parseXmlAs = <S extends z.ZodType>(schema: S, xml: string): z.output<S> =>
  schema.parse(coerceToSchema(parseXml(xml), schema, 'text'));
