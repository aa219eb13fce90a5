// Unit tests of the one calendar reader (shared/schemas/calendar.ts) and the schemas built on it: real dates are read
// to the instant they name, dates that do not exist are refused (never rolled forward as Date.parse does), and the
// patterns the schemas, the compiled validators and the OpenAPI document carry agree with the reader.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { calendarTextPattern, daysInMonthOf, epochMsOf, isoDatePattern, isoDateTimePattern, readCalendar, utcInstantOf } from '#shared/schemas/calendar';
import { calendarText, dateTime } from '#shared/schemas/common';
import { compileSchema } from '#infra/build/schema-validators';
import { dateTimeShapedText, pad } from '#test/support/date-time-texts';


/** Any date-time with its parts in range, the day within its month: each names one real instant. */
const realDateTime = fc
  .record({
    // Years 0000 and 9999 are left to the instant-range cases below: an offset can move their instants out of range.
    year: fc.integer({ min: 1, max: 9998 }),
    month: fc.integer({ min: 1, max: 12 }),
    dayIndex: fc.nat(),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    millisecond: fc.integer({ min: 0, max: 999 }),
    offset: fc.integer({ min: -14 * 60, max: 14 * 60 }),
  })
  .map((parts) => ({ ...parts, day: (parts.dayIndex % daysInMonthOf(parts.year, parts.month)) + 1 }));

