// Scheduled tasks: the recurrence engine. From a task's schedule fields it validates (errors[] with JSON pointers),
// builds the EventBridge Scheduler definition (expression, time zone, start date) and computes the runs that
// schedule fires, in the task's time zone, with EventBridge Scheduler's DST rules. Pure: every instant comes in as
// an argument (the clock is the caller's). The rules and their sources are in README.md next to this file.
import { ValidationFailed, type FieldError } from '#shared/errors';
import { maxInterval, taskOffsetMinutes, taskYears } from '#shared/schemas/limits';
import {
  addDays,
  daysInMonth,
  epochDay,
  epochMonth,
  instantsOf,
  isoWeekday,
  knownTimeZone,
  localDateTimeAt,
  monthOf,
  type LocalDate,
  type Zone,
} from '#shared/schedules/zoned-time';

/** `IntervalType`: the unit of `Interval`. `None` (0) is accepted only on a one-off task, which has no interval. */
export const IntervalType = { None: 0, Minute: 1, Hour: 2, Day: 3, Week: 4, Month: 5 } as const;
export type IntervalType = (typeof IntervalType)[keyof typeof IntervalType];

/**
 * `RecurrenceType`: what a recurring task's runs keep constant.
 * - `Auto` (0, the default): `ElapsedTime` for minute and hour intervals, `LocalTime` for day, week and month.
 * - `ElapsedTime` (1): runs exactly `Interval` units of elapsed time apart (minute, hour, day, week); across a DST
 *   change the local time of day moves by the shift.
 * - `LocalTime` (2): runs at TimeOfDay's local time of day on every `Interval`-th day, week or month (day, week,
 *   month), whatever the DST changes in between.
 */
export const RecurrenceType = { Auto: 0, ElapsedTime: 1, LocalTime: 2 } as const;
export type RecurrenceType = (typeof RecurrenceType)[keyof typeof RecurrenceType];

/** The schedule fields of a task (ScheduledTask's, plus the optional IANA `TimeZone`), as received. */
export interface RecurrenceFields {
  readonly IsRecurringSchedule?: boolean | undefined;
  readonly Interval?: number | undefined;
  readonly IntervalType?: number | undefined;
  readonly RecurrenceType?: number | undefined;
  readonly TimeOfDay?: string | undefined;
  readonly TimeZone?: string | undefined;
}

type CalendarUnit = 'day' | 'week' | 'month';
type RateUnit = 'minute' | 'hour' | 'day';

/** A valid task schedule. Instants are epoch milliseconds, always on a whole minute. */
export type Recurrence =
  | { readonly kind: 'once'; readonly zone: Zone; readonly start: number }
  | {
      readonly kind: 'elapsed';
      readonly zone: Zone;
      /** The first run (TimeOfDay); every run is `start + k * stepMs`, k >= 0. */
      readonly start: number;
      readonly stepMs: number;
      readonly rate: { readonly value: number; readonly unit: RateUnit };
    }
  | {
      readonly kind: 'local';
      readonly zone: Zone;
      /** TimeOfDay: no run comes before it. */
      readonly start: number;
      readonly unit: CalendarUnit;
      readonly interval: number;
      /** TimeOfDay's local date in the zone: the first period, and the weekday or day of month of every run. */
      readonly date: LocalDate;
      readonly hour: number;
      readonly minute: number;
    };

/** What CreateSchedule / UpdateSchedule need besides the target: the whole definition is replaced on update. */
export interface ScheduleDefinition {
  readonly ScheduleExpression: string;
  readonly ScheduleExpressionTimezone: string;
  readonly StartDate?: Date;
  readonly ActionAfterCompletion?: 'DELETE';
}

const minuteMs = 60_000;
/** EventBridge Scheduler's cron years end with 2199: no run is computed at or after 2200-01-01T00:00Z. */
const horizonMs = Date.UTC(taskYears.last + 1, 0, 1);
const { first: firstYear, last: lastYear } = taskYears;

const intervalUnits = new Map<number, { unit: RateUnit | 'week' | 'month'; minutes?: number; max: number; name: string }>([
  [IntervalType.Minute, { unit: 'minute', minutes: 1, max: maxInterval.minute, name: 'minutes' }],
  [IntervalType.Hour, { unit: 'hour', minutes: 60, max: maxInterval.hour, name: 'hours' }],
  [IntervalType.Day, { unit: 'day', minutes: 1_440, max: maxInterval.day, name: 'days' }],
  [IntervalType.Week, { unit: 'week', minutes: 10_080, max: maxInterval.week, name: 'weeks' }],
  [IntervalType.Month, { unit: 'month', max: maxInterval.month, name: 'months' }],
]);
const knownRecurrenceTypes = new Set<number>(Object.values(RecurrenceType));

