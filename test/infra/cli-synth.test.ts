// Infra tests: the path a user takes. The project's own `cdk` binary synthesizes the app as `cdk deploy` would
// (cdk.json's app and context, esbuild bundling, cdk-nag as a validation plugin), offline: no credentials, no
// profile, no instance metadata. The CLI always gives the stacks a concrete region (AWS_REGION, the profile, else
// us-east-1), which is exactly what the in-process tests used to miss.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiStackName, dataStackName } from '#infra/create-app';
import { offlineCdkEnvironment } from '#infra/local/cloud-assembly';
import { operations } from '#shared/operations/index';
import type { CfnTemplate } from './synthesize';
import { sourceMapKey, sourceMapsFolderName } from '../../infra/build/source-maps.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cdkBin = join(repoRoot, 'node_modules/aws-cdk/bin/cdk');

/**
 * The context of README.md's deploy command (step 4 of "Deploying"), read from the README itself so the test checks
 * what a user copies: every `-c key=value` of the `npm run cdk -- deploy --all` command and its continuation lines.
 */
const readmeDeployContext = (): string[] => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('npm run cdk -- deploy --all');
  if (start < 0) throw new Error('README.md has no `npm run cdk -- deploy --all` command');
  const lines: string[] = [];
  for (const line of readme.slice(start).split('\n')) {
    lines.push(line);
    if (!line.trimEnd().endsWith('\\')) break;
  }
  const context = [...lines.join(' ').matchAll(/-c\s+(\S+=\S+)/g)].flatMap((match) => ['-c', match[1]!]);
  expect(context).toEqual(expect.arrayContaining(['-c', 'stage=prod']));
  return context;
};

interface CliRun {
  readonly status: number | null;
  readonly output: string;
  readonly outdir: string;
  template(stack: string): CfnTemplate;
}

/** A synth bundles every function with esbuild: about 20 s on an idle 2-core machine, minutes on a busy one. */
const synthTimeoutMs = 600_000;

const runs: string[] = [];
afterAll(() => {
  for (const outdir of runs) rmSync(outdir, { recursive: true, force: true });
});

/** The CLI commands the cases run: a full synth (bundling every function), or a list, which synthesizes without bundling. */
const synthAll = ['synth', '--all', '-q'] as const;
const list = ['ls'] as const;

/**
 * `cdk synth --all` (or `command`) with nothing of the caller's AWS setup: HOME is an empty folder (no ~/.aws), the
 * AWS variables are removed, instance metadata is off, then `aws` adds what the case sets (AWS_REGION,
 * CDK_DEFAULT_ACCOUNT...).
 */
