// Infra tests: a function's source maps are not in its asset (no map read at run time), and `npm run trace`
// rewrites a logged stack with the maps the build keeps beside the template (infra/build/source-maps.mjs,
// infra/trace.ts). The bundle is built with the construct's own esbuild settings, its maps moved as the
// construct's afterBundling hook moves them, and it runs in a fresh node process without --enable-source-maps.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { functionNamed, traceText } from '#infra/trace';
import { moveSourceMaps, sourceMapsFolderName } from '../../infra/build/source-maps.mjs';

const assetName = `asset.${'ab'.repeat(32)}`;
const source = [
  'export const handler = async (): Promise<string> => {',
  '  const value = Number(process.env.VALUE ?? 1);',
  "  if (value > 0) throw new Error('broken on purpose');",
  '  return String(value);',
  '};',
  '',
].join('\n');

let assembly: string;
let stack: string;

beforeAll(async () => {
  assembly = mkdtempSync(join(tmpdir(), 'trace-'));
  const sources = join(assembly, 'src');
  mkdirSync(sources);
  writeFileSync(join(sources, 'thrower.ts'), source);
  // CDK bundles into <assembly>/bundling-temp-*, then renames the folder to asset.<hash>; the hook runs in between.
  const bundling = join(assembly, 'bundling-temp-1');
  await build({ ...esbuildOptionsFor(functionBundling), absWorkingDir: repositoryRoot, entryPoints: [join(sources, 'thrower.ts')], outfile: join(bundling, 'index.mjs') });
  expect(existsSync(join(bundling, 'index.mjs.map'))).toBe(true);
  expect(moveSourceMaps(bundling)).toEqual(['index.mjs']);
  execFileSync('mv', [bundling, join(assembly, assetName)]);
  const template = JSON.stringify({
    Resources: {
      PaymentPostFunction1A2B3C4D: { Type: 'AWS::Lambda::Function', Metadata: { 'aws:asset:path': assetName } },
      PaymentGetByIDFunction5E6F7A8B: { Type: 'AWS::Lambda::Function', Metadata: { 'aws:asset:path': 'asset.missing' } },
    },
  });
  writeFileSync(join(assembly, 'BusinessPlatform-Api.template.json'), template);
  writeFileSync(
    join(assembly, 'manifest.json'),
    JSON.stringify({
      version: '48.0.0',
      artifacts: {
        'BusinessPlatform-Api': { type: 'aws:cloudformation:stack', properties: { templateFile: 'BusinessPlatform-Api.template.json' } },
        Tree: { type: 'cdk:tree', properties: { file: 'tree.json' } },
      },
    }),
  );
  // What `npm run sam:env` writes beside it: the same functions again, in a template the assembly does not list.
  writeFileSync(join(assembly, 'BusinessPlatform-Api.sam.template.json'), template);
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', `import(${JSON.stringify(join(assembly, assetName, 'index.mjs'))}).then((m) => m.handler()).catch((e) => { process.stdout.write(e.stack); })`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  stack = run.stdout;
});

afterAll(() => rmSync(assembly, { recursive: true, force: true }));

