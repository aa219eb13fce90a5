// OpenAPI document: the RFC 9457 problem responses and the response headers every operation shares, written once
// as components. Titles and problem types come from shared/errors.ts, so the document cannot drift from them.
import { problemKinds } from '#shared/errors';
import { failureOutcome } from '#shared/http/failure-outcome';
import { requestIdHeader } from '#shared/http/headers';
import { limits } from '#shared/schemas/common';
import { schemaRefPrefix } from './component-schemas';
import type { HeaderObject, JsonObject, ReferenceObject, ResponseObject, SchemaObject } from './types';

export const problemSchemaName = 'Problem';

/** Request ids are UUIDs (API Gateway's and the local gateway's); the bound leaves room for any other id form. */
const requestIdMaxLength = 64;
/** The most seconds a Retry-After of this service asks for (the gateway's throttle says 1, a dependency down 2). */
const retryAfterMaxSeconds = 3_600;

/** RFC 9457 Appendix B: the XML form is `<problem xmlns="urn:ietf:rfc:7807">`, list members are `<i>` elements. */
export const problemSchema: SchemaObject = {
  type: 'object',
  description:
    'Problem details (RFC 9457). `type` names the kind of problem (`about:blank` when the status says it all), ' +
    '`instance` is the request id, `errors` lists each invalid field of a 400 or 403. The extension members ' +
    "`IsSuccess` (false), `Messages` and `ErrorCode` (the status) are the platform's outcome members, so a client " +
    'of the platform that checks `IsSuccess` reads problems too.',
  properties: {
    type: {
      type: 'string',
      format: 'uri-reference',
      maxLength: limits.url,
      default: 'about:blank',
      description: 'URI naming the problem type; `tag:business-platform.api,2026:problems/<slug>` for our own types.',
    },
    title: {
      type: 'string',
      maxLength: limits.shortText,
      description: 'Short summary of the problem type; the same for every occurrence.',
    },
    status: { type: 'integer', format: 'int32', minimum: 100, maximum: 599, description: 'The HTTP status code.' },
    detail: {
      type: 'string',
      maxLength: limits.longText,
      description: 'What went wrong with this request. Never carries internal details.',
    },
    instance: { type: 'string', maxLength: requestIdMaxLength, description: 'The request id, also sent as the X-Request-Id header.' },
    errors: {
      type: 'array',
      description: 'One entry per invalid input: a body field (`pointer`) or a path or query parameter (`parameter`).',
      items: {
        type: 'object',
        properties: {
          pointer: {
            type: 'string',
            format: 'json-pointer',
            description: 'JSON Pointer (RFC 6901) to the field in the body, e.g. `/Address/City`; empty for the whole body.',
          },
          parameter: { type: 'string', description: 'Name of the path or query parameter.' },
          detail: { type: 'string', maxLength: limits.longText, description: 'What is wrong with it.' },
        },
        required: ['detail'],
        oneOf: [{ required: ['pointer'] }, { required: ['parameter'] }],
        additionalProperties: false,
        xml: { name: 'i' },
      },
      xml: { wrapped: true },
    },
    IsSuccess: {
      type: 'boolean',
      const: false,
      description: "Always false: the platform's outcome member, for clients that check IsSuccess.",
    },
    Messages: {
      type: 'array',
      description: 'The detail, then each entry of `errors` as text (`/Name: must be at most 200 characters`).',
      items: { type: 'string', xml: { name: 'i' } },
      xml: { wrapped: true },
    },
    ErrorCode: { type: 'integer', format: 'int32', minimum: 100, maximum: 599, description: 'The HTTP status code.' },
  },
  required: ['type', 'title', 'status', 'detail', 'instance', 'IsSuccess', 'Messages', 'ErrorCode'],
  xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' },
};

export const headerNames = {
  requestId: requestIdHeader,
  retryAfter: 'Retry-After',
  wwwAuthenticate: 'WWW-Authenticate',
  location: 'Location',
  acceptPost: 'Accept-Post',
  acceptEncoding: 'Accept-Encoding',
} as const;

