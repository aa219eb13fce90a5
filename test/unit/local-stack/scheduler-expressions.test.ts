// Unit: the schedule-expression evaluator of the scheduler emulation (infra/local/scheduler-expressions.ts). Its
// syntax and DST rules by example, and the property that ties the emulation to production: for every task, the
// firings of the expression recurrence.ts writes, kept by isRunTime, are exactly the task's runs.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  expressionZone,
  firingsBetween,
  InvalidScheduleExpression,
  nextFiring,
  parseScheduleExpression,
  type FiringSchedule,
} from '#infra/local/scheduler-expressions';
import { isRunTime, recurrenceOf, runsBetween, scheduleFor } from '#shared/scheduled-tasks/recurrence';

const at = (iso: string) => new Date(iso).getTime();
const iso = (instants: readonly number[]) => instants.map((instant) => new Date(instant).toISOString());
const schedule = (expression: string, timeZone = 'UTC', extra: Partial<FiringSchedule> = {}): FiringSchedule => ({
  expression: parseScheduleExpression(expression),
  zone: expressionZone(timeZone),
  anchor: at('2026-01-01T00:00:00Z'),
  ...extra,
});
const firings = (expression: string, timeZone: string, after: string, until: string, extra: Partial<FiringSchedule> = {}) =>
  iso(firingsBetween(schedule(expression, timeZone, extra), at(after), at(until)));

describe('syntax', () => {
  it.each([
    'rate(0 minutes)',
    'rate(1 minutes)',
    'rate(5 minute)',
    'rate(5 weeks)',
    'cron(0 9 * * * *)',
    'cron(0 9 ? * ? *)',
    'cron(0 9 * * ?)',
    'cron(60 9 * * ? *)',
    'cron(0 9 5-1 * ? *)',
    'cron(0 9 ? * 2#1 *)',
    'cron(0 9 LW * ? *)',
    'cron(0 9 ? * 6L *)',
    'cron(0 9 * * ? 2200)',
    'at(2026-02-30T00:00:00)',
    'at(2026-01-01 00:00:00)',
    'every(5 minutes)',
  ])('refuses %s', (expression) => {
    expect(() => parseScheduleExpression(expression)).toThrow(InvalidScheduleExpression);
  });

  it('refuses an unknown time zone', () => {
    expect(() => expressionZone('Mars/Olympus')).toThrow(InvalidScheduleExpression);
    expect(expressionZone(undefined)).toEqual({ kind: 'iana', name: 'UTC' });
  });

  it('reads names, ranges, lists and steps', () => {
    expect(firings('cron(*/20 9-10 ? JAN MON-WED,FRI 2026)', 'UTC', '2026-01-04T00:00:00Z', '2026-01-06T00:00:00Z')).toEqual([
      '2026-01-05T09:00:00.000Z',
      '2026-01-05T09:20:00.000Z',
      '2026-01-05T09:40:00.000Z',
      '2026-01-05T10:00:00.000Z',
      '2026-01-05T10:20:00.000Z',
      '2026-01-05T10:40:00.000Z',
    ]);
    expect(firings('cron(15 6 ? * 1 *)', 'UTC', '2026-01-01T00:00:00Z', '2026-01-12T00:00:00Z')).toEqual(['2026-01-04T06:15:00.000Z', '2026-01-11T06:15:00.000Z']);
  });
});

