// Schemas: the primitive types of the spec with the bounds the spec leaves open (listed in shared/README.md).
// Every shape of the service is built from these, so a bound is chosen once.
import { z } from 'zod';
import { dynamoNumber, notBelowSmallestMagnitude } from '#shared/data/numbers';
import { matches, numberTextMatches } from '#shared/validation/portable';
import { urlWithPassword, urlWithPasswordWords } from '#shared/validation/url-password';
import { calendarTextPattern, isoCalendarOrEmptyPattern, isoDateTimePattern } from './calendar';
import { limits } from './limits';

export { limits };

/** `int` of the spec: a signed 32-bit integer. */
export const int32 = () => z.int32();
/** Ids in bodies: 0 or absent means "none / create"; never negative. */
export const id = () => z.int32().min(0);
/**
 * A number DynamoDB stores exactly as sent (shared/data/numbers.ts): finite, 0 or a magnitude from 1e-130 to
 * 9007199254740991 (the document client's bound). Every non-integer number of every schema is built on it (integers are 32-bit or safe
 * integers, always storable). The body codecs refuse a number whose text a double does not hold exactly (more digits
 * than a double keeps), and the OpenAPI generator writes the rule into every `number` schema.
 */
export const storableNumber = () =>
  z
    .number()
    .min(-dynamoNumber.maxMagnitude)
    .max(dynamoNumber.maxMagnitude)
    .refine(numberTextMatches(notBelowSmallestMagnitude), { error: 'must be 0 or at least 1e-130 in magnitude (the smallest number DynamoDB stores)' });
/** `number` of the spec: a storable number of magnitude at most 1e13. */
export const decimal = () => storableNumber().min(-limits.numberMagnitude).max(limits.numberMagnitude);
export const bool = () => z.boolean();
// The characters XML 1.0 cannot carry, as a negated class: with the `u` flag (the server's, and JSON Schema's through
// ajv) it excludes exactly C0 controls but tab, line feed and carriage return, lone surrogates, U+FFFE and U+FFFF;
// written without `\u{...}`, so the OpenAPI document can state it as a `pattern` every regex dialect reads.
export const xmlCharacters = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]*$/u;
/** Text of at most `max` characters, refusing characters XML 1.0 cannot carry (so every record can be sent as XML). */
export const text = (max: number = limits.shortText) =>
  z.string().max(max).refine(matches(xmlCharacters), { error: 'must not contain control characters' });
export const longText = () => text(limits.longText);
export const documentText = () => text(limits.documentText);
/** `uuid` of the spec: GUID format (any version, as .NET emits). */
export const guid = () => z.guid();

/**
 * `datetime` of the spec: RFC 3339 date-time with offset that exists in the calendar (calendar.ts, the one reader of
 * dates), at most 35 characters (`2026-01-02T03:04:05.123456789+14:00`: nanoseconds and an offset).
 */
export const dateTime = () =>
  z
    .stringFormat('date-time', isoDateTimePattern, {
      error: 'must be an ISO 8601 date-time with an offset that exists, e.g. 2026-03-01T09:00:00+10:00',
    })
    .max(35);
/**
 * A date field the spec types as `string` (DeliveryDate, AppliedDate, PaymentDateTime_utc, ...): text up to 200
 * characters, but text written as an ISO date or date-time must name one that exists (`2026-02-30` is refused; `""`
 * still clears and `1 Mar 2026` is still the client's text). See calendar.ts.
 */
export const calendarText = () =>
  text().regex(calendarTextPattern, { error: 'must be a date that exists: YYYY-MM-DD, optionally with a time (ISO 8601)' });
/**
 * A date field that names an instant the service computes with (a payment's DateTime and PaymentDateTime_utc): empty,
 * or an ISO date or date-time that exists (without an offset: UTC). Free text (`yesterday`, `1 Mar 2026`) is refused.
 */
export const calendarInstant = () =>
  text().regex(isoCalendarOrEmptyPattern, { error: 'must be an ISO 8601 date or date-time that exists (without an offset: UTC)' });
export const listOf = <T extends z.ZodType>(item: T) => z.array(item).max(limits.arrayItems);

/**
 * An integer enumeration whose members have names: the values are the array's indexes. OpenAPI gets `enum` and the
 * names as `x-enum-varnames` (openapi-generator) and `x-enumNames` (NSwag, the platform's .NET clients), with one
 * line per member in `x-enum-descriptions`. Validated as an int range, so XML and form values coerce like any int.
 */
