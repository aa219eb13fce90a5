// HTTP middleware: path, query and body parsed, coerced and validated, then handed to the handler on the request's
// context (`request.context.operationRequest`). The validator is one call, `validate(plan, value, location)` of
// ../validation.ts, for each part of the request.
import { ApiError, PayloadTooLarge, problemKinds, UnsupportedMediaType, ValidationFailed } from '#shared/errors';
import type { CompiledOperation } from '#shared/operations/compiled-operation';
import { limits } from '#shared/schemas/limits';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { coerceToPlan } from '#shared/http/codecs/coerce';
import { parseForm } from '#shared/http/codecs/form';
import { parseJsonBody } from '#shared/http/codecs/json';
import { assertJsonNumbersStorable } from '#shared/http/codecs/json-numbers';
import { loadXmlParser, parseXml } from '#shared/http/codecs/xml';
import { acceptedContentCodings, isShortToken, parseMediaType, requestMediaTypes, unsupportedContentCoding, type BodyFormat } from '#shared/http/media';
import { applyTenancy } from '#shared/http/tenancy';
import { validate, validateWithDocument } from '#shared/http/validation';
import { headerOf, requestIdOf, type HttpMiddleware, type OperationRequest } from './request';

type ParsedOperation = Pick<CompiledOperation, 'media' | 'maxBodyBytes' | 'pathParameters' | 'query' | 'requestBody' | 'document'>;

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

const decodeBody = (event: APIGatewayProxyEvent, maxBytes: number): string => {
  if (event.body === null || event.body === undefined) return '';
  const padding = event.body.endsWith('==') ? 2 : event.body.endsWith('=') ? 1 : 0;
  const size = event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) - padding : Buffer.byteLength(event.body, 'utf8');
  if (size > maxBytes) throw new PayloadTooLarge(maxBytes);
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) throw new PayloadTooLarge(maxBytes);
  return text;
};

const bodyFormatOf = (operation: ParsedOperation, contentType: string | undefined): BodyFormat => {
  const accepted = requestMediaTypes[operation.media] as Readonly<Record<string, BodyFormat>>;
  const acceptedList = Object.keys(accepted);
  const media = contentType === undefined ? undefined : parseMediaType(contentType);
  const format = media && Object.hasOwn(accepted, media.type) ? accepted[media.type] : undefined;
  const charset = media?.parameters.charset?.toLowerCase();
  if (!format || (charset !== undefined && !['utf-8', 'utf8', 'us-ascii'].includes(charset))) {
    throw new UnsupportedMediaType(acceptedList);
  }
  return format;
};

/**
 * Content-Type is a singleton field (RFC 9110 §5.3): lines that disagree leave the body's type unknown, so the body is
 * refused (415) rather than read as whichever line came last, as API Gateway's `headers` map would have it.
 */
const contentTypeOf = (event: APIGatewayProxyEvent): string | undefined => {
  const lines = new Set((event.multiValueHeaders?.['content-type'] ?? []).map((value) => value.trim().toLowerCase()));
  return lines.size > 1 ? undefined : headerOf(event, 'content-type');
};

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
 * Path and query validated, then the body: size, coding, media type, decoding, coercion, tenancy at every depth
 * (`request.internal.principal`, from `authenticate.ts`), validation. Writes the handler's input to
 * `request.context.operationRequest`.
 */
export const parseRequest = (operation: ParsedOperation): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    const { principal } = request.internal;

    const path = operation.pathParameters ? validate(operation.pathParameters, event.pathParameters ?? {}, 'path') : undefined;
    const query = operation.query ? validate(operation.query, singleQueryParameters(event), 'query') : undefined;
    // The document's rules too: its parameters as OpenAPI's simple style reads them (an integer is a number).
    validateWithDocument(operation.document.path, path, 'path');
    validateWithDocument(operation.document.query, query, 'query');

    // An operation without a body never reads one, so only a body it would read is refused for its coding.
    if (operation.requestBody) refuseContentCoding(event);
    const rawBody = decodeBody(event, operation.maxBodyBytes ?? limits.requestBodyBytes);
    let body: unknown;
    if (operation.requestBody && rawBody.trim() !== '') {
      const format = bodyFormatOf(operation, contentTypeOf(event));
      const decoded = await decoders[format](rawBody);
      if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) {
        throw new ValidationFailed([{ pointer: '', detail: 'the body must be an object' }]);
      }
      const schema = (format === 'xml' ? operation.requestBody.xmlSchema : undefined) ?? operation.requestBody.schema;
      const coerced = coerceToPlan(decoded, schema, format === 'json' ? 'typed' : 'text');
      const sent = principal ? applyTenancy(coerced, principal, schema) : coerced;
      body = validate(schema, sent);
      validateWithDocument((format === 'xml' ? operation.document.xmlBody : undefined) ?? operation.document.body, sent);
    } else if (operation.requestBody?.required) {
      throw new ValidationFailed([{ pointer: '', detail: 'a request body is required' }], 'A request body is required.');
    } else if (operation.requestBody) {
      body = validate(operation.requestBody.schema, principal ? applyTenancy({}, principal, operation.requestBody.schema) : {});
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
