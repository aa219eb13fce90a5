// Unit tests of shared/http/codecs/form.ts: application/x-www-form-urlencoded bodies with nested and list fields.
import { describe, expect, it } from '@jest/globals';
import { MalformedBody, ValidationFailed } from '#shared/errors';
import { parseForm } from '#shared/http/codecs/form';

/** What parseForm threw, reduced to what a caller would see. */
const refusal = (body: string) => {
  try {
    parseForm(body);
  } catch (error) {
    if (error instanceof ValidationFailed) return { kind: 'ValidationFailed', errors: error.errors };
    if (error instanceof MalformedBody) return { kind: 'MalformedBody', detail: error.detail };
    throw error;
  }
  throw new Error('expected the form to be refused, but it parsed');
};

const reservedKey = (pointer: string) => ({
  kind: 'ValidationFailed',
  errors: [{ pointer, detail: 'this key is not allowed' }],
});

describe('parseForm', () => {
  it('decodes flat fields: percent-encoding, + as space, every value a string, empty values kept', () => {
    expect(parseForm('Name=Main+St%C3%A9&ID=5&IsDefault=true&Description=&Phone=%2B64%204%20123')).toEqual({
      Name: 'Main Sté',
      ID: '5',
      IsDefault: 'true',
      Description: '',
      Phone: '+64 4 123',
    });
  });

  it('returns an empty object for an empty body, and skips empty pairs (nothing between two &)', () => {
    expect([parseForm(''), parseForm('&&Name=Main&&')]).toEqual([{}, { Name: 'Main' }]);
  });

  it('refuses a value without a name, as JSON refuses a "" member (it was dropped: =orphan&Name=Main saved Main)', () => {
    for (const body of ['=orphan&Name=Main', 'Name=Main&=', '=']) {
      expect(refusal(body)).toEqual({ kind: 'MalformedBody', detail: 'The form field name "" is not valid.' });
    }
  });

  it('nests with dots and with brackets, alike and mixed', () => {
    expect(parseForm('Address.City=Nelson&Address[PostCode]=7010&Address.Geo[Lat]=-41.3&A[b][c].d=x')).toEqual({
      Address: { City: 'Nelson', PostCode: '7010', Geo: { Lat: '-41.3' } },
      A: { b: { c: { d: 'x' } } },
    });
  });

  it('turns repeated keys into a list, in order', () => {
    expect(parseForm('IDs=3&IDs=1&IDs=2&Name=Main')).toEqual({ IDs: ['3', '1', '2'], Name: 'Main' });
  });

  it('builds lists from indexes, empty brackets and dotted indexes, including lists of objects', () => {
    expect(parseForm('IDs[]=1&IDs[]=2&Codes[0]=a&Codes[1]=b&Rows[0].Name=x&Rows[0][ID]=1&Rows[1].Name=y&Steps.0=s')).toEqual({
      IDs: ['1', '2'],
      Codes: ['a', 'b'],
      Rows: [{ Name: 'x', ID: '1' }, { Name: 'y' }],
      Steps: ['s'],
    });
  });

  it('compacts sparse indexes, keeping index order', () => {
    expect(parseForm('IDs[7]=c&IDs[2]=a&IDs[4]=b&Rows[9].Name=z&Rows[3].Name=y')).toEqual({
      IDs: ['a', 'b', 'c'],
      Rows: [{ Name: 'y' }, { Name: 'z' }],
    });
  });

  it('accepts index 499 and refuses 500 and above', () => {
    expect(parseForm('IDs[499]=x')).toEqual({ IDs: ['x'] });
    expect([refusal('IDs[500]=x'), refusal('Rows[100000].Name=x')]).toEqual([
      { kind: 'MalformedBody', detail: 'The form field "IDs[500]" has an index above 499.' },
      { kind: 'MalformedBody', detail: 'The form field "Rows[100000].Name" has an index above 499.' },
    ]);
  });

  it('reads index 0 and plain digits as indexes, in brackets or after a dot', () => {
    expect(parseForm('IDs[0]=a&IDs[10]=b&Rows.0.Name=x&Rows.1[Name]=y')).toEqual({ IDs: ['a', 'b'], Rows: [{ Name: 'x' }, { Name: 'y' }] });
  });

  const notIndex = (key: string) => ({
    kind: 'MalformedBody',
    detail: `The form field "${key}" has a list index that is not a whole number from 0 to 499 in plain digits.`,
  });

  it.each([
    ['an exponent', 'Object[RefBusTrans][1e3][ID]'],
    ['a minus sign', 'Object[RefBusTrans][-1][ID]'],
    ['a plus sign', 'IDs[+1]'],
    ['a leading zero', 'IDs[01]'],
    ['two zeros', 'IDs[00]'],
    ['a fraction', 'IDs[1.5]'],
    ['hexadecimal', 'IDs[0x1]'],
    ['a trailing space', 'IDs[1 ]'],
    ['a dotted exponent', 'Rows.1e2.Name'],
    ['a dotted minus', 'Rows.-1.Name'],
    ['infinity after a sign', 'IDs[-Infinity]'],
  ])('refuses an index with %s, naming the field', (_case, key) => {
    expect(refusal(`${encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']')}=1`)).toEqual(notIndex(key));
  });

  it('refuses a malformed index even as the only member, where it was read as a one-item list', () => {
    expect([refusal('Object[RefBusTrans][1e3][ID]=1'), refusal('Object[RefBusTrans][-1][ID]=1')]).toEqual([
      notIndex('Object[RefBusTrans][1e3][ID]'),
      notIndex('Object[RefBusTrans][-1][ID]'),
    ]);
  });

  it('refuses a 501st member appended with []', () => {
    const body = Array.from({ length: 501 }, (_, index) => `IDs[]=${index}`).join('&');

    expect(refusal(body)).toEqual({ kind: 'MalformedBody', detail: 'The form field "IDs[]" has an index above 499.' });
  });

  it('accepts 16 levels of nesting and refuses 17', () => {
    const key = (depth: number) => ['a', ...Array.from({ length: depth - 1 }, () => 'b')].join('.');

    expect(parseForm(`${key(16)}=x`)).toEqual({ a: { b: { b: { b: { b: { b: { b: { b: { b: { b: { b: { b: { b: { b: { b: { b: 'x' } } } } } } } } } } } } } } } });
    expect(refusal(`${key(17)}=x`)).toEqual({ kind: 'MalformedBody', detail: `The form field name "${key(17)}" is not valid.` });
  });

  it('accepts 2000 fields and refuses 2001', () => {
    const fields = (count: number) => Array.from({ length: count }, (_, index) => `F${index}=1`).join('&');

    expect(Object.keys(parseForm(fields(2_000)))).toHaveLength(2_000);
    expect(refusal(fields(2_001))).toEqual({ kind: 'MalformedBody', detail: 'The form body has more than 2000 fields.' });
  });

  it.each([
    ['%zz', 'Name=%zz'],
    ['a truncated escape', 'Name=%4'],
    ['a trailing %', 'Name=100%'],
    ['a bad escape in a key', 'Na%G1me=x'],
  ])('refuses bad percent-encoding: %s', (_case, body) => {
    expect(refusal(body)).toEqual({ kind: 'MalformedBody', detail: 'The form body has an invalid percent-encoding.' });
  });

  it.each([
    ['an empty dot segment', 'a..b=1'],
    ['an unclosed bracket', 'a[b=1'],
    ['a stray closing bracket', 'a]=1'],
    ['nested brackets', 'a[[b]]=1'],
  ])('refuses a field name with %s', (_case, body) => {
    expect(refusal(body)).toEqual({ kind: 'MalformedBody', detail: `The form field name "${body.split('=')[0]}" is not valid.` });
  });

  it.each([
    ['a list index on the root', '[0]=1', 'The form field "[0]" mixes list and object syntax.'],
    ['a name inside a list', 'IDs[0]=1&IDs[x]=2', 'The form field "IDs[x]" mixes list and object syntax.'],
    ['a value then an object', 'a=1&a[b]=2', 'The form field "a[b]" conflicts with another field.'],
    ['an object then a value', 'a[b]=1&a=2', 'The form field "a" conflicts with another field.'],
    ['a list member then an object', 'L[0]=1&L[0].x=2', 'The form field "L[0].x" conflicts with another field.'],
  ])('refuses %s', (_case, body, detail) => {
    expect(refusal(body)).toEqual({ kind: 'MalformedBody', detail });
  });

  it('reads a field literally named like a list marker or an Object.prototype member as an ordinary field', () => {
    expect(parseForm('Notes.append=x&toString=1&a[valueOf]=2&hasOwnProperty=3')).toEqual({
      Notes: { append: 'x' },
      toString: '1',
      a: { valueOf: '2' },
      hasOwnProperty: '3',
    });
  });

  it.each([
    ['__proto__[polluted]=yes', '/__proto__'],
    ['__proto__.polluted=yes', '/__proto__'],
    ['__proto__=yes', '/__proto__'],
    ['a[__proto__]=yes', '/a/__proto__'],
    ['a[__proto__][polluted]=yes', '/a/__proto__'],
    ['a.b.__proto__.polluted=yes', '/a/b/__proto__'],
    ['Rows[0].__proto__.polluted=yes', '/Rows/0/__proto__'],
    ['%5F%5Fproto%5F%5F[polluted]=yes', '/__proto__'],
    ['constructor[prototype][polluted]=yes', '/constructor'],
    ['constructor=yes', '/constructor'],
    ['a.constructor=yes', '/a/constructor'],
    ['a[constructor][prototype][polluted]=yes', '/a/constructor'],
    ['a[prototype]=yes', '/a/prototype'],
    ['Name=ok&x.prototype.polluted=yes', '/x/prototype'],
    ['A[][constructor]=yes', '/A/-/constructor'],
  ])('refuses the reserved key in %s, pointed at where it is (%s), and leaves Object.prototype clean', (body, pointer) => {
    expect(refusal(body)).toEqual(reservedKey(pointer));
    expect([({} as Record<string, unknown>).polluted, Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')]).toEqual([
      undefined,
      false,
    ]);
  });
});

