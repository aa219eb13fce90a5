// Unit: the semver `gte` the tracer chunk gives aws-xray-sdk-core in place of the semver package
// (shared/observability/semver-gte.ts) orders versions exactly as semver does.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { compare, gte } from '#shared/observability/semver-gte';

const semver = createRequire(import.meta.url)('semver') as { compare(a: string, b: string): number; gte(a: string, b: string): boolean };

const identifier = fc.oneof(fc.constantFrom('0', '1', '2', '10', '11', 'alpha', 'beta', 'rc', 'a-1', 'A', 'x'), fc.nat(30).map(String));
const version = fc
  .tuple(fc.nat(12), fc.nat(12), fc.nat(12), fc.array(identifier, { maxLength: 3 }), fc.option(fc.constantFrom('build.5', 'sha.abc'), { nil: undefined }))
  .map(([major, minor, patch, prerelease, build]) => `${major}.${minor}.${patch}${prerelease.length ? `-${prerelease.join('.')}` : ''}${build ? `+${build}` : ''}`);

describe('semver gte', () => {
  it.each([
    ['2.1692.0', '2.7.15', true],
    ['2.7.15', '2.7.15', true],
    ['2.7.14', '2.7.15', false],
    ['1.0.0-alpha', '1.0.0', false],
    ['1.0.0', '1.0.0-rc.1', true],
    ['1.0.0-alpha.1', '1.0.0-alpha', true],
    ['1.0.0-alpha.beta', '1.0.0-alpha.1', true],
    ['1.0.0-rc.1', '1.0.0-beta.11', true],
    ['1.0.0-beta.11', '1.0.0-beta.2', true],
    ['1.0.0+build.1', '1.0.0', true],
    ['v3.2.1', '3.2.0', true],
  ])('%s >= %s is %s, as semver says', (a, b, expected) => {
    expect(gte(a, b)).toBe(expected);
    expect(semver.gte(a, b)).toBe(expected);
  });

  it('orders every pair of versions as semver does (property)', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(compare(a, b)).toBe(semver.compare(a, b));
        expect(gte(a, b)).toBe(semver.gte(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what is not a version, as semver does', () => {
    for (const text of ['2.7', 'latest', '01.2.3', '1.2.3-']) {
      expect(() => gte(text, '1.0.0')).toThrow(TypeError);
      expect(() => semver.gte(text, '1.0.0')).toThrow(TypeError);
    }
  });
});