/** `yyyy-mm-ddThh:mm[:ss[.fff]]` with `Z` or `±hh[:]mm`, as z.iso.datetime({ offset: true }) accepts. */
const dateTimePattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:(Z)|([+-])(\d{2}):?(\d{2})?)$/;

interface ParsedTimeOfDay {
  /** The first (or only) run: TimeOfDay rounded UP to a whole minute (the scheduler's precision), never before it. */
  readonly instant: number;
  /** TimeOfDay itself, in epoch milliseconds rounded up (so `asked > now` is exact for any integer `now`). */
  readonly asked: number;
  readonly offsetMinutes: number;
}

const parseTimeOfDay = (value: string, errors: FieldError[]): ParsedTimeOfDay | undefined => {
  const match = dateTimePattern.exec(value);
  if (!match) {
    errors.push({ pointer: '/TimeOfDay', detail: 'must be a date-time with an offset, e.g. 2026-03-01T09:00:00+10:00' });
    return undefined;
  }
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [number, number, number, number, number];
  const seconds = Number(match[6] ?? 0);
  const fraction = match[7] ?? '';
  const sign = match[9] === '-' ? -1 : 1;
  const offsetMinutes = match[8] ? 0 : sign * (Number(match[10]) * 60 + Number(match[11] ?? 0));
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const calendar = new Date(wall);
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day || hour > 23 || minute > 59 || seconds > 59) {
    errors.push({ pointer: '/TimeOfDay', detail: 'is not a valid date and time' });
    return undefined;
  }
  if (offsetMinutes < taskOffsetMinutes.min || offsetMinutes > taskOffsetMinutes.max) {
    errors.push({ pointer: '/TimeOfDay', detail: 'offset must be between -12:00 and +14:00' });
    return undefined;
  }
  if (year < firstYear || year > lastYear) {
    errors.push({ pointer: '/TimeOfDay', detail: `year must be between ${firstYear} and ${lastYear}` });
    return undefined;
  }
  // EventBridge Scheduler fires within the minute of its expression (60 s precision), so a time with seconds or a
  // fraction runs at the next whole minute: never before the time asked.
  const minuteStart = wall - offsetMinutes * minuteMs;
  // Digits past the millisecond round up (integer arithmetic: no binary fractions).
  const digits = fraction.slice(1);
  const fractionMs = Number(digits.slice(0, 3).padEnd(3, '0')) + (/[1-9]/.test(digits.slice(3)) ? 1 : 0);
  const asked = minuteStart + seconds * 1000 + fractionMs;
  return { instant: asked > minuteStart ? minuteStart + minuteMs : minuteStart, asked, offsetMinutes };
};

const zoneOf = (fields: RecurrenceFields, timeOfDay: ParsedTimeOfDay | undefined, errors: FieldError[]): Zone | undefined => {
  if (fields.TimeZone !== undefined) {
    const name = knownTimeZone(fields.TimeZone);
    if (name === undefined) {
      errors.push({ pointer: '/TimeZone', detail: 'must be an IANA time zone name, e.g. Australia/Sydney (case-sensitive)' });
      return undefined;
    }
    return { kind: 'iana', name };
  }
  return timeOfDay && { kind: 'fixed', offsetMinutes: timeOfDay.offsetMinutes };
};

type Outcome = { readonly recurrence: Recurrence; readonly errors?: undefined } | { readonly recurrence?: undefined; readonly errors: FieldError[] };

/**
 * Reads a task's schedule fields. `now`, when given, also refuses a one-off task whose TimeOfDay has passed (a save
 * that sets or changes the schedule passes it; a save that keeps a completed one-off task does not).
 */