describe('firing times', () => {
  it('fires a rate() every period from its StartDate, inclusive, or from its creation', () => {
    expect(firings('rate(90 minutes)', 'UTC', '2026-01-01T00:00:00Z', '2026-01-01T04:00:00Z', { startDate: at('2026-01-01T00:30:00Z') })).toEqual([
      '2026-01-01T00:30:00.000Z',
      '2026-01-01T02:00:00.000Z',
      '2026-01-01T03:30:00.000Z',
    ]);
    expect(firings('rate(1 day)', 'UTC', '2026-01-01T00:00:00Z', '2026-01-03T00:00:00Z')).toEqual(['2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z']);
  });

  it('keeps a rate() on elapsed time across DST, and a cron() on local time (Sydney leaves DST on 5 April 2026)', () => {
    const start = at('2026-04-04T09:00:00+11:00');
    expect(firings('rate(1 day)', 'Australia/Sydney', '2026-04-03T00:00:00Z', '2026-04-06T00:00:00Z', { startDate: start })).toEqual([
      '2026-04-03T22:00:00.000Z',
      '2026-04-04T22:00:00.000Z',
      '2026-04-05T22:00:00.000Z',
    ]);
    expect(firings('cron(0 9 * * ? *)', 'Australia/Sydney', '2026-04-03T00:00:00Z', '2026-04-06T00:00:00Z')).toEqual([
      '2026-04-03T22:00:00.000Z',
      '2026-04-04T23:00:00.000Z',
      '2026-04-05T23:00:00.000Z',
    ]);
  });

  it('skips a local time a DST gap removes, and fires a repeated one once, at its first occurrence', () => {
    expect(firings('cron(30 2 * * ? *)', 'America/New_York', '2026-03-06T12:00:00Z', '2026-03-09T12:00:00Z')).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
    expect(firings('cron(30 1 * * ? *)', 'America/New_York', '2026-10-31T12:00:00Z', '2026-11-02T12:00:00Z')).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('fires L on the last day of every month, 28-30 on each of those days', () => {
    expect(firings('cron(0 0 L * ? *)', 'UTC', '2028-01-15T00:00:00Z', '2028-04-15T00:00:00Z')).toEqual([
      '2028-01-31T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z',
      '2028-03-31T00:00:00.000Z',
    ]);
    expect(firings('cron(0 0 28-30 * ? *)', 'UTC', '2027-02-01T00:00:00Z', '2027-03-02T00:00:00Z')).toEqual(['2027-02-28T00:00:00.000Z']);
  });

  it('fires an at() once, in its zone, and respects StartDate and EndDate', () => {
    expect(firings('at(2026-05-01T09:00:00)', 'Asia/Kolkata', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual(['2026-05-01T03:30:00.000Z']);
    expect(nextFiring(schedule('at(2026-05-01T09:00:00)'), at('2026-05-01T09:00:00Z'))).toBeUndefined();
    expect(
      firings('cron(0 12 * * ? *)', 'UTC', '2026-01-01T00:00:00Z', '2026-01-10T00:00:00Z', {
        startDate: at('2026-01-03T12:00:00Z'),
        endDate: at('2026-01-05T12:00:00Z'),
      }),
    ).toEqual(['2026-01-03T12:00:00.000Z', '2026-01-04T12:00:00.000Z', '2026-01-05T12:00:00.000Z']);
  });

  it('fires nothing past 2199', () => {
    expect(nextFiring(schedule('cron(0 0 1 1 ? *)'), at('2199-06-01T00:00:00Z'))).toBeUndefined();
    expect(nextFiring(schedule('cron(0 0 31 2 ? *)'), at('2026-01-01T00:00:00Z'))).toBeUndefined();
  });
});

// ---- The property: the emulation fires what production's schedule fires, and the runs among them are the task's --

const zones = ['Australia/Sydney', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'UTC'];
const offsets = ['Z', '+10:00', '-05:00', '+05:30', '+05:45', '-03:30', '+14:00', '-12:00'];
const pad = (value: number) => String(value).padStart(2, '0');

const taskArbitrary = fc
  .record({
    recurring: fc.boolean(),
    intervalType: fc.integer({ min: 1, max: 5 }),
    interval: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 12 })),
    elapsed: fc.boolean(),
    zone: fc.option(fc.constantFrom(...zones), { nil: undefined }),
    offset: fc.constantFrom(...offsets),
    // Month ends and DST weekends are over-represented: day 28-31 and March, April, October, November.
    date: fc.oneof(
      fc.date({ min: new Date('2025-01-01T00:00:00Z'), max: new Date('2028-12-31T00:00:00Z'), noInvalidDate: true }),
      fc
        .record({ year: fc.integer({ min: 2025, max: 2028 }), month: fc.constantFrom(1, 3, 4, 10, 11), day: fc.integer({ min: 26, max: 31 }), minutes: fc.integer({ min: 0, max: 1439 }) })
        .map(({ year, month, day, minutes }) => new Date(Date.UTC(year, month - 1, Math.min(day, 28 + ((month + 1) % 3)), 0, minutes))),
    ),
  })
  .map(({ recurring, intervalType, interval, elapsed, zone, offset, date }) => {
    const RecurrenceType = intervalType === 5 ? 0 : intervalType <= 2 ? 0 : elapsed ? 1 : 2;
    const wall = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:00`;
    return recurring
      ? { IsRecurringSchedule: true, IntervalType: intervalType, Interval: interval, RecurrenceType, TimeOfDay: `${wall}${offset}`, TimeZone: zone }
      : { IsRecurringSchedule: false, TimeOfDay: `${wall}${offset}`, TimeZone: zone };
  });

const windowDays: Readonly<Record<number, number>> = { 1: 1, 2: 5, 3: 60, 4: 200, 5: 400 };

describe('the emulation against production', () => {
  it('for every task, the firings of its schedule that are runs (isRunTime) are exactly its runs, DST and month ends included', () => {
    fc.assert(
      fc.property(taskArbitrary, fc.integer({ min: -3 * 1_440, max: 60 * 1_440 }), (fields, minutes) => {
        const recurrence = recurrenceOf(fields);
        // Created at any moment around TimeOfDay, never on a whole minute (a firing is never "now").
        const now = recurrence.start + minutes * 60_000 + 30_000;
        const definition = scheduleFor(recurrence, new Date(now));
        const until =
          now + (fields.IsRecurringSchedule ? windowDays[fields.IntervalType as number]! * (fields.Interval as number) * 86_400_000 : 86_400_000);
        const runs = iso(runsBetween(recurrence, new Date(now), new Date(until), 10_000).map((run) => run.getTime()));
        if (!definition) {
          expect(runs).toEqual([]);
          return;
        }
        const emulated: FiringSchedule = {
          expression: parseScheduleExpression(definition.ScheduleExpression),
          zone: expressionZone(definition.ScheduleExpressionTimezone),
          ...(definition.StartDate ? { startDate: definition.StartDate.getTime() } : {}),
          anchor: now,
        };
        const fired = firingsBetween(emulated, now, until, 20_000);
        expect(iso(fired.filter((firing) => isRunTime(recurrence, new Date(firing))))).toEqual(runs);
      }),
      { numRuns: 250 },
    );
  });
});
