// HTTP middleware: path, query and body parsed, coerced and validated, then handed to the handler on the request's
// context (`request.context.operationRequest`). The validator is one call, `validate(validator, value, location)` of
// ../validation.ts, for each part of the request: the validators ajv compiled from the OpenAPI document. The handler
// receives what was validated (JSON exactly as sent; XML and form values coerced by the body's shape; the tenancy
// fields filled), never a value the validator did not see.
import { ApiError, MalformedBody, PayloadTooLarge, problemKinds, UnsupportedMediaType, ValidationFailed } from '#shared/errors';
import type { CompiledOperation } from '#shared/operations/compiled-operation';
import { limits } from '#shared/schemas/limits';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { coerceToShape, type CoercionMode } from '#shared/http/codecs/coerce';
import { parseForm } from '#shared/http/codecs/form';
import { parseJsonBody } from '#shared/http/codecs/json';
import { assertJsonNumbersStorable } from '#shared/http/codecs/json-numbers';
import { loadXmlParser, parseXml, xmlDeclaredEncoding } from '#shared/http/codecs/xml';
import { acceptedContentCodings, isShortToken, parseMediaType, requestMediaTypes, unsupportedContentCoding, type BodyFormat } from '#shared/http/media';
import { setOwn } from '#shared/http/header-lines';
import { applyTenancy } from '#shared/http/tenancy';
import { validate } from '#shared/http/validation';
import { undeclaredMemberDetail } from '#shared/validation/document';
import type { ParameterTypes } from '#shared/validation/shape';
import { headerOf, requestIdOf, type HttpMiddleware, type OperationRequest } from './request';

type ParsedOperation = Pick<CompiledOperation, 'media' | 'maxBodyBytes' | 'pathParameters' | 'query' | 'requestBody' | 'document' | 'parameterWords'>;

/**
 * A body in a content coding the service does not decode (any but `identity`) is refused with 415 naming the coding,
 * and `Accept-Encoding` says which codings would have been accepted (RFC 9110 §15.5.16). Every header line counts.
 */
const refuseContentCoding = (event: APIGatewayProxyEvent): void => {
  if (event.body === null || event.body === undefined || event.body === '') return;
  const single = headerOf(event, 'content-encoding');
  const coding = unsupportedContentCoding([...(event.multiValueHeaders?.['content-encoding'] ?? []), ...(single === undefined ? [] : [single])]);
  if (coding === undefined) return;
  const named = isShortToken(coding) ? `"${coding}"` : 'a content coding';
  throw new ApiError(
    problemKinds.unsupportedMediaType,
    `The body is encoded with ${named}, which this API does not decode; send it without a content coding.`,
    { headers: { 'Accept-Encoding': acceptedContentCodings.join(', ') } },
  );
};

/** A body's text, and whether its bytes were UTF-8 (`utf8` false: `text` holds U+FFFD where they were not). */
export interface BodyText {
  readonly text: string;
  readonly utf8: boolean;
}

// Fatal: a byte sequence that is not UTF-8 is an error, not U+FFFD. ignoreBOM keeps a leading BOM in the text, as a
// text event (and Buffer#toString) has it, so a BOM is read the same whichever way the body arrived.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body's text, within `maxBytes` (413 beyond). The API declares every request media type binary
 * (infra/constructs/operations-api.ts), so API Gateway hands such a body over base64-encoded with the bytes the client
 * sent, and they are decoded strictly here: bytes that are not UTF-8 (Latin-1 "café", FF FE) are reported, never
 * read as U+FFFD. A text event (isBase64Encoded false: another media type, or an event built in a test) is already
 * text and is taken as it is. The size is of the bytes: a base64 body is bounded before it is decoded.
 */
export const decodeBody = (event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>, maxBytes: number): BodyText => {
  if (event.body === null || event.body === undefined) return { text: '', utf8: true };
  if (!event.isBase64Encoded) {
    if (Buffer.byteLength(event.body, 'utf8') > maxBytes) throw new PayloadTooLarge(maxBytes);
    return { text: event.body, utf8: true };
  }
  const padding = event.body.endsWith('==') ? 2 : event.body.endsWith('=') ? 1 : 0;
  if (Math.floor((event.body.length * 3) / 4) - padding > maxBytes) throw new PayloadTooLarge(maxBytes);
  const bytes = Buffer.from(event.body, 'base64');
  if (bytes.length > maxBytes) throw new PayloadTooLarge(maxBytes);
  try {
    return { text: strictUtf8.decode(bytes), utf8: true };
  } catch {
    return { text: bytes.toString('utf8'), utf8: false };
  }
};