export const readRecurrence = (fields: RecurrenceFields, now?: Date): Outcome => {
  const errors: FieldError[] = [];
  const recurring = fields.IsRecurringSchedule;
  const intervalType = fields.IntervalType;
  const unit = intervalType === undefined ? undefined : intervalUnits.get(intervalType);

  if (intervalType !== undefined && unit === undefined && intervalType !== IntervalType.None) {
    errors.push({ pointer: '/IntervalType', detail: 'must be 1 (minute), 2 (hour), 3 (day), 4 (week) or 5 (month)' });
  }
  const recurrenceType = fields.RecurrenceType ?? RecurrenceType.Auto;
  if (!knownRecurrenceTypes.has(recurrenceType)) {
    errors.push({ pointer: '/RecurrenceType', detail: 'must be 0 (auto), 1 (elapsed time) or 2 (local time)' });
  }
  if (recurring === undefined && (intervalType !== undefined || fields.Interval !== undefined)) {
    errors.push({ pointer: '/IsRecurringSchedule', detail: 'is required when Interval or IntervalType is given' });
  }
  if (recurring === true) {
    if (intervalType === undefined || intervalType === IntervalType.None) {
      errors.push({ pointer: '/IntervalType', detail: 'is required for a recurring task: 1 (minute) to 5 (month)' });
    }
    if (fields.Interval === undefined) {
      errors.push({ pointer: '/Interval', detail: 'is required for a recurring task' });
    } else if (fields.Interval < 1) {
      errors.push({ pointer: '/Interval', detail: 'must be at least 1: a task runs at most once a minute' });
    } else if (unit && fields.Interval > unit.max) {
      errors.push({ pointer: '/Interval', detail: `must be at most ${unit.max} ${unit.name} (a year)` });
    }
    if (unit && recurrenceType === RecurrenceType.LocalTime && (unit.unit === 'minute' || unit.unit === 'hour')) {
      errors.push({ pointer: '/RecurrenceType', detail: 'local time (2) needs a day, week or month interval' });
    }
    if (unit && recurrenceType === RecurrenceType.ElapsedTime && unit.unit === 'month') {
      errors.push({ pointer: '/RecurrenceType', detail: 'elapsed time (1) needs a minute, hour, day or week interval: months differ in length' });
    }
  }

  let timeOfDay: ParsedTimeOfDay | undefined;
  if (fields.TimeOfDay === undefined) errors.push({ pointer: '/TimeOfDay', detail: 'is required: the first (or only) run' });
  else timeOfDay = parseTimeOfDay(fields.TimeOfDay, errors);
  const zone = zoneOf(fields, timeOfDay, errors);

  if (errors.length > 0 || !timeOfDay || !zone) return { errors };
  const start = timeOfDay.instant;
  // The year check reads the local date: a late 2199 time west of UTC, or one rounded up to the next minute, can
  // still fall past the scheduler's last instant, and the task would be saved with no run at all.
  if (now && start >= horizonMs) {
    return { errors: [{ pointer: '/TimeOfDay', detail: 'must fall before 2200-01-01T00:00Z, the scheduler\'s last year being 2199 (a time with seconds runs at the next whole minute)' }] };
  }

  if (recurring !== true) {
    // Refused only when really past: TimeOfDay itself against now, to the millisecond (not its rounded minute).
    if (now && timeOfDay.asked <= now.getTime()) {
      return { errors: [{ pointer: '/TimeOfDay', detail: 'must be in the future for a one-off task' }] };
    }
    return { recurrence: { kind: 'once', zone, start } };
  }
  const interval = fields.Interval as number;
  const { unit: calendarOrRate, minutes } = unit as NonNullable<typeof unit>;
  const byLocalTime =
    calendarOrRate === 'month' ||
    (recurrenceType !== RecurrenceType.ElapsedTime && (calendarOrRate === 'day' || calendarOrRate === 'week'));
  if (byLocalTime) {
    const local = localDateTimeAt(zone, start);
    return {
      recurrence: {
        kind: 'local',
        zone,
        start,
        unit: calendarOrRate as CalendarUnit,
        interval,
        date: { year: local.year, month: local.month, day: local.day },
        hour: local.hour,
        minute: local.minute,
      },
    };
  }
  // Elapsed time: weeks become days, as rate() knows only minutes, hours and days.
  const rate =
    calendarOrRate === 'week'
      ? { value: interval * 7, unit: 'day' as const }
      : { value: interval, unit: calendarOrRate as RateUnit };
  return { recurrence: { kind: 'elapsed', zone, start, stepMs: interval * (minutes as number) * minuteMs, rate } };
};

/** The task's schedule, or ValidationFailed (400 with errors[]) when its fields do not make one. */
export const recurrenceOf = (fields: RecurrenceFields, now?: Date): Recurrence => {
  const outcome = readRecurrence(fields, now);
  if (outcome.errors) throw new ValidationFailed(outcome.errors);
  return outcome.recurrence;
};

