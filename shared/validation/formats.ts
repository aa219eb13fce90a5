// Validation: the formats the OpenAPI document names, for the validators ajv generates from it (npm run openapi,
// infra/build/request-validators.ts). The generated code calls `formats[name]`, so the document's `format`s are
// checked by the same functions at build time (ajv) and at run time (the functions' bundles). `int32` and `int64`
// are OpenAPI's integer formats, which ajv-formats reads as any number: here they are integers in their range.
import { fullFormats } from 'ajv-formats/dist/formats';

const integerIn = (minimum: number, maximum: number) => ({
  type: 'number' as const,
  validate: (value: number) => Number.isInteger(value) && value >= minimum && value <= maximum,
});

/**
 * ajv-formats' `date-time` reads any time whose UTC reading is 23:59 as a leap second before it checks the time's own
 * ranges, so `21:64:00+22:05` (minute 64, "23:59 UTC" by its arithmetic) passed. RFC 3339 has hours 00-23, minutes
 * 00-59 (in the time and the offset) and a second 60 only as a leap second; offsets here go as far as the world's
 * zones, ±14:00 (shared/schemas/calendar.ts): the ranges are checked here first, then
 * ajv-formats decides the rest (the calendar, where a leap second may fall; the document's pattern refuses second 60).
 */
const timeInRanges = /^(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?(?:z|[+-](?:(?:0\d|1[0-3])(?::?[0-5]\d)?|14(?::?00)?))?$/i;
const ajvDateTime = fullFormats['date-time'] as { readonly validate: (text: string) => boolean; readonly compare: (a: string, b: string) => number | undefined };
const dateTime = {
  ...ajvDateTime,
  validate: (text: string): boolean => {
    const parts = text.split(/t|\s/i);
    return parts.length === 2 && timeInRanges.test(parts[1]!) && ajvDateTime.validate(text);
  },
};

export const formats = {
  int32: integerIn(-(2 ** 31), 2 ** 31 - 1),
  int64: integerIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  'date-time': dateTime,
  uuid: fullFormats.uuid,
  'uri-reference': fullFormats['uri-reference'],
  'json-pointer': fullFormats['json-pointer'],
};

/**
 * A string's length as JSON Schema counts it (`maxLength`, `minLength`): in Unicode code points, a surrogate pair
 * being one. The generated validators call it where ajv's own runtime helper would be (the same function).
 */
export const stringLength = (text: string): number => {
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    length += 1;
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
  }
  return length;
};
