// Schemas: the primitive types of the spec with the bounds the spec leaves open (listed in shared/README.md).
// Every shape of the service is built from these, so a bound is chosen once.
import { z } from 'zod';
import { dynamoNumber, notBelowSmallestMagnitude } from '../data/numbers';
import { matches, numberTextMatches } from '../validation/portable';
import { calendarTextPattern, isoDateTimePattern } from './calendar';
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
const xmlCharacters = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;
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
export const listOf = <T extends z.ZodType>(item: T) => z.array(item).max(limits.arrayItems);

/**
 * A request or response body: unknown keys are refused (field names are case-sensitive, so `name` for `Name`
 * would otherwise be dropped without a word).
 */
export const shape = <T extends z.core.$ZodLooseShape>(name: string, fields: T, description?: string, examples?: readonly unknown[]) =>
  z.strictObject(fields).meta({ id: name, ...(description ? { description } : {}), ...(examples ? { examples: [...examples] } : {}) });

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
export const url = () => text(limits.url);
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
