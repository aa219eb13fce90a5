// HTTP conventions: media types of request and response bodies, and Accept negotiation (RFC 9110 §12.5.1).

export type BodyFormat = 'json' | 'xml' | 'form';

export interface MediaType {
  readonly type: string;
  readonly parameters: Readonly<Record<string, string>>;
}

/** Request media types by family, in the order they are listed to clients. */
export const requestMediaTypes = {
  standard: {
    'application/json': 'json',
    'text/json': 'json',
    'application/xml': 'xml',
    'text/xml': 'xml',
    'application/x-www-form-urlencoded': 'form',
  },
  json: { 'application/json': 'json' },
} as const satisfies Record<string, Record<string, BodyFormat>>;

/**
 * Every request media type some operation reads, once each: the REST API declares them binary (its
 * `binaryMediaTypes`), so API Gateway hands their bodies to functions base64-encoded with the exact bytes sent, and a
 * body that is not UTF-8 is refused instead of reaching the function as U+FFFD (shared/http/README.md).
 */
export const readRequestMediaTypes: readonly string[] = [
  ...new Set(Object.values(requestMediaTypes).flatMap((family) => Object.keys(family))),
];

/** Response media types by family; the first is the default. */
export const responseMediaTypes = {
  standard: ['application/json', 'text/json', 'application/xml', 'text/xml'],
  json: ['application/json'],
} as const satisfies Record<string, readonly string[]>;

export type MediaFamily = keyof typeof responseMediaTypes;

const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An RFC 9110 quoted-string: `"..."` with `\\` escapes, no control characters but tab. */
const quotedString = /^"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*"$/;

/** An RFC 9110 token (media types, content codings) of at most `max` characters: safe to quote back to a client. */
export const isShortToken = (value: string, max = 64): boolean => value.length <= max && token.test(value);

/**
 * Parses `type/subtype; a=b` (lower-cases type and parameter names); undefined when malformed, a parameter named twice
 * included (in any case form): `charset=utf-16; charset=utf-8` has no one charset (RFC 9110 §8.3.1 leaves it to the
 * reader, and one reader takes the first, another the last), so it is refused rather than read as the last.
 */
export const parseMediaType = (value: string): MediaType | undefined => {
  const [essence = '', ...rawParameters] = value.split(';');
  const type = essence.trim().toLowerCase();
  const [main, sub, ...rest] = type.split('/');
  if (!main || !sub || rest.length > 0 || !token.test(main) || !token.test(sub)) return undefined;
  const parameters: Record<string, string> = {};
  for (const raw of rawParameters) {
    // RFC 9110 §5.6.6: an empty parameter (`type/sub;`) is allowed; one without `=`, or with an empty name, or a
    // value that is neither a token nor a quoted string, is malformed (before: skipped, so `application/json;charset`
    // was read as JSON; found by a hostile client).
    if (raw.trim() === '') continue;
    const separator = raw.indexOf('=');
    if (separator < 0) return undefined;
    const name = raw.slice(0, separator).trim().toLowerCase();
    const rawValue = raw.slice(separator + 1).trim();
    if (!token.test(name) || !(token.test(rawValue) || quotedString.test(rawValue))) return undefined;
    const parameterValue = rawValue.replace(/^"(.*)"$/, '$1');
    if (Object.hasOwn(parameters, name)) return undefined;
    parameters[name] = parameterValue;
  }
  return { type, parameters };
};

export const isXmlMediaType = (type: string): boolean => type === 'application/xml' || type === 'text/xml';

/**
 * Content codings of request bodies (RFC 9110 §8.4): none is decoded. API Gateway passes a body as it arrives
 * (the stack enables no compression), so a body labelled `gzip`, `br`, `deflate`, ... would otherwise be read as
 * text. Only `identity`, which means "no coding", is accepted.
 */
export const acceptedContentCodings = ['identity'] as const;

/**
 * The first content coding of `Content-Encoding` values (one per header line; each a comma-separated list) that
 * the service does not decode, lower-cased; undefined when every coding is `identity` or there is none.
 */
export const unsupportedContentCoding = (values: readonly string[]): string | undefined =>
  values
    .flatMap((value) => value.split(','))
    .map((coding) => coding.trim().toLowerCase())
    .find((coding) => coding !== '' && !(acceptedContentCodings as readonly string[]).includes(coding));

interface AcceptRange {
  readonly type: string;
  readonly q: number;
  readonly specificity: number;
  /** The range's `charset`, lower-cased, when it names one: every representation here is UTF-8. */
  readonly charset?: string;
}

const parseAccept = (accept: string): AcceptRange[] =>
  accept
    .split(',')
    .map((part) => parseMediaType(part.trim()))
    .filter((range): range is MediaType => range !== undefined)
    .map((range) => {
      const q = range.parameters.q === undefined ? 1 : Number(range.parameters.q);
      const [main, sub] = range.type.split('/');
      const charset = range.parameters.charset?.toLowerCase();
      // A range with a parameter is more specific than the same range without (RFC 9110 §12.5.1).
      const specificity = (main === '*' ? 0 : sub === '*' ? 1 : 2) * 2 + (charset === undefined ? 0 : 1);
      return { type: range.type, q: Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0, specificity, ...(charset === undefined ? {} : { charset }) };
    });

/**
 * Whether `range` admits `type` as served: its type, and its charset when it names one (every answer is UTF-8:
 * `application/xml; charset=utf-16` was answered UTF-8 XML where nothing acceptable is a 406, and a client that
 * listed JSON after it got the XML it could not read).
 */
const matches = (range: AcceptRange, type: string): boolean => {
  if (range.charset !== undefined && range.charset !== 'utf-8') return false;
  if (range.type === '*/*') return true;
  const [main, sub] = range.type.split('/');
  return sub === '*' ? type.startsWith(`${main}/`) : range.type === type;
};

/**
 * The best of `available` for an Accept header: highest q of the most specific matching range, ties broken by the
 * server's order. No header means anything. Undefined when nothing is acceptable (the caller answers 406).
 */
export const negotiate = (accept: string | undefined, available: readonly string[]): string | undefined => {
  if (accept === undefined || accept.trim() === '') return available[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return available[0];
  let best: { type: string; q: number } | undefined;
  for (const type of available) {
    const applicable = ranges.filter((range) => matches(range, type)).sort((a, b) => b.specificity - a.specificity)[0];
    if (!applicable || applicable.q === 0) continue;
    if (!best || applicable.q > best.q) best = { type, q: applicable.q };
  }
  return best?.type;
};
