// Local stack: the cloud assembly it runs, i.e. what `cdk synth` writes to cdk.out/. Synthesized by the project's
// own `cdk` CLI, offline (no credentials, no profile, no instance metadata, as test/infra/cli-synth.test.ts runs it),
// for the local region; reused while it is up to date: a stamp beside the templates records the hash of the sources
// the CDK app reads (infra/ less infra/local/, shared/, functions/, cdk.json, package-lock.json), the context it was
// synthesized with, and the hash of each template it wrote, so an assembly written by anything else (a
// `cdk synth -c stage=prod` by hand) is never mistaken for ours.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { readStackSettings, stackSettings } from '#shared/operations/settings';
import { repoRoot } from './lambda-runtime';
import { localRegion } from './local-aws';

export const defaultAssemblyDir = join(repoRoot, 'cdk.out');
/** The stamp the local stack writes beside the templates it synthesized. */
export const assemblyStampFile = 'local-stack.stamp.json';
/** The stacks of the app (infra/create-app.ts), by name: the local stack runs both. */
export const assemblyStacks = { data: 'BusinessPlatform-Data', api: 'BusinessPlatform-Api' } as const;

/** What the CDK app reads: a change to any of these makes the assembly stale (the local stack itself does not count). */
const sourceRoots = ['infra', 'shared', 'functions', 'cdk.json', 'package-lock.json'];
const isSource = (path: string): boolean => !path.startsWith(join('infra', 'local')) && !/\.test\.ts$/.test(path);

const filesUnder = (root: string, path: string): string[] => {
  const absolute = join(root, path);
  if (!existsSync(absolute)) return [];
  if (!statSync(absolute).isDirectory()) return isSource(path) ? [path] : [];
  return readdirSync(absolute)
    .sort()
    .flatMap((name) => filesUnder(root, join(path, name)));
};

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The hash of the app's sources and of the synth's context: equal hashes synthesize equal assemblies. */
export const sourceHash = (context: Readonly<Record<string, string>>, root = repoRoot): string => {
  const hash = createHash('sha256');
  for (const file of sourceRoots.flatMap((path) => filesUnder(root, path))) {
    hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
  }
  hash.update(JSON.stringify(Object.entries(context).sort()));
  hash.update(localRegion);
  return hash.digest('hex');
};

interface Stamp {
  readonly sourceHash: string;
  readonly templates: Readonly<Record<string, string>>;
}

const templateHashes = (outdir: string): Record<string, string> | undefined => {
  const hashes: Record<string, string> = {};
  for (const stack of Object.values(assemblyStacks)) {
    const file = join(outdir, `${stack}.template.json`);
    if (!existsSync(file)) return undefined;
    hashes[stack] = sha256(readFileSync(file));
  }
  return hashes;
};

/** True when `outdir` holds the assembly these sources and this context synthesize (per its stamp). */
export const isUpToDate = (outdir: string, hash: string): boolean => {
  try {
    const stamp = JSON.parse(readFileSync(join(outdir, assemblyStampFile), 'utf8')) as Stamp;
    return stamp.sourceHash === hash && JSON.stringify(stamp.templates) === JSON.stringify(templateHashes(outdir));
  } catch {
    return false;
  }
};

/**
 * The CDK context of the local stage: the stack settings of `npm start`'s environment
 * (`RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT=2.5 npm start`), checked as the app checks its context.
 */
export const localSynthContext = (env: NodeJS.ProcessEnv = process.env): Record<string, string> => {
  readStackSettings((definition) => env[definition.variable]);
  return Object.fromEntries(
    Object.values(stackSettings).flatMap((definition) => {
      const value = env[definition.variable];
      return value === undefined ? [] : [[definition.contextKey, value]];
    }),
  );
};

export interface EnsureAssemblyOptions {
  /** Where the assembly lives (default cdk.out/ of the repository). */
  readonly outdir?: string;
  /** `-c key=value` pairs (default: localSynthContext()). */
  readonly context?: Readonly<Record<string, string>>;
  /** Another app command than cdk.json's (`--app`), e.g. a test-only entry that applies an Aspect. */
  readonly app?: string;
  /** Synthesize even when the stamp says it is up to date. */
  readonly force?: boolean;
  readonly log?: (line: string) => void;
  /** How long a synth may take (default 15 minutes: esbuild bundles every function). */
  readonly timeoutMs?: number;
}

const cdkBin = join(repoRoot, 'node_modules/aws-cdk/bin/cdk');

/**
 * The environment of an offline `cdk` run: the caller's without its AWS and CDK variables, HOME an empty folder (no
 * ~/.aws), no instance metadata, no telemetry or version check; then `aws` adds what the run sets (AWS_REGION...).
 */