describe('source maps', () => {
  it('leave the asset for <assembly>/source-maps/, and the bundle names no map', () => {
    expect(readdirSync(join(assembly, assetName))).toEqual(['index.mjs']);
    expect(readFileSync(join(assembly, assetName, 'index.mjs'), 'utf8')).not.toContain('sourceMappingURL');
    expect(readdirSync(join(assembly, sourceMapsFolderName))).toHaveLength(1);
    // Node without --enable-source-maps reports the bundle's own positions.
    expect(stack).toMatch(/broken on purpose\n\s+at \S+ \(file:\S+\/index\.mjs:\d+:\d+\)/);
  });

  it('rewrite a local stack (its frames name the asset) back to the TypeScript source', () => {
    const result = traceText(stack, { assemblyDir: assembly });
    expect(result.unresolved).toEqual([]);
    expect(result.text).toMatch(/^\s+at \S+ \(src\/thrower\.ts:3:\d+\)$/m);
    expect(result.text).not.toContain('index.mjs');
  });

  it('rewrite a Lambda log line (/var/task frames) of the function its function_name designates (with a SAM template beside the stacks)', () => {
    const frame = /index\.mjs:(\d+:\d+)/.exec(stack)?.[1];
    const line = JSON.stringify({
      level: 'ERROR',
      message: 'request failed',
      function_name: 'BusinessPlatform-Api-PaymentPostFunction1A2B3-Xy12Ab34Cd56',
      error: { errorName: 'Error', stack: `    at Ke (file:///var/task/index.mjs:${frame})` },
    });
    const result = traceText(line, { assemblyDir: assembly });
    expect(result.unresolved).toEqual([]);
    expect((JSON.parse(result.text) as { error: { stack: string } }).error.stack).toMatch(/^ {4}at Ke \(src\/thrower\.ts:3:\d+\)$/);
  });

  it('refuse, frame by frame, what the assembly cannot explain: no function named, another build, no such function', () => {
    const frame = '    at Ke (file:///var/task/index.mjs:1:40)';
    expect(traceText(frame, { assemblyDir: assembly }).unresolved).toEqual([expect.stringContaining('pass --function')]);
    expect(traceText(frame, { assemblyDir: assembly, functionName: 'Unknown' }).unresolved).toEqual([expect.stringContaining('no function')]);
    expect(traceText(frame, { assemblyDir: assembly, functionName: 'PaymentGetByIDFunction5E6F7A8B' }).unresolved).toEqual([expect.stringContaining('does not exist')]);
    const other = join(assembly, `asset.${'cd'.repeat(32)}`);
    mkdirSync(other);
    writeFileSync(join(other, 'index.mjs'), `${readFileSync(join(assembly, assetName, 'index.mjs'), 'utf8')}\n// another build\n`);
    const result = traceText(`    at Ke (${join(other, 'index.mjs')}:1:40)`, { assemblyDir: assembly });
    expect(result.text).toBe(`    at Ke (${join(other, 'index.mjs')}:1:40)`);
    expect(result.unresolved).toEqual([expect.stringContaining('no map')]);
  });

  it('match a deployed name with the logical ID it holds the longest prefix of', () => {
    const functions = [
      { logicalId: 'PaymentPostFunction1A2B3C4D', assetPath: 'a' },
      { logicalId: 'PaymentPostRefundFunction9F8E7D6C', assetPath: 'b' },
    ];
    expect(functionNamed(functions, 'BusinessPlatform-Api-PaymentPostRefundFunction9F8E-Q1w2E3r4')?.assetPath).toBe('b');
    expect(functionNamed(functions, 'BusinessPlatform-Api-PaymentPostFunction1A2B3C-Q1w2E3r4')?.assetPath).toBe('a');
    expect(functionNamed(functions, 'PaymentPostRefundFunction9F8E7D6C')?.assetPath).toBe('b');
    expect(functionNamed(functions, 'Something-Else')).toBeUndefined();
  });

  it('npm run trace reads a log file and exits 1 when a frame stays unexplained', () => {
    const log = join(assembly, 'error.log');
    writeFileSync(log, `${stack}\n    at Ke (file:///var/task/index.mjs:1:40)\n`);
    const run = spawnSync(join(repositoryRoot, 'node_modules/.bin/tsx'), [join(repositoryRoot, 'infra/trace.ts'), '--assembly', assembly, log], { encoding: 'utf8', cwd: repositoryRoot });
    expect(run.stdout).toMatch(/src\/thrower\.ts:3:\d+/);
    expect(run.stderr).toContain('pass --function');
    expect(run.status).toBe(1);
  });

  it('npm run trace names a log file that does not exist instead of echoing its name', () => {
    const missing = join(assembly, 'no-such.log');
    const run = spawnSync(join(repositoryRoot, 'node_modules/.bin/tsx'), [join(repositoryRoot, 'infra/trace.ts'), '--assembly', assembly, missing], { encoding: 'utf8', cwd: repositoryRoot });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: `${missing}: no such file, and no stack frame in it as a log line\n`,
    });
  });
});