const cdkSynth = (args: readonly string[], aws: Record<string, string>, command: readonly string[] = synthAll): CliRun => {
  const outdir = mkdtempSync(join(tmpdir(), 'cli-synth-'));
  runs.push(outdir);
  const env = offlineCdkEnvironment(join(outdir, 'home'), aws);
  const cdkOut = join(outdir, 'cdk.out');
  const result = spawnSync(process.execPath, [cdkBin, ...command, '--no-notices', '-o', cdkOut, ...args], {
    cwd: repoRoot,
    env,
    encoding: 'utf8',
    timeout: synthTimeoutMs,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`;
  return {
    status: result.status,
    output,
    outdir: cdkOut,
    template: (stack) => JSON.parse(readFileSync(join(cdkOut, `${stack}.template.json`), 'utf8')) as CfnTemplate,
  };
};

const expectClean = (run: CliRun) => {
  // On failure, the CLI's own words (cdk-nag findings, context errors) are the message.
  if (run.status !== 0) throw new Error(`cdk synth exited ${run.status}:\n${run.output}`);
  expect(run.output).not.toMatch(/Synthesis finished with errors|\bERROR\b/);
};

/** Every schedule ARN a function's policy names, as the template writes it. */
const scheduleArns = (template: CfnTemplate): string[] =>
  Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .flatMap((policy) => JSON.stringify(policy.Properties).match(/arn:[^"]*:scheduler:[^"]*:schedule\/[^"]*/g) ?? []);

// Bundling does not depend on the stage (infra/constructs/operation-function.ts): the README's prod deploy is
// synthesized in full, with every asset checked; the dev stage's templates come from `cdk ls`, which runs the app as
// synth does without bundling (the local stack synthesizes dev with bundling through the same CLI for every
// integration and e2e run: infra/local/cloud-assembly.ts, test/infra/local-assembly.test.ts).
describe.each([
  ['dev', ['-c', 'stage=dev'], list],
  ['prod, with the README deploy context', 'readme', synthAll],
] as const)('the cdk CLI synthesizes %s', (_, stageArgs, command) => {
  // A CDK_DEFAULT_REGION set by hand is overridden by the CLI with AWS_REGION's: the stacks are built for the latter.
  it('with a concrete account and region (AWS_REGION=ap-southeast-2, CDK_DEFAULT_ACCOUNT=123456789012)', () => {
    const args = stageArgs === 'readme' ? readmeDeployContext() : [...stageArgs];
    const run = cdkSynth(args, { AWS_REGION: 'ap-southeast-2', CDK_DEFAULT_ACCOUNT: '123456789012', CDK_DEFAULT_REGION: 'us-west-2' }, command);
    expectClean(run);
    const api = run.template(apiStackName);
    // The region and account the CLI chose are the ones the stacks were built for.
    expect(scheduleArns(api).length).toBeGreaterThan(0);
    for (const arn of scheduleArns(api)) expect(arn).toMatch(/^arn:aws:scheduler:ap-southeast-2:123456789012:schedule\//);
    // The outputs the README tells a user to read after a deploy.
    expect(Object.keys(api.Outputs ?? {})).toEqual(expect.arrayContaining(['ApiBaseUrl', 'WebhookUrl', 'AlarmTopicArn']));
    expect(Object.keys(run.template(dataStackName).Outputs ?? {})).toContain('WebhookSecretArn');
    if (command !== synthAll) return;
    // Every bundled function points at an asset the assembly holds (what `cdk deploy` would upload).
    const manifest = JSON.parse(readFileSync(join(run.outdir, `${apiStackName}.assets.json`), 'utf8')) as { files: Record<string, unknown> };
    expect(Object.keys(manifest.files).length).toBeGreaterThan(operations.length);
    // No asset carries a source map; each JavaScript file of a function asset has its map beside the template,
    // under the SHA-256 of its bytes (infra/build/source-maps.mjs), which is how `npm run trace` finds it.
    const assets = readdirSync(run.outdir).filter((name) => name.startsWith('asset.') && existsSync(join(run.outdir, name, 'index.mjs')));
    expect(assets.length).toBeGreaterThan(operations.length);
    for (const asset of assets) {
      const files = readdirSync(join(run.outdir, asset), { recursive: true }).map(String);
      expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
      for (const file of files.filter((name) => name.endsWith('.mjs'))) {
        expect(existsSync(join(run.outdir, sourceMapsFolderName, `${sourceMapKey(readFileSync(join(run.outdir, asset, file)))}.mjs.map`))).toBe(true);
      }
    }
  }, synthTimeoutMs);
});

describe('the cdk CLI with no AWS configuration at all', () => {
  // `cdk ls` runs the app exactly as synth does (the same environment resolution, the same templates written to the
  // output folder) but bundles nothing (the CLI's bundling-stacks context is empty for it): the region is what this
  // case proves, and the two synths above prove the bundling.
  it('builds both stacks for us-east-1, the region the CLI falls back to', () => {
    const run = cdkSynth(['-c', 'stage=dev'], {}, list);
    expectClean(run);
    expect(run.output.split('\n').map((line) => line.trim())).toEqual(expect.arrayContaining([dataStackName, apiStackName]));
    for (const arn of scheduleArns(run.template(apiStackName))) expect(arn).toMatch(/^arn:aws:scheduler:us-east-1:/);
  }, synthTimeoutMs);
});

describe('the cdk CLI refuses a deploy context that would deploy a broken stack', () => {
  it.each([
    ['an unknown stage', ['-c', 'stage=staging'], /stage must be one of dev, prod/],
    ['a JWKS URL over plain HTTP', ['-c', 'authJwksUrl=http://issuer.example.com/jwks.json'], /authJwksUrl must be an https:\/\/ URL/],
    ['an alarm e-mail that is not one', ['-c', 'alarmEmail=oncall'], /alarmEmail must be an e-mail address/],
    ['an empty issuer', ['-c', 'authIssuer='], /authIssuer must not be empty/],
    ['a stack setting out of range', ['-c', 'overReceiptTolerancePercent=5%'], /overReceiptTolerancePercent .* must be a percentage/],
  ])('%s: one line, no stack trace', (_, args, message) => {
    const run = cdkSynth(args, { AWS_REGION: 'ap-southeast-2' });
    expect(run.status).not.toBe(0);
    // The app's one line, then the CLI's own "Subprocess exited with error 1"; nothing of Node's error report.
    const lines = run.output.split('\n').filter((line) => line.trim() !== '');
    expect(lines.filter((line) => message.test(line))).toHaveLength(1);
    expect(lines.find((line) => message.test(line))).toMatch(/^Context /);
    expect(run.output).not.toMatch(/^\s+at |Error:|Node\.js v|\^$/m);
    // Whatever else is there is the CLI's: its exit line (and its warning about the --all this test passes).
    const fromCli = /Subprocess exited with error 1$|^Unknown option\(s\): --all\./;
    expect(lines.filter((line) => !message.test(line) && !fromCli.test(line))).toEqual([]);
  });
});

describe('npm run cdk, as the README runs it', () => {
  it('answers a refused context value with the one line and exit 1', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cli-synth-'));
    runs.push(outdir);
    const env = offlineCdkEnvironment(join(outdir, 'home'), { AWS_REGION: 'ap-southeast-2' });
    const result = spawnSync('npm', ['run', '--silent', 'cdk', '--', 'synth', '-q', '-o', join(outdir, 'cdk.out'), '-c', 'stage=staging'], {
      cwd: repoRoot,
      env,
      encoding: 'utf8',
      timeout: synthTimeoutMs,
    });
    expect(result.status).toBe(1);
    expect(`${result.stdout}${result.stderr}`).toBe('Context stage must be one of dev, prod; got "staging"\nnpx tsx infra/app.ts: Subprocess exited with error 1\n');
  }, synthTimeoutMs);
});
