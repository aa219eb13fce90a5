// Unit: the address the local stack's OpenAPI document names as its first server. The Host header is the client's:
// only a syntactically valid host[:port] is taken, anything else falls back to the address the request reached.
import { serverUrlOf, validHost } from '#infra/local/reference-page';

const listening = { address: '127.0.0.1', port: 41234 };

describe('validHost', () => {
  it.each([
    ['localhost', 'localhost'],
    ['localhost:3000', 'localhost:3000'],
    ['API.Example.TEST:8443', 'api.example.test:8443'],
    ['127.0.0.1:1', '127.0.0.1:1'],
    ['10.0.0.1:65535', '10.0.0.1:65535'],
    ['[::1]', '[::1]'],
    ['[::1]:3000', '[::1]:3000'],
    ['[2001:db8::1]:80', '[2001:db8::1]:80'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    [`${'a'.repeat(63)}.example`, `${'a'.repeat(63)}.example`],
  ])('%s is a host[:port]', (header, expected) => {
    expect(validHost(header)).toBe(expected);
  });

  it.each([
    undefined,
    '',
    ' ',
    'localhost ',
    ' localhost',
    'local host',
    'localhost:',
    'localhost:0',
    'localhost:00000',
    'localhost:65536',
    'localhost:999999',
    'localhost:-1',
    'localhost:80:80',
    'localhost:http',
    'user@localhost',
    'user:pass@localhost',
    'localhost/path',
    'localhost?x=1',
    'localhost#x',
    'http://localhost',
    '//localhost',
    '-localhost',
    'localhost-',
    'local_host',
    'a..b',
    '.example',
    'example.',
    `${'a'.repeat(64)}.example`,
    `${'a.'.repeat(140)}example`,
    '::1',
    '[::1',
    '::1]',
    '[localhost]',
    '[::g]',
    '[::1]x',
    '[::1]:0',
    'bücher.example',
    '"><script>alert(1)</script>',
    'localhost\r\nX-Injected: 1',
    'localhost\u0000',
    '%6cocalhost',
    '__proto__',
  ])('%j is not', (header) => {
    expect(validHost(header)).toBeUndefined();
  });
});

describe('serverUrlOf', () => {
  it('names the Host header with the stage base path', () => {
    expect(serverUrlOf('localhost:3001', listening)).toBe('http://localhost:3001/api');
    expect(serverUrlOf('[::1]:3001', listening)).toBe('http://[::1]:3001/api');
  });

  it.each([undefined, '', 'evil.example/x', 'evil.example:0'])('falls back to the listening address for Host %j', (header) => {
    expect(serverUrlOf(header, listening)).toBe('http://127.0.0.1:41234/api');
  });

  it('writes a listening IPv6 address in brackets, and an IPv4-mapped one as IPv4', () => {
    expect(serverUrlOf(undefined, { address: '::1', port: 8080 })).toBe('http://[::1]:8080/api');
    expect(serverUrlOf(undefined, { address: '::ffff:127.0.0.1', port: 8080 })).toBe('http://127.0.0.1:8080/api');
  });
});
