// HTTP entry: the request's header lines, one case-insensitive view (RFC 9110 §5.1), and the refusal of a header that
// may appear once but came on several lines. Used by the middy stack (from API Gateway's event) and by the local
// gateway (from node's raw header lines), so both refuse the same requests with the same problem.
//
// API Gateway (REST, Lambda proxy) passes header names as the client spelled them and treats them case-sensitively:
// `Content-Type` and `content-type` are two keys. `headers` keeps one value per key (the last line), and
// `multiValueHeaders` every line of the key, in order. Reading one key, or one value of it, therefore lets a request
// carry two values of one field and have different readers take different ones (the authorizer one token, the
// authorizer cache another; the media type check one Content-Type, the parser another). A field that may appear
// once is only ever read when exactly one line carries it, in any case form, with any value.
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ApiError, problemKinds } from '#shared/errors';

/**
 * Header fields a request may carry on one line only: singleton fields of RFC 9110 that this API reads (or that
 * frame the request), and Idempotency-Key (one key per request, draft-ietf-httpapi-idempotency-key-header).
 * `Accept-Encoding` is not read from requests (no response is compressed), so it is not listed; list fields such as
 * `Accept` may repeat, and their lines are combined with commas (RFC 9110 §5.3).
 */
export const onceOnlyHeaders = ['Authorization', 'Content-Type', 'Content-Encoding', 'Content-Length', 'Idempotency-Key', 'Host'] as const;
export type OnceOnlyHeader = (typeof onceOnlyHeaders)[number];

const onceOnlyByLowerCase: ReadonlyMap<string, OnceOnlyHeader> = new Map(onceOnlyHeaders.map((name) => [name.toLowerCase(), name]));

/** A once-only header sent on several lines (`lines` counts them, in every case form). */
export interface RepeatedHeaderFinding {
  readonly header: OnceOnlyHeader;
  readonly lines: number;
}

/** The lines of each header, by lower-case name. */
export type HeaderLines = ReadonlyMap<string, readonly string[]>;

/** 400 naming the header: which line the client meant cannot be known, so none is read. */
export class RepeatedHeader extends ApiError {
  override readonly name: string = 'RepeatedHeader';
  readonly header: OnceOnlyHeader;

  constructor({ header, lines }: RepeatedHeaderFinding) {
    super(problemKinds.badRequest, lines > 1 ? repeatedHeaderDetail(header) : `The ${header} header has values that disagree; send it once.`);
    this.header = header;
  }
}

/** The detail of the refusal, the same from the functions, the local gateway and the web ACL (which cannot count). */
export const repeatedHeaderDetail = (header: OnceOnlyHeader): string =>
  `The ${header} header appears on more than one line (header names are case-insensitive); send it once.`;

/**
 * A regular expression over WAF's HeaderOrder field (the request's header names as sent, joined by `:`, lower-cased
 * by the rule's text transformation) that matches when two of them are `header`. AWS WAF regular expressions have no
 * back-references or capturing groups, hence one expression per header.
 */
export const headerOrderRepeatPattern = (header: OnceOnlyHeader): string => {
  const name = header.toLowerCase();
  return `(?:^|:)${name}:(?:[^:]*:)*${name}(?::|$)`;
};

const append = (lines: Map<string, string[]>, name: string, values: readonly string[]) => {
  const key = name.toLowerCase();
  const existing = lines.get(key);
  if (existing) existing.push(...values);
  else lines.set(key, [...values]);
};

/** The first once-only header, in the order of `onceOnlyHeaders`, that more than one line carries. */
export const repeatedOnceOnlyHeader = (lines: HeaderLines): RepeatedHeaderFinding | undefined => {
  for (const header of onceOnlyHeaders) {
    const count = lines.get(header.toLowerCase())?.length ?? 0;
    if (count > 1) return { header, lines: count };
  }
  return undefined;
};

