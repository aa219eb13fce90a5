// Benchmark, narrow (issue 23): the cold cost of the request validator of the largest body (paymentPost), as a
// function pays it: import of the bundled module and the first validation, each in a fresh Node process, for
//   plans (before): the plan compiler's generated plans run by its checker, as functions loaded them before the
//                   document's validators existed,
//   both (before):  what the functions ran until the plans were retired: the plans, then the document's validator,
//   ajv (now):      what the functions run now: the compiled entry (its shapes, for coercion and tenancy) and the one
//                   validator ajv generated from the OpenAPI document (shared/compiled/requests/).
// The two "before" variants are built from the files of a commit that still had the plans (`--before <ref>`, default
// 1a21985, the last one), checked out into a scratch tree inside the repository so their imports resolve; "now" from
// the working tree. Bundled with the functions' own esbuild settings; samples alternate the three in a shuffled order
// per round and each figure is the median. Run: `npx tsx test/bench/validator-cold.ts [rounds] [--before <ref>]`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { median, shuffle } from './stats';
import { seededRandom } from '#infra/local/seeded-random';

const body = { Object: { Amount: 12.5, Currency: 'AUD', Description: 'Cold start', PaymentDateTime_utc: '2026-03-01T09:00:00Z' } };

/** The scratch tree of the "before" files (inside the repository, so `ajv-formats` and the rest resolve). */
const beforeTree = join(repositoryRoot, 'test/bench/.validator-cold-before');
/** The files the "before" variants load, as that commit had them (type-only imports need no file). */
const beforeFiles = [
  'shared/compiled/operations/payments.ts',
  'shared/compiled/requests/payments.ts',
  'shared/validation/check.ts',
  'shared/validation/formats.ts',
];

const variants = {
  plans: `import { paymentPost } from './.validator-cold-before/shared/compiled/operations/.plans-only-payments';
import { checkPlan } from './.validator-cold-before/shared/validation/check';
export const first = (body) => checkPlan(paymentPost.requestBody.schema, body).success;`,
  both: `import { paymentPost } from './.validator-cold-before/shared/compiled/operations/payments';
import { checkPlan } from './.validator-cold-before/shared/validation/check';
export const first = (body) => checkPlan(paymentPost.requestBody.schema, body).success && paymentPost.document.body(body);`,
  ajv: `import { paymentPost } from '#shared/compiled/operations/payments';
export const first = (body) => paymentPost.document.body(body);`,
} as const;

type Variant = keyof typeof variants;

const probe = (bundle: string) => `
const started = performance.now();
const module = await import(${JSON.stringify(bundle)});
const imported = performance.now();
const valid = module.first(${JSON.stringify(body)});
const called = performance.now();
if (valid !== true) throw new Error('the sample body was refused');
process.stdout.write(JSON.stringify({ importMs: imported - started, firstCallMs: called - imported }));
`;

/** Checks the "before" files out of `ref`, and the payments entry without the document's validators (plans only). */
const writeBefore = (ref: string) => {
  for (const file of beforeFiles) {
    const target = join(beforeTree, file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, execFileSync('git', ['show', `${ref}:${file}`], { cwd: repositoryRoot, encoding: 'utf8' }));
  }
  const entry = execFileSync('git', ['show', `${ref}:shared/compiled/operations/payments.ts`], { cwd: repositoryRoot, encoding: 'utf8' });
  writeFileSync(
    join(beforeTree, 'shared/compiled/operations/.plans-only-payments.ts'),
    entry.replace(/^import \* as requests from .*$/m, '').replace(/^  document: \{.*\},$/gm, '  document: {},'),
  );
};

const main = async (rounds: number, before: string) => {
  const folder = mkdtempSync(join(tmpdir(), 'validator-cold-'));
  writeBefore(before);
  try {
    const bundles = new Map<Variant, { probe: string; bytes: number }>();
    for (const [name, source] of Object.entries(variants) as [Variant, string][]) {
      const entry = join(repositoryRoot, `test/bench/.validator-cold-${name}.ts`);
      writeFileSync(entry, source);
      try {
        const outfile = join(folder, `${name}.mjs`);
        await build({ ...esbuildOptionsFor(functionBundling, { target: `node${process.versions.node.split('.')[0]}` }), entryPoints: [entry], outfile, sourcemap: false });
        const probeFile = join(folder, `${name}-probe.mjs`);
        writeFileSync(probeFile, probe(outfile));
        bundles.set(name, { probe: probeFile, bytes: statSync(outfile).size });
      } finally {
        rmSync(entry, { force: true });
      }
    }
    const samples = new Map<Variant, { importMs: number; firstCallMs: number }[]>([...bundles.keys()].map((name) => [name, []]));
    const random = seededRandom(23);
    for (let round = 0; round < rounds; round += 1) {
      for (const name of shuffle([...bundles.keys()], random)) {
        const output = execFileSync(process.execPath, [bundles.get(name)?.probe ?? ''], { encoding: 'utf8' });
        samples.get(name)?.push(JSON.parse(output) as { importMs: number; firstCallMs: number });
      }
    }
    const rows = [...bundles].map(([name, { bytes }]) => {
      const list = samples.get(name) ?? [];
      return `| ${name} | ${(bytes / 1024).toFixed(0)} KiB | ${median(list.map((sample) => sample.importMs)).toFixed(1)} | ${median(list.map((sample) => sample.firstCallMs)).toFixed(1)} |`;
    });
    process.stdout.write(
      [`Node ${process.version}, ${rounds} rounds, before = ${before}, load ${(await import('node:os')).loadavg()[0]?.toFixed(2)} at the end`, '', '| validator | bundle (minified) | import ms (median) | first call ms (median) |', '|---|---|---|---|', ...rows, ''].join('\n'),
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
    rmSync(beforeTree, { recursive: true, force: true });
  }
};

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const roundsArgument = process.argv.slice(2).find((value, index, list) => /^\d+$/.test(value) && list[index - 1] !== '--before');
await main(Number(roundsArgument ?? 15), argument('--before') ?? '1a21985');
