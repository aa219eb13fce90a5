// The committed lockfile is one that the stock npm's `npm ci` accepts: every entry has a version and an
// integrity (links and bundled entries excepted). A failure names the entries.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { entryDefect, incompleteEntries, lockfilePath, type Lockfile, type LockfileEntry } from '#infra/build/lockfile';

describe('package-lock.json', () => {
  it('has a version and an integrity in every entry', () => {
    const lockfile = JSON.parse(readFileSync(lockfilePath, 'utf8')) as Lockfile;
    expect(incompleteEntries(lockfile)).toEqual([]);
  });

  it('pins every dependency of package.json to the version it names', () => {
    const manifest = JSON.parse(readFileSync(lockfilePath.replace(/package-lock\.json$/, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const lockfile = JSON.parse(readFileSync(lockfilePath, 'utf8')) as Lockfile;
    const named = { ...manifest.dependencies, ...manifest.devDependencies };
    const drift = Object.entries(named).filter(([name, version]) => lockfile.packages?.[`node_modules/${name}`]?.version !== version);
    expect(drift).toEqual([]);
  });
});

// npm's own range semantics (npm checks engines with semver): a typed view of the one function used.
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean };

describe('engines', () => {
  // `npm ci` warns EBADENGINE for any installed package whose engines refuse the running Node (.ci/run fails on it).
  // Every entry a Linux x64 or arm64 machine installs must accept the oldest Node the project supports.
  it('every installed package accepts the oldest Node that package.json engines allows', () => {
    const manifest = JSON.parse(readFileSync(lockfilePath.replace(/package-lock\.json$/, 'package.json'), 'utf8')) as { engines: { node: string } };
    const oldest = /^>=\s*(\d+\.\d+(?:\.\d+)?)$/.exec(manifest.engines.node)?.[1];
    expect(oldest).toBeDefined();
    const version = oldest!.split('.').length === 2 ? `${oldest}.0` : oldest!;
    const lockfile = JSON.parse(readFileSync(lockfilePath, 'utf8')) as { packages: Record<string, LockfileEntry & { engines?: { node?: string }; os?: string[] }> };
    const refusing = Object.entries(lockfile.packages)
      .filter(([path, entry]) => path !== '' && typeof entry.engines?.node === 'string' && (entry.os === undefined || entry.os.includes('linux')))
      .filter(([, entry]) => !semver.satisfies(version, entry.engines!.node!, { includePrerelease: true }))
      .map(([path, entry]) => `${path}: engines.node ${entry.engines!.node}`);
    expect(refusing).toEqual([]);
  });
});

describe('the lockfile rule', () => {
  it('names each versionless placeholder and each entry without integrity', () => {
    const lockfile: Lockfile = {
      lockfileVersion: 3,
      packages: {
        '': {},
        'node_modules/a': { version: '1.0.0', integrity: 'sha512-x' },
        'node_modules/@swc/core/node_modules/@swc/core-darwin-x64': {},
        'node_modules/b': { version: '1.0.0' },
        'node_modules/c': { version: '', integrity: 'sha512-x' },
      },
    };
    expect(incompleteEntries(lockfile)).toEqual([
      'node_modules/@swc/core/node_modules/@swc/core-darwin-x64: no version',
      'node_modules/b: no integrity',
      'node_modules/c: no version',
    ]);
  });

  it('accepts links and bundled entries without integrity, never without a version', () => {
    expect(entryDefect('packages/x', { link: true })).toBeUndefined();
    expect(entryDefect('node_modules/p/node_modules/q', { version: '1.0.0', inBundle: true })).toBeUndefined();
    expect(entryDefect('node_modules/p/node_modules/q', { inBundle: true })).toBe('no version');
  });

  it('refuses a lockfile without a packages map', () => {
    expect(incompleteEntries({ lockfileVersion: 1 })).toHaveLength(1);
  });
});
