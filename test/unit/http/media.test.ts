// Unit tests of shared/http/media.ts: media-type parsing and Accept negotiation (RFC 9110 §12.5.1).
import { describe, expect, it } from '@jest/globals';
import { isXmlMediaType, negotiate, parseMediaType, responseMediaTypes } from '#shared/http/media';

const standard = responseMediaTypes.standard;

describe('negotiate', () => {
  it('admits a range naming a charset only for UTF-8, the charset of every answer, and prefers it over the bare range', () => {
    expect(negotiate('application/xml; charset=utf-16', standard)).toBeUndefined();
    expect(negotiate('application/xml;charset=iso-8859-1, application/json;q=0.1', standard)).toBe('application/json');
    expect(negotiate('application/xml; charset="UTF-8"', standard)).toBe('application/xml');
    expect(negotiate('*/*; charset=utf-16', standard)).toBeUndefined();
    // The more specific range decides: XML in UTF-8 at 0.2, any XML at 1, JSON at 0.5.
    expect(negotiate('application/xml;charset=utf-8;q=0.2, application/xml, application/json;q=0.5', standard)).toBe('application/json');
  });

  it('answers JSON, the server default, when there is no Accept header or it is blank', () => {
    expect(negotiate(undefined, standard)).toBe('application/json');
    expect(negotiate('', standard)).toBe('application/json');
    expect(negotiate('   ', standard)).toBe('application/json');
  });

  it.each([
    ['application/json', 'application/json'],
    ['text/json', 'text/json'],
    ['application/xml', 'application/xml'],
    ['text/xml', 'text/xml'],
    ['Application/XML', 'application/xml'],
    ['application/xml; charset=utf-8', 'application/xml'],
  ])('picks the one exact type the client names: %s', (accept, expected) => {
    expect(negotiate(accept, standard)).toBe(expected);
  });

  it('follows q-values, whatever the order of the ranges', () => {
    expect(negotiate('application/json;q=0.4, application/xml;q=0.9', standard)).toBe('application/xml');
    expect(negotiate('application/xml;q=0.9, application/json;q=0.4', standard)).toBe('application/xml');
    expect(negotiate('text/xml;q=0.2, text/json;q=0.3', standard)).toBe('text/json');
    expect(negotiate('application/xml, application/json;q=0.999', standard)).toBe('application/xml');
  });

  it('breaks ties by the server order, JSON first', () => {
    expect(negotiate('application/xml, application/json', standard)).toBe('application/json');
    expect(negotiate('text/xml;q=0.5, application/json;q=0.5', standard)).toBe('application/json');
    expect(negotiate('text/xml, application/xml', standard)).toBe('application/xml');
    expect(negotiate('*/*', standard)).toBe('application/json');
  });

  it('matches wildcards: */* is anything, text/* and application/* their own family only', () => {
    expect(negotiate('*/*', ['application/xml'])).toBe('application/xml');
    expect(negotiate('text/*', standard)).toBe('text/json');
    expect(negotiate('application/*', ['text/xml', 'application/xml'])).toBe('application/xml');
    expect(negotiate('image/*', standard)).toBeUndefined();
  });

  it('lets the most specific matching range decide the q of a type', () => {
    // application/json is refused outright although */* would accept it: the specific range wins.
    expect(negotiate('*/*, application/json;q=0', standard)).toBe('text/json');
    expect(negotiate('application/*;q=0, application/xml', standard)).toBe('application/xml');
    expect(negotiate('text/*;q=0.9, text/xml;q=0.1, */*;q=0.5', standard)).toBe('text/json');
    expect(negotiate('*/*;q=0.1, application/xml', standard)).toBe('application/xml');
    expect(negotiate('application/*;q=0.5, text/xml', standard)).toBe('text/xml');
  });

  it('answers undefined (the caller says 406) when only unsupported types are acceptable', () => {
    expect(negotiate('image/png', standard)).toBeUndefined();
    expect(negotiate('text/html, application/pdf;q=0.9', standard)).toBeUndefined();
    expect(negotiate('application/xml', responseMediaTypes.json)).toBeUndefined();
  });

  it('treats q=0 as "not acceptable" and an invalid q as 0', () => {
    expect(negotiate('application/json;q=0, application/xml;q=0, text/json;q=0, text/xml;q=0', standard)).toBeUndefined();
    expect(negotiate('application/json;q=abc', ['application/json'])).toBeUndefined();
    expect(negotiate('application/json;q=2', ['application/json'])).toBeUndefined();
    expect(negotiate('application/json;q=-1', ['application/json'])).toBeUndefined();
  });

  it('ignores malformed ranges among good ones, and falls back to the default when every range is malformed', () => {
    expect(negotiate('garbage, application/xml', standard)).toBe('application/xml');
    expect(negotiate('garbage', standard)).toBe('application/json');
    expect(negotiate(',,,', standard)).toBe('application/json');
  });
});

describe('parseMediaType', () => {
  it('lower-cases the type and parameter names, keeps parameter values, unquotes quoted values', () => {
    expect(parseMediaType('Application/JSON ; Charset="UTF-8"')).toEqual({
      type: 'application/json',
      parameters: { charset: 'UTF-8' },
    });
    expect(parseMediaType('text/xml;charset=latin1;q=0.5')).toEqual({
      type: 'text/xml',
      parameters: { charset: 'latin1', q: '0.5' },
    });
  });

  it('parses a wildcard range', () => {
    expect(parseMediaType('*/*')).toEqual({ type: '*/*', parameters: {} });
    expect(parseMediaType('text/*;q=0.3')).toEqual({ type: 'text/*', parameters: { q: '0.3' } });
  });

  it.each(['application/json; charset=utf-16; charset=utf-8', 'application/json; charset=utf-8; CHARSET=utf-8', 'text/xml; q=0.1; Q=1', 'application/json; a=1; charset="x"; a=1'])(
    'refuses a parameter named twice, in any case form, whether or not the values agree: %s',
    (value) => {
      expect(parseMediaType(value)).toBeUndefined();
    },
  );

  it('allows an empty parameter, and refuses one without a value or a name, or with a value that is no token nor quoted string', () => {
    expect(parseMediaType('application/json; ; a=1;')).toEqual({ type: 'application/json', parameters: { a: '1' } });
    expect(parseMediaType('application/json; charset="utf-8"')).toEqual({ type: 'application/json', parameters: { charset: 'utf-8' } });
    for (const malformed of ['application/json;charset', 'application/json; flag; a=1', 'application/json; =x', 'application/json; charset=', 'application/json; charset=utf 8', 'application/json; a="unclosed']) {
      expect([malformed, parseMediaType(malformed)]).toEqual([malformed, undefined]);
    }
  });

  it.each(['', 'json', 'application/', '/json', 'a/b/c', 'app lication/json', 'application/js on', 'application/json(', ';charset=utf-8'])(
    'refuses garbage: %j',
    (value) => {
      expect(parseMediaType(value)).toBeUndefined();
    },
  );
});

describe('isXmlMediaType', () => {
  it('knows the two XML types and nothing else', () => {
    expect([standard.map(isXmlMediaType), isXmlMediaType('application/problem+xml')]).toEqual([[false, false, true, true], false]);
  });
});
