// Local stack: an evaluator of EventBridge Scheduler's schedule expressions, for the scheduler emulation
// (scheduler.ts) only, so it lives beside it, out of the production tree: when does a schedule fire. It reads the expressions the production code writes
// (shared/scheduled-tasks/recurrence.ts `scheduleFor`) and the rest of the documented syntax the emulation accepts:
// - `rate(N minute|minutes|hour|hours|day|days)`: every N units of elapsed time from StartDate (or creation);
// - `cron(minutes hours day-of-month month day-of-week year)` in ScheduleExpressionTimezone: `*`, `?`, values,
//   ranges `a-b`, lists `a,b`, steps `*/n` `a/n` `a-b/n`, `L` (last day of the month), month names JAN-DEC,
//   weekday names SUN-SAT (or 1-7, 1 = Sunday); one of day-of-month and day-of-week must be `?`. `W`, `#` and
//   `L` in day-of-week are refused (the emulation does not evaluate them);
// - `at(yyyy-mm-ddThh:mm:ss)` in ScheduleExpressionTimezone: once.
// DST follows EventBridge Scheduler (and the scheduled tasks' recurrence.ts): a local time a change skips does not fire that day; a
// local time it repeats fires once, at its first occurrence. Times are epoch milliseconds; pure.
import { addDays, daysInMonth, instantsOf, isoWeekday, knownTimeZone, localDateTimeAt, type LocalDate, type LocalDateTime, type Zone } from '#shared/schedules/zoned-time';

export type ScheduleExpression =
  | { readonly kind: 'rate'; readonly stepMs: number }
  | { readonly kind: 'cron'; readonly cron: CronFields }
  | { readonly kind: 'at'; readonly local: LocalDateTime; readonly second: number };

export interface CronFields {
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  /** Days of the month (1-31), or undefined for `?`/`*` with `lastDay` false. */
  readonly days?: ReadonlySet<number>;
  readonly lastDay: boolean;
  readonly months: ReadonlySet<number>;
  /** Weekdays as AWS numbers them (1 Sunday ... 7 Saturday), or undefined for `?`/`*`. */
  readonly weekdays?: ReadonlySet<number>;
  readonly years: ReadonlySet<number>;
}

/** The expression (or time zone) is not one EventBridge Scheduler accepts; the message says why. */
export class InvalidScheduleExpression extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'InvalidScheduleExpression';
  }
}

const minuteMs = 60_000;
const firstYear = 1970;
const lastYear = 2199;
/** No firing at or after 2200-01-01T00:00Z: the scheduler's cron years end with 2199. */
const horizonMs = Date.UTC(lastYear + 1, 0, 1);

const rateUnits = new Map([
  ['minute', minuteMs],
  ['hour', 60 * minuteMs],
  ['day', 24 * 60 * minuteMs],
]);
const monthNames = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const weekdayNames = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const parseRate = (body: string): ScheduleExpression => {
  const match = /^(\d{1,9}) (minute|hour|day)(s?)$/.exec(body);
  if (!match) throw new InvalidScheduleExpression('rate() must be rate(<value> <minute(s)|hour(s)|day(s)>)');
  const value = Number(match[1]);
  if (value < 1) throw new InvalidScheduleExpression('rate() value must be at least 1');
  // AWS: "If the value is equal to 1, then the unit must be singular"; otherwise plural.
  if ((value === 1) !== (match[3] === '')) throw new InvalidScheduleExpression('rate() unit must be singular for 1 and plural otherwise');
  return { kind: 'rate', stepMs: value * rateUnits.get(match[2] as string)! };
};

/** One cron field: a list of `*`, values, ranges and steps over [min, max], with names where the field has them. */
const parseField = (text: string, min: number, max: number, names: readonly string[] = [], nameBase = 1): Set<number> => {
  const valueOf = (token: string): number => {
    const named = names.indexOf(token.toUpperCase());
    if (named >= 0) return named + nameBase;
    if (!/^\d{1,4}$/.test(token)) throw new InvalidScheduleExpression(`cron() value "${token}" is not valid`);
    const value = Number(token);
    if (value < min || value > max) throw new InvalidScheduleExpression(`cron() value ${value} is outside ${min}-${max}`);
    return value;
  };
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (range === undefined || extra !== undefined) throw new InvalidScheduleExpression(`cron() field "${text}" is not valid`);
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1 || (stepText !== undefined && !/^\d+$/.test(stepText))) {
      throw new InvalidScheduleExpression(`cron() step "${stepText}" is not valid`);
    }
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [min, max];
    else if (range.includes('-')) {
      const [low, high, more] = range.split('-');
      if (low === undefined || high === undefined || more !== undefined) throw new InvalidScheduleExpression(`cron() range "${range}" is not valid`);
      [from, to] = [valueOf(low), valueOf(high)];
      if (from > to) throw new InvalidScheduleExpression(`cron() range "${range}" runs backwards`);
    } else {
      from = valueOf(range);
      to = stepText === undefined ? from : max;
    }
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return values;
};

const sorted = (values: Set<number>): number[] => [...values].sort((a, b) => a - b);

