// Platform: wall-clock arithmetic in an IANA time zone or a fixed UTC offset, with the platform's own tz data
// (Intl). Pure; the recurrence engine (shared/scheduled-tasks/recurrence.ts) and the
// scheduler emulation's expressions (infra/local/scheduler-expressions.ts) build on it.
import { timeZoneNamePattern } from '#shared/schemas/calendar';

const minuteMs = 60_000;
const dayMs = 86_400_000;

/** A calendar date without a zone: `month` 1-12, `day` 1-31. */
export interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** A wall-clock date and time without a zone, to the minute. */
export interface LocalDateTime extends LocalDate {
  readonly hour: number;
  readonly minute: number;
}

/** Where wall-clock time is read: a named IANA zone (with its DST rules) or a fixed offset from UTC, in minutes. */
export type Zone = { readonly kind: 'iana'; readonly name: string } | { readonly kind: 'fixed'; readonly offsetMinutes: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

const formatterOf = (zoneName: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(zoneName);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zoneName,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zoneName, formatter);
  }
  return formatter;
};

/**
 * The IANA name the platform knows for `name`, or undefined for an unknown zone. Intl also accepts offsets
 * (`+10:00`) in newer runtimes and any letter case; neither is an IANA name, so both are refused here.
 */
export const knownTimeZone = (name: string): string | undefined => {
  if (name.length > 64 || !timeZoneNamePattern.test(name)) return undefined;
  let resolved: string;
  try {
    resolved = formatterOf(name).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  // A link (Asia/Kolkata -> Asia/Calcutta) resolves to another name: keep the caller's. A name that differs from
  // its resolution only in letter case is a mistyped name (EventBridge Scheduler's names are case-sensitive).
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return undefined;
  return name;
};

const fieldsAt = (zoneName: string, instantMs: number) => {
  const parts = new Map(formatterOf(zoneName).formatToParts(new Date(instantMs)).map((part) => [part.type, part.value]));
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.get(type));
  return { year: field('year'), month: field('month'), day: field('day'), hour: field('hour'), minute: field('minute'), second: field('second') };
};

/** The zone's offset from UTC at an instant, in minutes (east positive). */
export const offsetAt = (zone: Zone, instantMs: number): number => {
  if (zone.kind === 'fixed') return zone.offsetMinutes;
  const wholeSecond = Math.floor(instantMs / 1000) * 1000;
  const local = fieldsAt(zone.name, wholeSecond);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return Math.round((asUtc - wholeSecond) / minuteMs);
};

/** The wall-clock date and time (to the minute) of an instant in a zone. */
export const localDateTimeAt = (zone: Zone, instantMs: number): LocalDateTime => {
  const shifted = new Date(instantMs + offsetAt(zone, instantMs) * minuteMs);
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    hour: shifted.getUTCHours(),
    minute: shifted.getUTCMinutes(),
  };
};

/** The wall-clock time read as if it were UTC: a number to do calendar arithmetic on. */
const wallMs = (local: LocalDateTime) => Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);

/**
 * Every instant at which the zone's clocks show `local`, earliest first: none in a gap (clocks spring forward over
 * it), two in an overlap (clocks fall back and show it twice), one otherwise. Real zones change offset at most once
 * in any two days, so the offsets a day either side of the wall time are the only candidates.
 */
export const instantsOf = (zone: Zone, local: LocalDateTime): number[] => {
  const wall = wallMs(local);
  if (zone.kind === 'fixed') return [wall - zone.offsetMinutes * minuteMs];
  const candidates = new Set([offsetAt(zone, wall - dayMs), offsetAt(zone, wall), offsetAt(zone, wall + dayMs)]);
  const instants = new Set<number>();
  for (const offset of candidates) {
    const instant = wall - offset * minuteMs;
    if (offsetAt(zone, instant) === offset) instants.add(instant);
  }
  return [...instants].sort((a, b) => a - b);
};

/** Days from 1970-01-01 to a date (negative before). */
export const epochDay = (date: LocalDate): number => Math.floor(Date.UTC(date.year, date.month - 1, date.day) / dayMs);

/** The date `days` after (or before) a date. */
export const addDays = (date: LocalDate, days: number): LocalDate => {
  const shifted = new Date((epochDay(date) + days) * dayMs);
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
};

/** Months from January 1970 to a date's month. */
export const epochMonth = (date: Pick<LocalDate, 'year' | 'month'>): number => date.year * 12 + (date.month - 1) - 1970 * 12;

/** The year and month of an epoch month. */
export const monthOf = (epochMonthIndex: number): { year: number; month: number } => ({
  year: 1970 + Math.floor(epochMonthIndex / 12),
  month: (((epochMonthIndex % 12) + 12) % 12) + 1,
});

export const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** ISO weekday of a date: 1 Monday ... 7 Sunday. */
export const isoWeekday = (date: LocalDate): number => ((((epochDay(date) + 3) % 7) + 7) % 7) + 1;