const offsetText = (minutes: number) =>
  minutes === 0 ? 'Z' : `${minutes < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;

const written = (p: { year: number; month: number; day: number; hour: number; minute: number; second: number; millisecond: number; offset: number }) =>
  `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}.${pad(p.millisecond, 3)}${offsetText(p.offset)}`;

// `compiled`: the field's rule as the server runs it, ajv's validator of its JSON Schema (the document's form).
const compiledDateTime = compileSchema(dateTime());
const compiledCalendarText = compileSchema(calendarText());
const validates = (schema: ReturnType<typeof dateTime> | ReturnType<typeof calendarText>, value: string) => {
  const zod = schema.safeParse(value).success;
  const compiled = ((schema as { format?: string | null }).format === 'date-time' ? compiledDateTime : compiledCalendarText)(value);
  return { zod, compiled };
};

describe('readCalendar: real dates', () => {
  it('reads every real date-time to the instant it names (the same as Date for years Date reads alike)', () => {
    fc.assert(
      fc.property(realDateTime, (parts) => {
        const text = written(parts);
        const value = readCalendar(text);
        expect(value).toBeDefined();
        const expected = new Date(0);
        expected.setUTCFullYear(parts.year, parts.month - 1, parts.day);
        expected.setUTCHours(parts.hour, parts.minute - parts.offset, parts.second, parts.millisecond);
        expect(epochMsOf(value!)).toBe(expected.getTime());
        expect(isoDateTimePattern.test(text)).toBe(true);
        expect(calendarTextPattern.test(text)).toBe(true);
        expect(validates(dateTime(), text)).toEqual({ zod: true, compiled: true });
      }),
      { numRuns: 500 },
    );
  });

  it('reads leap days of leap years only (2000 and 2024 yes; 1900, 2025 and 2100 no)', () => {
    expect(['2000-02-29', '2024-02-29', '1600-02-29', '0004-02-29'].map((text) => readCalendar(text) !== undefined)).toEqual([true, true, true, true]);
    expect(['1900-02-29', '2025-02-29', '2100-02-29', '2026-02-29'].map(readCalendar)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('gives the UTC instant of a date-time with an offset, years below 100 included', () => {
    expect(utcInstantOf('2026-03-01T09:00:00+10:00')).toBe('2026-02-28T23:00:00.000Z');
    expect(utcInstantOf('2024-02-29T23:30-00:45')).toBe('2024-03-01T00:15:00.000Z');
    expect(utcInstantOf('0050-06-15T12:00:00Z')).toBe('0050-06-15T12:00:00.000Z');
    expect(utcInstantOf('2026-03-01T09:00:00')).toBeUndefined(); // no offset: not an instant
    expect(utcInstantOf('2026-03-01')).toBeUndefined();
  });
});

describe('readCalendar: dates that do not exist', () => {
  const impossible = [
    '2026-02-30T09:00:00+10:00',
    '2026-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-06-31T00:00:00Z',
    '2026-09-31T00:00:00Z',
    '2026-11-31T00:00:00Z',
    '2026-01-32T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T25:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T23:59:60Z',
    '2026-12-31T23:59:60Z',
    '2026-01-01T10:00:00+24:00',
    '2026-01-01T10:00:00-25:00',
    '2026-01-01T10:00:00+10:60',
    // Offsets no zone has: past UTC+14:00 / UTC-14:00 (RFC 3339's grammar allows up to 23:59).
    '2026-01-01T10:00:00+14:01',
    '2026-01-01T10:00:00+15:00',
    '2026-01-01T10:00:00-23:59',
  ];

  it.each(impossible)('refuses %s everywhere: the reader, the patterns, zod and the compiled validator', (text) => {
    expect(readCalendar(text)).toBeUndefined();
    expect(utcInstantOf(text)).toBeUndefined();
    expect(isoDateTimePattern.test(text)).toBe(false);
    expect(calendarTextPattern.test(text)).toBe(false);
    expect(validates(dateTime(), text)).toEqual({ zod: false, compiled: false });
    expect(validates(calendarText(), text)).toEqual({ zod: false, compiled: false });
  });

  it('refuses every day past the end of its month, in any year (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 69 }), (year, month, past) => {
        const day = daysInMonthOf(year, month) + past;
        const date = `${pad(year, 4)}-${pad(month)}-${pad(Math.min(day, 99))}`;
        expect(readCalendar(date)).toBeUndefined();
        expect(isoDatePattern.test(date)).toBe(false);
        expect(calendarTextPattern.test(date)).toBe(false);
        expect(readCalendar(`${date}T10:00:00Z`)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with its patterns on any text shaped like a date-time, in range or not (property)', () => {
    const shaped = dateTimeShapedText({ month: 19, day: 39, hour: 29, minute: 69, offsetHour: 29, offsetMinute: 69 });
    fc.assert(
      fc.property(shaped, (text) => {
        const read = readCalendar(text) !== undefined;
        // Years 0000 and 9999: an offset can move the instant out of the years an ISO instant writes, which the
        // reader refuses and a pattern cannot see (server rule instant-range); the reader is never the laxer.
        if (/^(?:0000|9999)-/.test(text)) {
          if (read) expect(isoDateTimePattern.test(text)).toBe(true);
          return;
        }
        expect(isoDateTimePattern.test(text)).toBe(read);
        expect(calendarTextPattern.test(text)).toBe(read);
        expect(validates(dateTime(), text)).toEqual({ zod: read, compiled: read });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('readCalendar: instants outside the years 0000-9999 (server rule instant-range)', () => {
  it.each([
    ['9999-12-31T23:59:59-14:00', false],
    ['9999-12-31T10:00:00-14:00', false],
    ['9999-12-31T09:59:59.999-14:00', true],
    ['9999-12-31T23:59:59.999Z', true],
    ['0000-01-01T00:00:00+14:00', false],
    ['0000-01-01T00:00:00+00:01', false],
    ['0000-01-01T14:00:00+14:00', true],
    ['0000-01-01T00:00:00Z', true],
  ])('%s is read: %s (the instant an ISO date-time writes with four digits of year)', (text, readable) => {
    expect(readCalendar(text) !== undefined).toBe(readable);
    expect(utcInstantOf(text) !== undefined).toBe(readable);
    if (readable) expect(utcInstantOf(text)).toMatch(/^\d{4}-/);
  });
});

describe('the schemas', () => {
  it('dateTime() is RFC 3339: seconds and an offset required, upper-case T and Z, at most nine fraction digits', () => {
    expect(
      ['2026-03-01T09:00:00Z', '2026-03-01T09:00:00.123456789+14:00', '2026-03-01T09:00Z', '2026-03-01T09:00:00', '2026-03-01t09:00:00z', '2026-03-01T09:00:00.1234567890Z'].map(
        (text) => validates(dateTime(), text).zod,
      ),
    ).toEqual([true, true, false, false, false, false]);
  });

  it('calendarText() keeps free text and "" but refuses ISO-looking text that is not a real date', () => {
    const cases: [string, boolean][] = [
      ['', true],
      ['1 Mar 2026 10:00', true],
      ['next tuesday', true],
      ['2026-03-01', true],
      ['2026-03-01 10:05', true],
      ['2026-03-01T10:05:00+10:00', true],
      ['2026-03-01T10:05:00.5Z', true],
      ['2026-02-30', false],
      ['2026-02-30 10:05', false],
      ['2026-03-01T24:00', false],
      ['2026-03-01 soon', false],
      ['2026-13', false],
    ];
    expect(cases.map(([text]) => [text, validates(calendarText(), text)])).toEqual(cases.map(([text, ok]) => [text, { zod: ok, compiled: ok }]));
  });
});