const parseCron = (body: string): ScheduleExpression => {
  const fields = body.split(' ');
  if (fields.length !== 6 || fields.some((field) => field === '')) {
    throw new InvalidScheduleExpression('cron() must have six fields: minutes hours day-of-month month day-of-week year');
  }
  const [minutes, hours, dayOfMonth, month, dayOfWeek, year] = fields as [string, string, string, string, string, string];
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    throw new InvalidScheduleExpression('cron() needs ? in exactly one of day-of-month and day-of-week');
  }
  if (/W/.test(dayOfMonth) || /[#L]/.test(dayOfWeek)) {
    throw new InvalidScheduleExpression('cron() W, # and L in day-of-week are not supported by the local scheduler emulation');
  }
  let days: Set<number> | undefined;
  let lastDay = false;
  if (dayOfMonth !== '?' && dayOfMonth !== '*') {
    const parts = dayOfMonth.split(',');
    lastDay = parts.includes('L');
    const rest = parts.filter((part) => part !== 'L');
    days = rest.length > 0 ? parseField(rest.join(','), 1, 31) : new Set();
  }
  return {
    kind: 'cron',
    cron: {
      minutes: sorted(parseField(minutes, 0, 59)),
      hours: sorted(parseField(hours, 0, 23)),
      ...(days ? { days } : {}),
      lastDay,
      months: parseField(month, 1, 12, monthNames),
      ...(dayOfWeek !== '?' && dayOfWeek !== '*' ? { weekdays: parseField(dayOfWeek, 1, 7, weekdayNames) } : {}),
      years: parseField(year, firstYear, lastYear),
    },
  };
};

const parseAt = (body: string): ScheduleExpression => {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(body);
  if (!match) throw new InvalidScheduleExpression('at() must be at(yyyy-mm-ddThh:mm:ss)');
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw new InvalidScheduleExpression('at() is not a valid date and time');
  }
  return { kind: 'at', local: { year, month, day, hour, minute }, second };
};

/** Reads a ScheduleExpression; throws InvalidScheduleExpression with the reason. */
export const parseScheduleExpression = (text: string): ScheduleExpression => {
  const match = /^(rate|cron|at)\((.*)\)$/.exec(text);
  if (!match) throw new InvalidScheduleExpression('ScheduleExpression must be rate(...), cron(...) or at(...)');
  const body = match[2] as string;
  if (match[1] === 'rate') return parseRate(body);
  if (match[1] === 'cron') return parseCron(body);
  return parseAt(body);
};

/** The zone of ScheduleExpressionTimezone (an IANA name; UTC by default); throws for an unknown one. */
export const expressionZone = (timeZone: string | undefined): Zone => {
  const name = timeZone ?? 'UTC';
  if (knownTimeZone(name) === undefined) throw new InvalidScheduleExpression(`ScheduleExpressionTimezone ${name} is not a known time zone`);
  return { kind: 'iana', name };
};

/** A schedule as far as its firing times go. */
export interface FiringSchedule {
  readonly expression: ScheduleExpression;
  readonly zone: Zone;
  /** StartDate: no firing before it (inclusive). A rate() counts its periods from it. */
  readonly startDate?: number;
  /** EndDate: no firing after it (inclusive). */
  readonly endDate?: number;
  /** When the schedule was created or last updated: a rate() without StartDate counts from here. */
  readonly anchor: number;
}

const dayMatches = (cron: CronFields, date: LocalDate): boolean => {
  if (cron.days !== undefined || cron.lastDay) {
    const last = daysInMonth(date.year, date.month);
    return (cron.days?.has(date.day) ?? false) || (cron.lastDay && date.day === last);
  }
  if (cron.weekdays !== undefined) return cron.weekdays.has((isoWeekday(date) % 7) + 1);
  return true;
};

/** The first cron firing at or after `fromMs`, or undefined before the horizon. */
const nextCron = (cron: CronFields, zone: Zone, fromMs: number): number | undefined => {
  // A day early: `fromMs`'s local date can be a day off near midnight; firings before `fromMs` are passed over.
  let date = addDays(localDateTimeAt(zone, fromMs), -1);
  while (date.year <= lastYear) {
    if (!cron.years.has(date.year)) {
      date = { year: date.year + 1, month: 1, day: 1 };
      continue;
    }
    if (!cron.months.has(date.month)) {
      date = date.month === 12 ? { year: date.year + 1, month: 1, day: 1 } : { year: date.year, month: date.month + 1, day: 1 };
      continue;
    }
    if (dayMatches(cron, date)) {
      for (const hour of cron.hours) {
        for (const minute of cron.minutes) {
          // No instant: a DST gap skips this time today. Two: it runs at the first.
          const first = instantsOf(zone, { ...date, hour, minute })[0];
          if (first !== undefined && first >= fromMs) return first;
        }
      }
    }
    date = addDays(date, 1);
  }
  return undefined;
};

/** The schedule's first firing strictly after `afterMs`, or undefined when it fires no more. */
export const nextFiring = (schedule: FiringSchedule, afterMs: number): number | undefined => {
  const fromMs = Math.max(afterMs + 1, schedule.startDate ?? Number.NEGATIVE_INFINITY);
  const { expression } = schedule;
  let next: number | undefined;
  if (expression.kind === 'rate') {
    const anchor = schedule.startDate ?? schedule.anchor;
    next = fromMs <= anchor ? anchor : anchor + Math.ceil((fromMs - anchor) / expression.stepMs) * expression.stepMs;
  } else if (expression.kind === 'at') {
    const first = instantsOf(schedule.zone, expression.local)[0];
    const instant = first === undefined ? undefined : first + expression.second * 1000;
    next = instant !== undefined && instant > afterMs ? instant : undefined;
  } else {
    next = nextCron(expression.cron, schedule.zone, fromMs);
  }
  if (next === undefined || next >= horizonMs) return undefined;
  if (schedule.endDate !== undefined && next > schedule.endDate) return undefined;
  return next;
};

/** The firings in (after, until], earliest first, at most `max`. */
export const firingsBetween = (schedule: FiringSchedule, afterMs: number, untilMs: number, max = 10_000): number[] => {
  const firings: number[] = [];
  for (let next = nextFiring(schedule, afterMs); next !== undefined && next <= untilMs && firings.length < max; next = nextFiring(schedule, next)) {
    firings.push(next);
  }
  return firings;
};
