// Build: the lockfile rule `npm ci` depends on, and `npm run lock`, which writes a lockfile that obeys it.
//
// npm 11.19 (the stock npm of the machines this project runs on) stops `npm ci` with "Invalid Version:" at the
// first lockfile entry that has no `version`. Other npm releases write such versionless placeholders for optional
// packages of other platforms (`@swc/core-*`, `@unrs/resolver-binding-*`), so a lockfile refreshed with another
// npm can break every fresh install. The rule: every entry has a `version`, and an `integrity` unless it is a
// link (a workspace) or bundled inside its parent's tarball (`inBundle`: npm records no integrity for those,
// the parent's covers them).
//
// `npm run lock` (this file run as a script):
//   1. drops the entries that break the rule (placeholders written by another npm),
//   2. runs `npm install --package-lock-only --ignore-scripts` with the npm that runs the script (the machine's
//      own npm; never a pinned or downloaded one), which resolves those entries again from the registry,
//   3. checks the result and fails, naming the entries, if any still break the rule.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface LockfileEntry {
  readonly version?: string;
  readonly integrity?: string;
  readonly link?: boolean;
  readonly inBundle?: boolean;
}

export interface Lockfile {
  readonly lockfileVersion?: number;
  readonly packages?: Readonly<Record<string, LockfileEntry>>;
}

/** Why an entry breaks the rule, or undefined when it is complete. The root entry (`""`) is the project itself. */
export const entryDefect = (path: string, entry: LockfileEntry): string | undefined => {
  if (path === '') return undefined;
  if (entry.link === true) return undefined;
  if (typeof entry.version !== 'string' || entry.version === '') return 'no version';
  if (entry.inBundle === true) return undefined;
  if (typeof entry.integrity !== 'string' || entry.integrity === '') return 'no integrity';
  return undefined;
};

/** Every entry that breaks the rule, as `<path>: <defect>`, in lockfile order. */
export const incompleteEntries = (lockfile: Lockfile): string[] => {
  if (lockfile.lockfileVersion === undefined || lockfile.lockfileVersion < 2 || !lockfile.packages) {
    return ['<lockfile>: lockfileVersion 2 or 3 with a "packages" map is required'];
  }
  return Object.entries(lockfile.packages).flatMap(([path, entry]) => {
    const defect = entryDefect(path, entry);
    return defect ? [`${path}: ${defect}`] : [];
  });
};

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const lockfilePath = resolve(projectRoot, 'package-lock.json');

const readLockfile = (): Lockfile => JSON.parse(readFileSync(lockfilePath, 'utf8')) as Lockfile;

const lock = (): number => {
  const before = readLockfile() as { packages?: Record<string, LockfileEntry> };
  const dropped = Object.keys(before.packages ?? {}).filter((path) => entryDefect(path, before.packages![path]!));
  if (dropped.length > 0) {
    for (const path of dropped) delete before.packages![path];
    writeFileSync(lockfilePath, `${JSON.stringify(before, null, 2)}\n`);
    console.log(`lock: dropped ${dropped.length} incomplete entries for npm to resolve again`);
  }
  // The npm that runs this script (npm_execpath), else the one on PATH: the machine's own npm.
  const npmCli = process.env.npm_execpath;
  const [command, prefix] = npmCli ? [process.execPath, [npmCli]] : ['npm', []];
  const args = [...prefix, 'install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'];
  const version = spawnSync(command, [...prefix, '--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`lock: npm ${version}: ${['npm', ...args.slice(prefix.length)].join(' ')}`);
  const install = spawnSync(command, args, { cwd: projectRoot, stdio: 'inherit' });
  if (install.status !== 0) return install.status ?? 1;
  const defects = incompleteEntries(readLockfile());
  if (defects.length > 0) {
    console.error(`lock: ${defects.length} entries are still incomplete; npm ci would refuse this lockfile:`);
    for (const defect of defects) console.error(`  ${defect}`);
    return 1;
  }
  console.log('lock: every entry has a version and an integrity; npm ci will accept it');
  return 0;
};

const usage = `Usage: npm run lock

  Refreshes package-lock.json with the machine's own npm (npm install --package-lock-only --ignore-scripts) so that
  every entry has a version and an integrity, as npm ci needs; fails naming any entry that still lacks one. Takes
  no arguments.

  -h, --help  Show this help
`;

/** The command line: --help prints the usage (exit 0); anything else is refused with it (exit 2). */
const runFromCommandLine = (): number => {
  try {
    if (parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, strict: true }).values.help) {
      process.stdout.write(usage);
      return 0;
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  return lock();
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = runFromCommandLine();