export const headerComponents: Record<string, HeaderObject> = {
  [headerNames.requestId]: {
    description: 'Identifies the request (the `instance` of a problem). Quote it when reporting an issue.',
    required: true,
    schema: { type: 'string', maxLength: requestIdMaxLength },
  },
  [headerNames.retryAfter]: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: retryAfterMaxSeconds },
  },
  [headerNames.wwwAuthenticate]: {
    description: 'How to authenticate: `Bearer realm="api"` (the webhook: `Signature realm="webhook"`).',
    schema: { type: 'string', maxLength: limits.shortText },
  },
  [headerNames.location]: {
    description: 'URL of the created resource.',
    schema: { type: 'string', format: 'uri-reference', maxLength: limits.url },
  },
  [headerNames.acceptPost]: {
    description: 'The request media types this operation accepts, comma-separated.',
    schema: { type: 'string', maxLength: limits.shortText },
  },
  [headerNames.acceptEncoding]: {
    description: 'The content codings a request body may have: `identity` only (no coding is decoded).',
    schema: { type: 'string', const: 'identity' },
  },
};

export const headerRef = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

const problemDescriptions: Readonly<Record<number, string>> = {
  400: 'The request is malformed or not valid; `errors` lists each invalid field.',
  401:
    'No valid credentials: the bearer token is missing, malformed, expired or lacks tenancy claims ' +
    '(the webhook: its signature is missing, stale or wrong).',
  403: "The token does not allow this request, or a tenancy field of the body differs from the caller's token.",
  404: 'The resource does not exist, or belongs to another tenant.',
  406: 'None of the media types in Accept can be produced.',
  409: 'The request conflicts with the stored state: the name is already in use, or the Version sent is stale.',
  412: "If-Match names an entity tag: this API serves none, so the condition is false and nothing was done (RFC 9110 13.1.1). A write is conditional on the body's Version instead.",
  413:
    `The body exceeds ${limits.requestBodyBytes} bytes (the gateway refuses anything above 10 MB), or the request ` +
    'line and header values exceed the gateway\'s 10,240 bytes. Or (`record-too-large`) the record would not fit one ' +
    'stored item (DynamoDB\'s 400 KB, names included): `ItemSize` and `ItemSizeLimit` give its size and the limit in ' +
    'bytes, `LargestField` the field that takes the most.',
  422:
    'The request is understood but cannot be carried out: an Idempotency-Key reused for another request ' +
    '(`idempotency-key-reused`: send a new key), or an answer larger than a function may give, 6 MB ' +
    '(`answer-too-large`: `AnswerSize` and `AnswerSizeLimit` in bytes; ask for less, a search answers page by page).',
  415:
    'The Content-Type of the body is not accepted (Accept-Post lists those that are), or the body has a ' +
    'Content-Encoding other than identity (Accept-Encoding says so).',
  429: 'Too many requests: the stage throttle refused this one; retry after Retry-After seconds.',
  500: 'The request could not be completed. The detail reveals nothing internal.',
  502: "The operation's function failed to answer.",
  503: 'A service this operation depends on is unavailable or throttling; retry after Retry-After seconds.',
  504: 'The operation did not answer in time.',
};

export const problemResponseName = (status: number): string => `Problem${status}`;

const problemRef: SchemaObject = { $ref: `${schemaRefPrefix}${problemSchemaName}` };

export const problemResponse = (status: number): ResponseObject => {
  const kinds = Object.values(problemKinds).filter((kind) => kind.status === status);
  const first = kinds[0];
  if (first === undefined) throw new Error(`shared/errors.ts has no problem kind with status ${status}`);
  const types = [...new Set(kinds.map((kind) => `\`${kind.type}\``))].join(', ');
  const headers: Record<string, ReferenceObject> = { [headerNames.requestId]: headerRef(headerNames.requestId) };
  if (status === 401) headers[headerNames.wwwAuthenticate] = headerRef(headerNames.wwwAuthenticate);
  if (status === 415) {
    headers[headerNames.acceptPost] = headerRef(headerNames.acceptPost);
    headers[headerNames.acceptEncoding] = headerRef(headerNames.acceptEncoding);
  }
  if (status === 429 || status === 503) headers[headerNames.retryAfter] = headerRef(headerNames.retryAfter);
  const detail = problemDescriptions[status] ?? first.title;
  const example: JsonObject = {
    type: first.type,
    title: first.title,
    status,
    detail,
    instance: 'c0b5a7e2-9d2f-4f55-8d0e-6a3c1f2b9e41',
    ...failureOutcome(status, detail),
  };
  return {
    description: `${detail} Problem types: ${types}.`,
    headers,
    content: {
      'application/problem+json': { schema: problemRef, example },
      'application/problem+xml': { schema: problemRef },
    },
  };
};
