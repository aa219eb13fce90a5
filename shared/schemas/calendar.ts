// Schemas: the one reader of calendar dates and date-times (ISO 8601, RFC 3339) for every area. Zod-free, so the
// schemas (common.ts: dateTime(), calendarText()), the patterns the document states for them and the domain (payments, receipt search keys)
// all read a date the same way. A date that does not exist (30 February, 29 February of a common year, 31 April,
// hour 24, minute 60, second 60, an offset beyond ±14:00, an instant outside the years 0000-9999 in UTC) is refused,
// never rolled forward as `Date.parse` does.
// Leap seconds (`23:59:60`) are refused too: an instant of the service is a JavaScript time, which has none.

/** The parts of a date or date-time as written; `time` and `offsetMinutes` are absent when not written. */
export interface CalendarValue {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly time?: {
    readonly hour: number;
    readonly minute: number;
    readonly second: number;
    readonly millisecond: number;
    /** Nanoseconds written below the millisecond (0-999999): an instant is kept to the millisecond, compared to the digit. */
    readonly belowMillisecond?: number;
  };
  /** Minutes east of UTC (`Z` is 0); absent for a local date-time. */
  readonly offsetMinutes?: number;
  /** Whether the seconds were written (RFC 3339 requires them). */
  readonly hasSeconds: boolean;
}

// Building blocks of the patterns below: each is the regular-expression form of a rule `readCalendar` applies with
// arithmetic (a property test holds the two together).
const leapYear = '(?:\\d\\d(?:[2468][048]|[13579][26]|0[48])|(?:[02468][048]|[13579][26])00)';
const date =
  `(?:${leapYear}-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8])))`;
const hourMinute = '(?:[01]\\d|2[0-3]):[0-5]\\d';
const seconds = ':[0-5]\\d(?:\\.\\d{1,9})?';
// Offsets as far as the world's zones go (UTC-12:00 to UTC+14:00, both ways here): RFC 3339's grammar allows up to
// ±23:59, which no zone uses and which a payment's PaymentDateTime_offset (at most 840 minutes either way) cannot hold.
const offset = '(?:Z|[+-](?:0\\d|1[0-3]):[0-5]\\d|[+-]14:00)';

/** `YYYY-MM-DD`, a day that exists. */
export const isoDatePattern = new RegExp(`^${date}$`);

/** RFC 3339 `date-time`: `YYYY-MM-DDThh:mm:ss[.fraction]` with `Z` or `±hh:mm`, every part in range. */
export const isoDateTimePattern = new RegExp(`^${date}T${hourMinute}${seconds}${offset}$`);

/**
 * The form of an IANA time zone name (`Australia/Sydney`, `Etc/GMT-10`, `UTC`): letters first, then letters, digits,
 * `_`, `+`, `-`, in `/`-separated parts. An offset (`+10:00`) is not one. Whether the name is in the runtime's zone
 * database is the server rule `time-zone` (shared/schedules/zoned-time.ts `knownTimeZone` checks both).
 */
export const timeZoneNamePattern = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/** What EventBridge Scheduler writes for a firing's time: `YYYY-MM-DDThh:mm:ssZ`, optional milliseconds, UTC only. */
export const schedulerInstantPattern = new RegExp(`^${date}T${hourMinute}:[0-5]\\d(?:\\.\\d{3})?Z$`);

/** An ISO date or date-time as `readCalendar` reads it: the date, then optionally `T` or a space and a time, offset optional. */
const isoCalendar = `${date}(?:[T ]${hourMinute}(?:${seconds})?${offset}?)?`;

/**
 * A date field the spec types as a string: free text, but text that begins like an ISO date (`YYYY-MM`) must be a
 * whole ISO date or date-time that exists (`YYYY-MM-DD`, then optionally `T` or a space, `hh:mm`, optional seconds and
 * fraction, optional `Z` or `±hh:mm`). So `2026-02-30` is refused while `1 Mar 2026` stays the client's text.
 */
