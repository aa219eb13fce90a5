// Benchmark, narrow (issue 23): the cold cost of the request validator of the largest body (paymentPost), as a
// function pays it: import of the bundled module and the first validation, each in a fresh Node process, for
//   plans: the plan compiler's generated plans run by shared/validation/check.ts, as functions loaded them before the
//          document's validators (the entry of shared/compiled/operations/payments.ts without its `document`),
//   ajv:   the standalone validator ajv generated from the OpenAPI document (shared/compiled/requests/),
//   both:  what the functions run now (the plans, then the document's validator).
// Bundled with the functions' own esbuild settings; samples alternate the three in a shuffled order per round and
// each figure is the median. Run: `npx tsx test/bench/validator-cold.ts [rounds]` (the machine's Node).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { functionBundling, repositoryRoot } from '#infra/constructs/operation-function';
import { median, shuffle } from './stats';
import { seededRandom } from '#infra/local/seeded-random';

const body = { Object: { Amount: 12.5, Currency: 'AUD', Description: 'Cold start', PaymentDateTime_utc: '2026-03-01T09:00:00Z' } };

const variants = {
  plans: `import { paymentPost } from '#shared/compiled/operations/.plans-only-payments';
import { checkPlan } from '#shared/validation/check';
export const first = (body) => checkPlan(paymentPost.requestBody.schema, body).success;`,
  ajv: `import { paymentPostBody } from '#shared/compiled/requests/payments';
export const first = (body) => paymentPostBody(body);`,
  both: `import { paymentPost } from '#shared/compiled/operations/payments';
import { checkPlan } from '#shared/validation/check';
export const first = (body) => checkPlan(paymentPost.requestBody.schema, body).success && paymentPost.document.body(body);`,
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

/** The compiled payments entry without the document's validators: what the functions loaded before them. */
const plansOnly = join(repositoryRoot, 'shared/compiled/operations/.plans-only-payments.ts');
const writePlansOnly = () =>
  writeFileSync(
    plansOnly,
    readFileSync(join(repositoryRoot, 'shared/compiled/operations/payments.ts'), 'utf8')
      .replace(/^import \* as requests from .*$/m, '')
      .replace(/^  document: \{.*\},$/gm, '  document: {},'),
  );

const main = async (rounds: number) => {
  const folder = mkdtempSync(join(tmpdir(), 'validator-cold-'));
  writePlansOnly();
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
      [`Node ${process.version}, ${rounds} rounds, load ${(await import('node:os')).loadavg()[0]?.toFixed(2)} at the end`, '', '| validator | bundle (minified) | import ms (median) | first call ms (median) |', '|---|---|---|---|', ...rows, ''].join('\n'),
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
    rmSync(plansOnly, { force: true });
  }
};

await main(Number(process.argv[2] ?? 15));