/** The charsets a body may be in: UTF-8, and ASCII, which is UTF-8 too. */
const readableCharsets: readonly string[] = ['utf-8', 'utf8', 'us-ascii'];

/**
 * The body's format, from its media type; 415 for a type the operation does not read, or a charset other than UTF-8
 * wherever it is stated: the `charset` parameter, or the encoding an XML body declares (`<?xml ... encoding=...?>`,
 * which a reader follows when the media type names no charset, RFC 7303 §3.2): the text is read as UTF-8, so any
 * other would be read as something the client did not send.
 */
const bodyFormatOf = (operation: ParsedOperation, contentType: string | undefined, text: string): { format: BodyFormat; ascii: boolean } => {
  const accepted = requestMediaTypes[operation.media] as Readonly<Record<string, BodyFormat>>;
  const acceptedList = Object.keys(accepted);
  const media = contentType === undefined ? undefined : parseMediaType(contentType);
  const format = media && Object.hasOwn(accepted, media.type) ? accepted[media.type] : undefined;
  const charset = media?.parameters.charset?.toLowerCase();
  const declared = format === 'xml' ? xmlDeclaredEncoding(text)?.toLowerCase() : undefined;
  if (!format || [charset, declared].some((named) => named !== undefined && !readableCharsets.includes(named))) {
    throw new UnsupportedMediaType(acceptedList);
  }
  return { format, ascii: [charset, declared].includes('us-ascii') };
};

/** Characters beyond US-ASCII (a body that declares `us-ascii` must hold none: it would be read as UTF-8 instead). */
const beyondAscii = /[^\u0000-\u007f]/;

/**
 * Content-Type is a singleton field (RFC 9110 §5.3): lines that disagree leave the body's type unknown, so the body is
 * refused (415) rather than read as whichever line came last, as API Gateway's `headers` map would have it.
 */
const contentTypeOf = (event: APIGatewayProxyEvent): string | undefined => {
  const lines = new Set((event.multiValueHeaders?.['content-type'] ?? []).map((value) => value.trim().toLowerCase()));
  return lines.size > 1 ? undefined : headerOf(event, 'content-type');
};

/** How each format's values are coerced to the shape (codecs/coerce.ts): XML alone writes list wrappers. */
const coercionModes = { json: 'typed', xml: 'text', form: 'form' } as const satisfies Record<BodyFormat, CoercionMode>;

const decoders: Record<BodyFormat, (text: string) => unknown | Promise<unknown>> = {
  // Well-formed, within the depth bound, no member named twice (codecs/json.ts), then every number storable exactly
  // as written (codecs/json-numbers.ts).
  json: (text) => {
    const decoded = parseJsonBody(text);
    assertJsonNumbersStorable(text);
    return decoded;
  },
  // The parser library is loaded on the first XML body, never at cold start (codecs/xml.ts).
  xml: async (text) => {
    await loadXmlParser();
    return parseXml(text);
  },
  form: parseForm,
};

/**
 * The query parameters of an operation that reads them: each may appear once. A parameter sent twice (`?a=1&a=2`) is
 * refused (400, naming it) rather than read as whichever came last, which is all `queryStringParameters` keeps.
 */
const singleQueryParameters = (event: APIGatewayProxyEvent): Record<string, string | undefined> => {
  const repeated = Object.entries(event.multiValueQueryStringParameters ?? {})
    .filter(([, values]) => (values?.length ?? 0) > 1)
    .map(([parameter]) => ({ parameter, detail: 'appears more than once: send it once' }));
  if (repeated.length > 0) throw new ValidationFailed(repeated);
  return event.queryStringParameters ?? {};
};

/**
 * An operation that reads no query refuses every parameter sent (400, naming each), as a query the operation reads
 * refuses the ones it does not declare: a parameter sent by mistake (`/TenantLocation/Get/5?addressType=Billing`) is
 * refused rather than silently ignored.
 */
const refuseUndeclaredQuery = (event: APIGatewayProxyEvent): undefined => {
  const sent = Object.keys(event.multiValueQueryStringParameters ?? event.queryStringParameters ?? {});
  if (sent.length > 0) throw new ValidationFailed(sent.map((parameter) => ({ parameter, detail: undeclaredMemberDetail })));
  return undefined;
};