export const offlineCdkEnvironment = (home: string, aws: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AWS_|CDK_)/.test(name) && name !== 'NODE_OPTIONS')),
  HOME: home,
  AWS_CONFIG_FILE: join(home, 'no-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
  AWS_EC2_METADATA_DISABLED: 'true',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
  CDK_DISABLE_VERSION_CHECK: 'true',
  ...aws,
});

/** `cdk synth --all` with nothing of the caller's AWS setup: no credentials are needed, none are read. */
const runSynth = (outdir: string, context: Readonly<Record<string, string>>, app: string | undefined, timeoutMs: number): Promise<void> => {
  const home = mkdtempSync(join(tmpdir(), 'local-synth-home-'));
  const env = offlineCdkEnvironment(home, { AWS_REGION: localRegion });
  const args = [
    cdkBin,
    'synth',
    '--all',
    '--no-notices',
    '-q',
    '-o',
    outdir,
    ...(app ? ['--app', app] : []),
    ...Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
  ];
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      rmSync(home, { recursive: true, force: true });
      if (code === 0) resolve();
      else reject(new Error(`cdk synth failed (${code ?? signal}):\n${output.slice(-4000)}`));
    });
  });
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A lock directory beside the assembly: two stacks starting at once in one checkout synthesize once. */
/** Whether the process holding a lock is alive (signal 0 probes without signalling; EPERM means alive, not ours). */
const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** How long a lock without its holder's pid may stand before it is taken for abandoned (the holder writes it at once). */
const unclaimedLockMs = 10_000;

/**
 * Runs `work` holding `<outdir>.lock` (a directory: its creation is atomic), so concurrent starts synthesize once. The
 * holder writes its pid into it and removes it when done, or when its process exits however it ends short of a
 * kill -9 (a Ctrl-C during a synth exits the process, which skipped the `finally`: the lock stayed, and every later
 * `npm start` in that checkout waited silently for 15 minutes, the lock's age limit). A lock whose holder is gone
 * (its pid no longer alive, or no pid 10 s after it was made) is taken at once; waiting for a live one is said once.
 */
export const withAssemblyLock = async <T>(outdir: string, timeoutMs: number, work: () => Promise<T>, log?: (line: string) => void): Promise<T> => {
  const lock = `${outdir}.lock`;
  const pidFile = join(lock, 'pid');
  const deadline = Date.now() + timeoutMs;
  let said = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(pidFile, String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder = Number.NaN;
      try {
        holder = Number(readFileSync(pidFile, 'utf8').trim() || Number.NaN);
      } catch {
        // No pid yet (its holder is between the two calls above), or a lock of an older version: judged by its age.
      }
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      const abandoned = Number.isInteger(holder) && holder > 0 ? !isAlive(holder) : age > unclaimedLockMs;
      if (abandoned || age > timeoutMs) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${relative(repoRoot, lock)} is held by another synth (process ${holder})`);
      if (!said) {
        said = true;
        log?.(`[assembly] waiting for the synth of process ${Number.isInteger(holder) ? holder : '?'} (${relative(repoRoot, lock)})`);
      }
      await sleep(250);
    }
  }
  const release = () => rmSync(lock, { recursive: true, force: true });
  process.once('exit', release);
  try {
    return await work();
  } finally {
    process.removeListener('exit', release);
    release();
  }
};

/**
 * The up-to-date cloud assembly: reused when its stamp matches the sources and the context, otherwise synthesized
 * anew (tens of seconds: esbuild bundles every function). Returns its directory.
 */
export const ensureCloudAssembly = async (options: EnsureAssemblyOptions = {}): Promise<string> => {
  const outdir = options.outdir ?? defaultAssemblyDir;
  const context = options.context ?? localSynthContext();
  const timeoutMs = options.timeoutMs ?? 15 * 60_000;
  const hash = sourceHash({ ...context, ...(options.app ? { '--app': options.app } : {}) });
  if (!options.force && isUpToDate(outdir, hash)) return outdir;
  return withAssemblyLock(outdir, timeoutMs, async () => {
    if (!options.force && isUpToDate(outdir, hash)) return outdir;
    const started = Date.now();
    options.log?.(`[assembly] synthesizing the CDK app into ${relative(repoRoot, outdir) || outdir} (cdk synth, offline) ...`);
    rmSync(join(outdir, assemblyStampFile), { force: true });
    await runSynth(outdir, context, options.app, timeoutMs);
    const templates = templateHashes(outdir);
    if (!templates) throw new Error(`cdk synth wrote no templates of ${Object.values(assemblyStacks).join(' and ')} to ${outdir}`);
    const stamp: Stamp = { sourceHash: hash, templates };
    writeFileSync(join(outdir, assemblyStampFile), `${JSON.stringify(stamp, null, 2)}\n`);
    options.log?.(`[assembly] synthesized in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return outdir;
  }, options.log);
};
