// Unit: the OpenAPI document shows a date-time as `format: date-time` plus a short shape pattern instead of the
// server's 300-character pattern (shared/openapi/component-schemas.ts). The two together must refuse exactly what the
// server's pattern refuses (shared/schemas/calendar.ts), or the document's validators would accept a date the server
// refuses.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { dateTimeShapedText, pad } from '#test/support/date-time-texts';
import { dateTimeShapePattern } from '#shared/openapi/component-schemas';
import { isoDateTimePattern } from '#shared/schemas/calendar';
import { formats } from '#shared/validation/formats';

const shape = new RegExp(dateTimeShapePattern, 'u');
const format = formats['date-time'] as ((value: string) => boolean) | { validate: (value: string) => boolean };
const formatAccepts = typeof format === 'function' ? format : format.validate;
const documentAccepts = (text: string) => shape.test(text) && formatAccepts(text);

const cases = [
  '2026-03-01T09:00:00+10:00',
  '2026-03-01T09:00:00Z',
  '2026-03-01T09:00:00.123Z',
  '2026-03-01T09:00:00.123456789-03:30',
  '2026-03-01T09:00:00.1234567890Z',
  '2024-02-29T00:00:00Z',
  '2000-02-29T00:00:00Z',
  '1900-02-29T00:00:00Z',
  '2026-02-29T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-00-01T00:00:00Z',
  '2026-01-00T00:00:00Z',
  '2026-01-32T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T23:60:00Z',
  '2026-01-01T23:59:60Z',
  '2016-12-31T23:59:60Z',
  '2026-01-01t00:00:00z',
  '2026-01-01 00:00:00Z',
  '2026-01-01T00:00:00+1000',
  '2026-01-01T00:00:00+24:00',
  '2026-01-01T00:00:00+23:60',
  '2026-01-01T00:00:00+23:59',
  '2026-01-01T00:00:00',
  '2026-01-01',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '2026-1-01T00:00:00Z',
  ' 2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00Z\n',
  '２０２６-01-01T00:00:00Z',
  '2026-01-01T00:00:00.Z',
  // ajv-formats' leap-second arithmetic: each reads as 23:59 UTC, with a minute or an hour out of range.
  '0000-01-01T21:64:00+22:05',
  '2026-01-01T10:64:00+11:05',
  '2026-01-01T47:59:00+24:00',
  '2026-01-01T00:00:00-00:01',
];

describe("the document's date-time (format + shape) and the server's pattern", () => {
  it.each(cases)('agree on %j', (text) => {
    expect(documentAccepts(text)).toBe(isoDateTimePattern.test(text));
  });

  it('agree on any text shaped like a date-time, each part in or out of its range (property)', () => {
    const shaped = dateTimeShapedText({ month: 19, day: 39, hour: 99, minute: 99, offsetHour: 99, offsetMinute: 99 });
    // Times that read as 23:59 UTC (where ajv-formats sees a leap second), the hour or the minute past its range or
    // not, drawn often enough to be met in every run.
    const nearMidnight = fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.boolean(), fc.boolean(), fc.constantFrom(0, 30, 59, 60, 61))
      .map(([oh, om, nextDay, nextHour, s]) => {
        const hour = nextDay ? oh + 23 : Math.max(oh - 1, 0);
        const minute = nextHour ? Math.min(om + 59, 99) : Math.max(om - 1, 0);
        return `2026-06-30T${pad(hour)}:${pad(minute)}:${pad(s)}+${pad(oh)}:${pad(om)}`;
      });
    fc.assert(
      fc.property(fc.oneof(shaped, nearMidnight), (text) => {
        expect(documentAccepts(text)).toBe(isoDateTimePattern.test(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('the shown pattern is short enough to read', () => {
    expect(dateTimeShapePattern.length).toBeLessThan(80);
  });
});