describe('bytes and repeats a form cannot mean', () => {
  // URLSearchParams decodes a byte that is not UTF-8 as U+FFFD: `Name=bad%FF%FEname` was stored as `bad\uFFFD\uFFFDname`.
  it.each([
    ['Name=bad%FF%FEname'],
    ['Name=cesu%ED%A0%80x'],
    ['SearchString=%FF'],
    ['Name=half%C3'],
    ['%FF=1'],
  ])('refuses %s: percent-escapes that are not UTF-8', (body) => {
    expect(refusal(body)).toEqual({ kind: 'MalformedBody', detail: 'The form body has percent-escapes that are not UTF-8.' });
  });

  it('reads escaped UTF-8 and raw text alike', () => {
    expect(parseForm('Name=caf%C3%A9&City=Z%C3%BCrich+%F0%9F%8F%99&Note=%E2%82%AC')).toEqual({ Name: 'café', City: 'Zürich 🏙', Note: '€' });
  });

  it('refuses one list member given twice, as a repeated single field is', () => {
    expect(refusal('IDs[0]=2&IDs[0]=1')).toEqual({ kind: 'MalformedBody', detail: 'The form field "IDs[0]" is given more than once.' });
    expect(parseForm('IDs[0]=2&IDs[1]=1')).toEqual({ IDs: ['2', '1'] });
  });
});