export const namedIntEnum = (names: readonly string[], descriptions: readonly string[], description: string, error?: string) =>
  int32()
    .min(0, error === undefined ? undefined : { error })
    .max(names.length - 1, error === undefined ? undefined : { error })
    .meta({
      description,
      enum: names.map((_, value) => value),
      'x-enum-varnames': [...names],
      'x-enumNames': [...names],
      'x-enum-descriptions': [...descriptions],
    });

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A name from a fixed list as the server reads it: case-insensitive, surrounding white space trimmed (`\s` is the set
 * `String.prototype.trim` removes), at most `max` characters in all. The pattern spells each letter in both cases, so
 * the document states the same rule in any regex dialect, and bounds the length with a leading lookahead, so an
 * over-long value earns the one error the pattern gives; `examples` lists the canonical names.
 */
export const nameOf = (names: readonly string[], error: string, max: number = limits.shortText, orBlank = false) => {
  const letters = (name: string) =>
    [...name].map((char) => (char.toLowerCase() !== char.toUpperCase() ? `[${char.toUpperCase()}${char.toLowerCase()}]` : escapeRegExp(char))).join('');
  return z
    .string()
    .regex(new RegExp(`^(?=[\\s\\S]{0,${max}}$)\\s*(?:${names.map(letters).join('|')})${orBlank ? '?' : ''}\\s*$`), { error })
    .meta({ examples: [...names] });
};

/**
 * A request or response body: unknown keys are refused (field names are case-sensitive, so `name` for `Name`
 * would otherwise be dropped without a word).
 */
export const shape = <T extends z.core.$ZodLooseShape>(
  name: string,
  fields: T,
  description?: string,
  examples?: readonly unknown[],
  /**
   * Rules the domain applies to the body beyond its fields' schemas (required members, conditions between fields), as
   * JSON Schema the document states in the component's `allOf`: zod cannot say them, the domain enforces them.
   */
  domainRules?: readonly object[],
) =>
  z.strictObject(fields).meta({
    id: name,
    ...(description ? { description } : {}),
    ...(examples ? { examples: [...examples] } : {}),
    ...(domainRules ? { allOf: [...domainRules] } : {}),
  });

/**
 * The platform's record header, as its records list it first: `recordIdentity()` is ID, GUID and GUIDstring (the
 * GUID as text); `recordKeys()` adds BSID (the business system's id) and RowNumber (the record's row in a list
 * answer); `recordHeader()` adds Version as the spec types it on nested records (a number of at least 0). Spread into
 * a shape where the record lists them; fresh schemas each call, like every builder here.
 */
export const recordIdentity = () => ({ ID: id().optional(), GUID: guid().optional(), GUIDstring: text().optional() });
export const recordKeys = () => ({ ...recordIdentity(), BSID: text().optional(), RowNumber: rowNumber().optional() });
export const recordHeader = () => ({ ...recordKeys(), Version: decimal().min(0).optional() });

/** Fields every request envelope carries: the caller's tenancy, checked against the token (never trusted). */
export const tenancyFields = {
  TenantID: id().optional(),
  WebsiteID: id().optional(),
  UserID: id().optional(),
};

/** Path parameter `id`: a positive int32 written in plain decimal (no sign, exponent, hex or spaces). */
const pathIdMessage = 'must be a positive 32-bit integer';
export const pathId = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/, { error: pathIdMessage })
  .transform(Number)
  .pipe(z.int32({ error: pathIdMessage }).min(1, { error: pathIdMessage }));

/** Counts (lines, products, days): never negative. */
export const count = () => z.int32().min(0);
/** Row numbers of search results: 64-bit sized values appear in the XML form, so bounded by MAX_SAFE_INTEGER only. */
export const rowNumber = () => z.int().min(0);
/** `*_offset` and UtcOffset fields: minutes from UTC. */
export const utcOffset = () => z.int32().min(-limits.utcOffsetMinutes).max(limits.utcOffsetMinutes);
/** A URL member: text that carries no password (shared/validation/url-password.ts). */
export const url = () =>
  text(limits.url).regex(new RegExp(`^(?!\\s*${urlWithPassword.source})`), { error: urlWithPasswordWords });
export const emailAddress = () => text(limits.emailAddress);
export const phoneNumber = () => text(limits.phoneNumber);

/**
 * An identifier that comes from outside (the provider's organisation, user and document ids) and becomes part of a
 * composed key: bounded, printable, and free of `#`, the separator of composed keys.
 */
export const externalKey = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\u0000-\u001f\u007f#]+$/, { error: 'must be printable text without "#"' });