/** The errors of a task's schedule fields (empty when valid). */
export const recurrenceErrors = (fields: RecurrenceFields, now?: Date): FieldError[] => readRecurrence(fields, now).errors ?? [];

// ---- Runs ----------------------------------------------------------------------------------------------------

/** The local date of the k-th period (k >= 0) of a local-time recurrence: a month run on day 29-31 clamps. */
const dateOfPeriod = (recurrence: Extract<Recurrence, { kind: 'local' }>, k: number): LocalDate => {
  const step = k * recurrence.interval;
  if (recurrence.unit === 'day') return addDays(recurrence.date, step);
  if (recurrence.unit === 'week') return addDays(recurrence.date, step * 7);
  const { year, month } = monthOf(epochMonth(recurrence.date) + step);
  return { year, month, day: Math.min(recurrence.date.day, daysInMonth(year, month)) };
};

/**
 * The run of the k-th period: the first instant the zone's clocks show the run's wall time (a repeated time runs
 * once, at its first occurrence), or undefined when a DST gap skips it (EventBridge Scheduler skips it too).
 */
const runOfPeriod = (recurrence: Extract<Recurrence, { kind: 'local' }>, k: number): number | undefined =>
  instantsOf(recurrence.zone, { ...dateOfPeriod(recurrence, k), hour: recurrence.hour, minute: recurrence.minute })[0];

const periodsBetween = (recurrence: Extract<Recurrence, { kind: 'local' }>, to: LocalDate): number => {
  if (recurrence.unit === 'month') return epochMonth(to) - epochMonth(recurrence.date);
  const days = epochDay(to) - epochDay(recurrence.date);
  return Math.floor(recurrence.unit === 'week' ? days / 7 : days);
};

const nextRunMs = (recurrence: Recurrence, afterMs: number): number | undefined => {
  let next: number | undefined;
  if (recurrence.kind === 'once') {
    next = recurrence.start > afterMs ? recurrence.start : undefined;
  } else if (recurrence.kind === 'elapsed') {
    next =
      afterMs < recurrence.start
        ? recurrence.start
        : recurrence.start + (Math.floor((afterMs - recurrence.start) / recurrence.stepMs) + 1) * recurrence.stepMs;
  } else {
    const from = Math.max(afterMs, recurrence.start - 1);
    // Start a period early: `from`'s local date can be a day off a run's date near midnight and across zones.
    let k = Math.max(0, Math.floor(periodsBetween(recurrence, localDateTimeAt(recurrence.zone, from)) / recurrence.interval) - 1);
    for (;; k += 1) {
      const run = runOfPeriod(recurrence, k);
      if (run !== undefined && run > from) {
        next = run;
        break;
      }
      if (dateOfPeriod(recurrence, k).year > lastYear) break;
    }
  }
  return next !== undefined && next < horizonMs ? next : undefined;
};

/** The first run strictly after `instant`, or undefined when none remains (a one-off task's passed, or beyond 2199). */
export const nextRunAfter = (recurrence: Recurrence, instant: Date): Date | undefined => {
  const next = nextRunMs(recurrence, instant.getTime());
  return next === undefined ? undefined : new Date(next);
};

/** The runs in (after, until], earliest first, at most `max` of them. */
export const runsBetween = (recurrence: Recurrence, after: Date, until: Date, max = 1_000): Date[] => {
  const runs: Date[] = [];
  for (let next = nextRunMs(recurrence, after.getTime()); next !== undefined && next <= until.getTime() && runs.length < max; ) {
    runs.push(new Date(next));
    next = nextRunMs(recurrence, next);
  }
  return runs;
};

/**
 * Whether a firing of the task's schedule (`<aws.scheduler.scheduled-time>`) is one of its runs. A local-time
 * schedule whose interval no cron can say fires every period (or every day), and only these firings are runs; the
 * rest are dropped without a record.
 */
export const isRunTime = (recurrence: Recurrence, scheduledTime: Date): boolean =>
  nextRunMs(recurrence, scheduledTime.getTime() - 1) === scheduledTime.getTime();

/**
 * The misfire rule: a run is skipped when it is older than one interval, that is when the task's next run is
 * already due at `now`. A one-off task's only run never misfires: it runs late rather than never.
 */
