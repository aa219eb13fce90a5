// Test support: arbitraries of text shaped like an RFC 3339 date-time (fast-check), each part drawn up to its own
// maximum, so a part can be in or out of its range; for the property tests that hold the server's calendar reader,
// its patterns and the document's validators to one answer.
import fc from 'fast-check';

export const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** The largest value each part may take (two digits at most, the year four). */
export interface PartMaxima {
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly offsetHour: number;
  readonly offsetMinute: number;
}

/** `YYYY-MM-DDThh:mm:ss` then `Z` or `±hh:mm`, each part from 0 to its maximum (seconds as minutes). */
export const dateTimeShapedText = (max: PartMaxima): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: max.month }),
      fc.integer({ min: 0, max: max.day }),
      fc.integer({ min: 0, max: max.hour }),
      fc.integer({ min: 0, max: max.minute }),
      fc.integer({ min: 0, max: max.minute }),
      fc.constantFrom('Z', '+', '-'),
      fc.integer({ min: 0, max: max.offsetHour }),
      fc.integer({ min: 0, max: max.offsetMinute }),
    )
    .map(([y, mo, d, h, mi, s, sign, oh, om]) => `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${sign === 'Z' ? 'Z' : `${sign}${pad(oh)}:${pad(om)}`}`);