const integerText = /^(?:0|-?[1-9][0-9]*)$/;
const numberText = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * A parameter's text as OpenAPI's simple style reads it for its declared type: an integer in plain decimal (no sign
 * but `-`, no leading zero, exponent or space, and no `-0`: the same integer as `0`, written another way), a number in JSON's form, `true` or `false`. Any other text stays text,
 * so the validator refuses it as the wrong type rather than reading `1e3` or ` 5` as a number.
 */
const parameterValue = (type: ParameterTypes[string] | undefined, text: string): unknown => {
  if (type === 'integer' && integerText.test(text)) return Number(text);
  if (type === 'number' && numberText.test(text)) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
};

/**
 * The parameters sent, typed by their declaration (a parameter the operation does not declare stays text). Each is an
 * own member, whatever its name: `?__proto__=x` assigned as `values[name]` set the prototype instead, so a strict
 * query never saw it.
 */
const typedParameters = (types: ParameterTypes, sent: Record<string, string | undefined>): Record<string, unknown> => {
  const values: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(sent)) {
    if (text !== undefined) setOwn(values, name, parameterValue(Object.hasOwn(types, name) ? types[name] : undefined, text));
  }
  return values;
};

/** The declared parameters only: the handler never sees one the operation does not declare. */
const declaredParameters = (types: ParameterTypes, values: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(values).filter(([name]) => Object.hasOwn(types, name)));

/** Path or query parameters, typed and validated; undefined when the operation declares none. */
const readParameters = (operation: ParsedOperation, location: 'path' | 'query', sent: Record<string, string | undefined>) => {
  const types = location === 'path' ? operation.pathParameters : operation.query;
  if (!types) return undefined;
  const values = typedParameters(types, sent);
  validate(operation.document[location], values, location, operation.parameterWords);
  return declaredParameters(types, values);
};

/**
 * Path and query validated, then the body: size, coding, media type, decoding, coercion, tenancy at every depth
 * (`request.internal.principal`, from `authenticate.ts`), validation. Writes the handler's input to
 * `request.context.operationRequest`.
 */
export const parseRequest = (operation: ParsedOperation): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    const { principal } = request.internal;

    const path = readParameters(operation, 'path', event.pathParameters ?? {});
    const query = operation.query ? readParameters(operation, 'query', singleQueryParameters(event)) : refuseUndeclaredQuery(event);

    // An operation without a body never reads one, so only a body it would read is refused for its coding.
    if (operation.requestBody) refuseContentCoding(event);
    const { text: rawBody, utf8 } = decodeBody(event, operation.maxBodyBytes ?? limits.requestBodyBytes);
    let body: unknown;
    if (operation.requestBody && rawBody.trim() !== '') {
      const { format, ascii } = bodyFormatOf(operation, contentTypeOf(event), rawBody);
      // After the media type: a body that states another charset is refused for it (415), which says more.
      if (!utf8) throw new MalformedBody('The body is not valid UTF-8: send its text encoded in UTF-8.');
      // A form's percent-escapes stand for bytes of its charset: one of a byte past 0x7F is not US-ASCII either.
      if (ascii && (beyondAscii.test(rawBody) || (format === 'form' && /%[89a-f][0-9a-f]/i.test(rawBody)))) {
        throw new MalformedBody('The body declares US-ASCII but holds other characters: declare UTF-8 (or no charset) and send it encoded in UTF-8.');
      }
      const decoded = await decoders[format](rawBody);
      if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) {
        throw new ValidationFailed([{ pointer: '', detail: 'the body must be an object' }]);
      }
      const xml = format === 'xml' && operation.requestBody.xmlShape !== undefined;
      const shape = xml ? (operation.requestBody.xmlShape ?? operation.requestBody.shape) : operation.requestBody.shape;
      const coerced = coerceToShape(decoded, shape, coercionModes[format]);
      body = principal ? applyTenancy(coerced, principal, shape) : coerced;
      validate(xml ? operation.document.xmlBody : operation.document.body, body);
    } else if (operation.requestBody?.required) {
      throw new ValidationFailed([{ pointer: '', detail: 'a request body is required' }], 'A request body is required.');
    } else if (operation.requestBody) {
      body = principal ? applyTenancy({}, principal, operation.requestBody.shape) : {};
      validate(operation.document.body, body);
    }

    request.context.operationRequest = {
      body,
      path,
      query,
      principal,
      requestId: requestIdOf(request),
      headers: event.headers ?? {},
      rawBody,
      context: request.context,
    } as OperationRequest<unknown>;
  },
});