export const isMisfire = (recurrence: Recurrence, scheduledTime: Date, now: Date): boolean => {
  if (recurrence.kind === 'once') return false;
  const next = nextRunMs(recurrence, scheduledTime.getTime());
  return next !== undefined && next <= now.getTime();
};

// ---- The EventBridge Scheduler definition ----------------------------------------------------------------------

const weekdayNames = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;

/**
 * The zone EventBridge Scheduler evaluates the expression in: the task's IANA zone; for a fixed offset of whole hours,
 * `UTC` or the `Etc/GMT∓h` zone of that offset (POSIX signs: Etc/GMT-10 is UTC+10); otherwise undefined, and the
 * expression is written in UTC.
 */
export const expressionTimeZone = (zone: Zone): string | undefined => {
  if (zone.kind === 'iana') return zone.name;
  if (zone.offsetMinutes === 0) return 'UTC';
  if (zone.offsetMinutes % 60 !== 0) return undefined;
  const hours = zone.offsetMinutes / 60;
  return `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
};

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

const atExpression = (instant: number) => {
  const time = new Date(instant);
  return `at(${time.getUTCFullYear()}-${pad(time.getUTCMonth() + 1)}-${pad(time.getUTCDate())}T${pad(time.getUTCHours())}:${pad(time.getUTCMinutes())}:00)`;
};

const rateExpression = ({ value, unit }: { value: number; unit: RateUnit }) => `rate(${value} ${unit}${value === 1 ? '' : 's'})`;

/**
 * The cron of a local-time recurrence: it fires on every period (day, week, month) at the run's wall time, so it fires
 * on every run and, when Interval > 1, on the periods between runs too (isRunTime tells them apart). A month run on
 * day 29 or 30 fires from the 28th (`28-30`) so that a shorter month's last day is among the firings; day 31 is `L`.
 * A fixed offset of a fraction of an hour has no zone: its cron fires every day at the run's UTC time.
 */
const cronExpression = (recurrence: Extract<Recurrence, { kind: 'local' }>): { expression: string; timeZone: string } => {
  const { hour, minute, date } = recurrence;
  const timeZone = expressionTimeZone(recurrence.zone);
  if (timeZone === undefined) {
    const offset = recurrence.zone.kind === 'fixed' ? recurrence.zone.offsetMinutes : 0;
    const utcMinuteOfDay = (((hour * 60 + minute - offset) % 1_440) + 1_440) % 1_440;
    return { expression: `cron(${utcMinuteOfDay % 60} ${Math.floor(utcMinuteOfDay / 60)} * * ? *)`, timeZone: 'UTC' };
  }
  let days: string;
  if (recurrence.unit === 'day') days = '* * ?';
  else if (recurrence.unit === 'week') days = `? * ${weekdayNames[isoWeekday(date) - 1]}`;
  else if (date.day <= 28) days = `${date.day} * ?`;
  else if (date.day === 31) days = 'L * ?';
  else days = `28-${date.day} * ?`;
  return { expression: `cron(${minute} ${hour} ${days} *)`, timeZone };
};

/**
 * The schedule's definition at `now`, or undefined when the task has no run left. A rate() starts at its first run
 * from now (StartDate), so its runs stay on TimeOfDay's grid; a cron() starts at TimeOfDay when that is still ahead;
 * an at() is written in UTC (an instant, free of DST ambiguity) and deletes its schedule after it fires.
 */
export const scheduleFor = (recurrence: Recurrence, now: Date): ScheduleDefinition | undefined => {
  const nowMs = now.getTime();
  if (recurrence.kind === 'once') {
    if (recurrence.start <= nowMs) return undefined;
    return { ScheduleExpression: atExpression(recurrence.start), ScheduleExpressionTimezone: 'UTC', ActionAfterCompletion: 'DELETE' };
  }
  const first = nextRunMs(recurrence, nowMs - 1);
  if (first === undefined) return undefined;
  if (recurrence.kind === 'elapsed') {
    return {
      ScheduleExpression: rateExpression(recurrence.rate),
      ScheduleExpressionTimezone: expressionTimeZone(recurrence.zone) ?? 'UTC',
      StartDate: new Date(first),
    };
  }
  const { expression, timeZone } = cronExpression(recurrence);
  return {
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: timeZone,
    ...(recurrence.start > nowMs ? { StartDate: new Date(recurrence.start) } : {}),
  };
};