/** node:http's `rawHeaders` (names as sent, alternating with values) as lines by lower-case name. */
export const rawHeaderLines = (rawHeaders: readonly string[]): HeaderLines => {
  const lines = new Map<string, string[]>();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) append(lines, rawHeaders[index] as string, [rawHeaders[index + 1] as string]);
  return lines;
};

type EventHeaders = Pick<APIGatewayProxyEvent | APIGatewayRequestAuthorizerEvent, 'headers' | 'multiValueHeaders'>;

const ownEntries = <T>(map: Readonly<Record<string, T | undefined>> | null | undefined): [string, T][] =>
  map ? Object.keys(map).flatMap((name) => (Object.hasOwn(map, name) && map[name] !== undefined ? [[name, map[name] as T]] : [])) : [];

/**
 * The lines of an API Gateway event (proxy or REQUEST authorizer), by lower-case name, over every case form of a
 * name: `multiValueHeaders` holds every line; a key found only in `headers` is one line. A key whose `headers` value
 * is not the last of its `multiValueHeaders` lines (an event API Gateway never builds) is reported in `disagreeing`,
 * since readers of either map would see different values.
 */
export const eventHeaderLines = (event: EventHeaders): { readonly lines: HeaderLines; readonly disagreeing: ReadonlySet<string> } => {
  const lines = new Map<string, string[]>();
  const disagreeing = new Set<string>();
  const multi = event.multiValueHeaders ?? null;
  for (const [name, values] of ownEntries(multi)) append(lines, name, Array.isArray(values) ? values.map(String) : [String(values)]);
  for (const [name, value] of ownEntries(event.headers)) {
    const listed = multi && Object.hasOwn(multi, name) ? multi[name] : undefined;
    if (!Array.isArray(listed)) append(lines, name, [String(value)]);
    else if (listed.length === 0 || listed[listed.length - 1] !== value) disagreeing.add(name.toLowerCase());
  }
  return { lines, disagreeing };
};

/** The once-only header an event carries ambiguously (several lines, or maps that disagree), if any. */
export const ambiguousOnceOnlyHeader = ({ lines, disagreeing }: ReturnType<typeof eventHeaderLines>): RepeatedHeaderFinding | undefined =>
  repeatedOnceOnlyHeader(lines) ?? onceOnlyHeaders.filter((header) => disagreeing.has(header.toLowerCase())).map((header) => ({ header, lines: 1 }))[0];

/** The only value of a once-only header: undefined when absent, `ambiguous` when several lines carry it. */
export const onceOnlyValue = (event: EventHeaders, header: OnceOnlyHeader): string | undefined | 'ambiguous' => {
  const { lines, disagreeing } = eventHeaderLines(event);
  const name = header.toLowerCase();
  const values = lines.get(name) ?? [];
  if (values.length > 1 || disagreeing.has(name)) return 'ambiguous';
  return values[0];
};

/**
 * Sets a member named by the client (a header or query parameter name) as an own property, as API Gateway's JSON
 * event has it: `__proto__` becomes a member rather than a prototype, and `constructor` or `toString` never reach
 * Object.prototype's. (The local gateway builds its events with it too.)
 */
export const setOwn = <T>(map: Record<string, T>, name: string, value: T): void => {
  Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
};

/**
 * The event's header maps keyed by lower-case name, every case form merged: `multiValueHeaders` lists every line,
 * `headers` holds the only line of a once-only header and the lines of any other header joined with `, ` (RFC 9110
 * §5.3), so `headers.accept` is the whole Accept field however many lines carried it.
 */
export const normalizedHeaderMaps = (lines: HeaderLines) => {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, values] of lines) {
    setOwn(multiValueHeaders, name, [...values]);
    setOwn(headers, name, onceOnlyByLowerCase.has(name) ? (values[values.length - 1] as string) : values.join(', '));
  }
  return { headers, multiValueHeaders };
};