export const calendarTextPattern = new RegExp(`^(?:(?!\\d{4}-\\d\\d)[\\s\\S]*|${isoCalendar})$`);

/**
 * Empty, or an ISO date or date-time that exists, exactly what `readCalendar` reads (a payment's `DateTime` and
 * `PaymentDateTime_utc`: the instant of the payment, which free text such as `yesterday` cannot name).
 */
export const isoCalendarOrEmptyPattern = new RegExp(`^(?:${isoCalendar})?$`);

/** The largest offset from UTC a date-time may have, in minutes (UTC+14:00, Kiribati; the pattern's `offset`). */
const maxOffsetMinutes = 14 * 60;
/** The first and last instants an ISO date-time can write (`0000-01-01T00:00:00.000Z`, `9999-12-31T23:59:59.999Z`). */
const firstInstantMs = new Date(0).setUTCFullYear(0, 0, 1);
const lastInstantMs = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const shape = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))?)?$/;

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** Days of `month` (1-12) in `year`. */
export const daysInMonthOf = (year: number, month: number): number =>
  month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * Reads an ISO date (`YYYY-MM-DD`) or date-time (`T` or a space, `hh:mm`, optional `:ss` and up to nine fraction
 * digits, optional `Z` or `±hh:mm`), or undefined when it is not one or names a date, time or offset that does not
 * exist.
 */
export const readCalendar = (text: string): CalendarValue | undefined => {
  const match = shape.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonthOf(year, month)) return undefined;
  if (match[4] === undefined) return { year, month, day, hasSeconds: false };
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6] ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const fraction = (match[7] ?? '').padEnd(9, '0');
  const millisecond = Number(fraction.slice(0, 3));
  const belowMillisecond = Number(fraction.slice(3));
  let offsetMinutes: number | undefined;
  if (match[8] === 'Z') offsetMinutes = 0;
  else if (match[9] !== undefined) {
    const offsetHours = Number(match[10]);
    const offsetMinute = Number(match[11]);
    if (offsetMinute > 59 || offsetHours * 60 + offsetMinute > maxOffsetMinutes) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinute);
  }
  const value: CalendarValue = {
    year,
    month,
    day,
    time: { hour, minute, second, millisecond, belowMillisecond },
    ...(offsetMinutes === undefined ? {} : { offsetMinutes }),
    hasSeconds: match[6] !== undefined,
  };
  // The instant must fall in the years 0000-9999 in UTC too: `9999-12-31T23:00:00-14:00` is in year 10000, which an
  // ISO instant (`toISOString`) writes `+010000-...`, unreadable here and unsortable in an index (server rule
  // `instant-range`: the document's pattern cannot add an offset to a time).
  if (offsetMinutes !== undefined) {
    const epochMs = epochMsOf(value);
    if (epochMs < firstInstantMs || epochMs > lastInstantMs) return undefined;
  }
  return value;
};


/**
 * The instant a calendar value names, in epoch milliseconds (fractions below a millisecond are dropped). A value
 * without an offset is read at `assumedOffsetMinutes` (UTC unless given); a date alone is its midnight.
 */
export const epochMsOf = (value: CalendarValue, assumedOffsetMinutes = 0): number => {
  const instant = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  instant.setUTCFullYear(value.year, value.month - 1, value.day);
  const time = value.time ?? { hour: 0, minute: 0, second: 0, millisecond: 0 };
  instant.setUTCHours(time.hour, time.minute, time.second, time.millisecond);
  return instant.getTime() - (value.offsetMinutes ?? assumedOffsetMinutes) * 60_000;
};

/**
 * A date-time with an offset (seconds optional), as the UTC instant it names (`toISOString` form), or undefined when
 * the text is not one or does not exist. What the services store for a client's date-time.
 */
export const utcInstantOf = (text: string): string | undefined => {
  const value = readCalendar(text);
  if (!value?.time || value.offsetMinutes === undefined) return undefined;
  const epochMs = epochMsOf(value);
  return Number.isFinite(epochMs) ? new Date(epochMs).toISOString() : undefined;
};
