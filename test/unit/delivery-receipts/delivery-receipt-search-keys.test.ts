// Unit tests of the index keys of delivery-receipt Search (contract C6): what a header write spreads on its item.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  compareSortKeys,
  searchIndexAttributes,
  searchSortKey,
  sortableDate,
} from '#shared/delivery-receipts/search-keys';

const header = { ID: 7, RefNumber: ' DR-000007 ', DeliveryDate: '2026-03-01', CreatedDateTime_utc: '2026-02-27T10:00:00.000Z', Status: 'Draft' };

describe('searchIndexAttributes', () => {
  it('gives the four indexes the shard of ID mod 4 and their sort values, and the lower-cased search text', () => {
    expect(searchIndexAttributes(42, { ...header, SupplierName: 'Ａcme Foods' })).toEqual({
      searchText: 'dr-000007\nacme foods',
      gsi2pk: 'T#42#DRS#3',
      gsi2sk: '2026-03-01\u00010000000007',
      gsi3pk: 'T#42#DRS#3',
      gsi3sk: '2026-02-27T10:00:00.000Z\u00010000000007',
      gsi4pk: 'T#42#DRS#3',
      gsi4sk: 'dr-000007\u00010000000007',
      gsi5pk: 'T#42#DRS#3',
      gsi5sk: '\u00010000000007',
    });
  });

  it('keys a receipt without a delivery date first in date order, and every value is a string', () => {
    const attributes = searchIndexAttributes(1, { ...header, ID: 8, DeliveryDate: undefined });
    expect(attributes.gsi2pk).toBe('T#1#DRS#0');
    expect(attributes.gsi2sk).toBe('\u00010000000008');
    expect(Object.values(attributes).every((value) => typeof value === 'string')).toBe(true);
  });
});

describe('sortableDate', () => {
  it('keeps a date, turns a date-time into its UTC instant (no offset: UTC), and anything else into none', () => {
    expect(
      ['2026-03-01', '2026-03-01T10:00:00+08:00', '2026-03-01T10:00', '2026-02-30', 'next tuesday', '', undefined, '2026-03-01T25:00:00Z'].map(
        sortableDate,
      ),
    ).toEqual(['2026-03-01', '2026-03-01T02:00:00.000Z', '2026-03-01T10:00:00.000Z', '', '', '', '', '']);
  });

  it('orders dates and instants as time does (a date before every instant of its day)', () => {
    const ordered = ['', '2026-03-01', '2026-03-01T00:00:00.000Z', '2026-03-01T23:59:59.999Z', '2026-03-02'];
    expect([...ordered].reverse().sort(compareSortKeys)).toEqual(ordered);
  });
});

describe('sort keys', () => {
  it('order by value, a value before the longer values it begins, then by ID: as DynamoDB orders UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.nat(2_000_000_000), fc.nat(2_000_000_000), (a, b, idA, idB) => {
        const clean = (value: string) => value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
        const [left, right] = [clean(a), clean(b)];
        const byKey = Math.sign(compareSortKeys(searchSortKey(left, idA), searchSortKey(right, idB)));
        const byValue = Math.sign(compareSortKeys(left, right)) || Math.sign(idA - idB);
        expect(byKey).toBe(byValue);
      }),
    );
  });

  it('compares by UTF-8 bytes, not UTF-16 code units', () => {
    // U+FF21 is one UTF-16 unit above the surrogates of U+1F600, but its UTF-8 bytes sort below them.
    expect(compareSortKeys('\uff21', '\u{1f600}')).toBeLessThan(0);
    expect('\uff21' < '\u{1f600}').toBe(false);
  });
});
