// Unit tests of wall-clock arithmetic: offsets, the instants of a wall time around DST changes, calendar steps.
import { describe, expect, it } from '@jest/globals';
import { addDays, instantsOf, isoWeekday, knownTimeZone, localDateTimeAt, offsetAt, type Zone } from '#shared/schedules/zoned-time';

const sydney: Zone = { kind: 'iana', name: 'Australia/Sydney' };
const lordHowe: Zone = { kind: 'iana', name: 'Australia/Lord_Howe' };
const iso = (instants: number[]) => instants.map((instant) => new Date(instant).toISOString());

describe('zoned time', () => {
  it('reads offsets on both sides of a change, including half-hour DST (Lord Howe)', () => {
    expect(offsetAt(sydney, Date.parse('2026-01-01T00:00:00Z'))).toBe(660);
    expect(offsetAt(sydney, Date.parse('2026-07-01T00:00:00Z'))).toBe(600);
    expect(offsetAt(lordHowe, Date.parse('2026-01-01T00:00:00Z'))).toBe(660);
    expect(offsetAt(lordHowe, Date.parse('2026-07-01T00:00:00Z'))).toBe(630);
    expect(offsetAt({ kind: 'fixed', offsetMinutes: -210 }, 0)).toBe(-210);
  });

  it('maps a wall time to no instant in a gap, two in an overlap, one otherwise', () => {
    expect(instantsOf(sydney, { year: 2026, month: 10, day: 4, hour: 2, minute: 30 })).toEqual([]);
    expect(iso(instantsOf(sydney, { year: 2026, month: 4, day: 5, hour: 2, minute: 30 }))).toEqual(['2026-04-04T15:30:00.000Z', '2026-04-04T16:30:00.000Z']);
    expect(iso(instantsOf(sydney, { year: 2026, month: 6, day: 1, hour: 9, minute: 0 }))).toEqual(['2026-05-31T23:00:00.000Z']);
    expect(iso(instantsOf(lordHowe, { year: 2026, month: 4, day: 5, hour: 1, minute: 45 }))).toEqual(['2026-04-04T14:45:00.000Z', '2026-04-04T15:15:00.000Z']);
  });

  it('reads the wall time of an instant', () => {
    expect(localDateTimeAt(sydney, Date.parse('2026-04-04T15:30:00Z'))).toEqual({ year: 2026, month: 4, day: 5, hour: 2, minute: 30 });
    expect(localDateTimeAt({ kind: 'fixed', offsetMinutes: 345 }, Date.parse('2026-12-31T20:00:00Z'))).toEqual({ year: 2027, month: 1, day: 1, hour: 1, minute: 45 });
  });

  it('steps the calendar', () => {
    expect(addDays({ year: 2028, month: 2, day: 28 }, 1)).toEqual({ year: 2028, month: 2, day: 29 });
    expect(addDays({ year: 2026, month: 12, day: 31 }, 1)).toEqual({ year: 2027, month: 1, day: 1 });
    expect([isoWeekday({ year: 1970, month: 1, day: 1 }), isoWeekday({ year: 2026, month: 3, day: 1 }), isoWeekday({ year: 1969, month: 12, day: 29 })]).toEqual([4, 7, 1]);
  });

  it('knows IANA names, keeps links, refuses offsets, wrong case and junk', () => {
    expect(['Australia/Sydney', 'Asia/Kolkata', 'UTC', 'Etc/GMT-10', 'America/Argentina/Buenos_Aires'].map(knownTimeZone)).toEqual(['Australia/Sydney', 'Asia/Kolkata', 'UTC', 'Etc/GMT-10', 'America/Argentina/Buenos_Aires']);
    expect(['australia/sydney', '+10:00', 'Mars/Base', '', 'A'.repeat(65), 'Europe/London\n'].map(knownTimeZone)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});
