// The command line of `npm run bench`. Strict: an option the bench does not know (a typo such as `--cold_only`, or
// `--bogus`) is refused with the usage and exit code 2, instead of being ignored and starting the full run, which
// takes half an hour and more on a 2-core machine.
import { parseArgs } from 'node:util';

export interface BenchArguments {
  readonly quick: boolean;
  /** `--cpu-prof`: profile section 1's cold starts. */
  readonly cpuProfile: boolean;
  /** `--cold-only`: section 1 alone. */
  readonly coldOnly: boolean;
  /** `--only <section>`: seeding and that area section. */
  readonly only?: string;
  /** `--functions a,b`: section 1 measures only these. */
  readonly functions?: readonly string[];
}

export type ParsedBenchArguments =
  | { readonly kind: 'run'; readonly arguments: BenchArguments }
  | { readonly kind: 'help' }
  | { readonly kind: 'refused'; readonly reason: string };

export const benchUsage = (onlySections: readonly string[]): string =>
  [
    'npm run bench -- [--quick] [--cold-only | --only <section>] [--cpu-prof] [--functions <name,...>]',
    '  --quick       fewer iterations and smaller data sets (what CI runs)',
    '  --cold-only   only section 1: bundles and cold starts',
    '  --cpu-prof    section 1 also profiles 3 cold starts per function (node --cpu-prof) and prints CPU ms by step',
    '  --functions   section 1 measures only the named functions (e.g. scheduledTaskSave,paymentPost), beside the baseline and the peers',
    `  --only <name> seeding and one area section, without section 1: ${onlySections.join(', ')}`,
    '',
  ].join('\n');

/** Parses the bench's arguments; `onlySections` are the names `--only` accepts. */
export const parseBenchArguments = (argv: readonly string[], onlySections: readonly string[]): ParsedBenchArguments => {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        quick: { type: 'boolean' },
        'cold-only': { type: 'boolean' },
        'cpu-prof': { type: 'boolean' },
        functions: { type: 'string' },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return { kind: 'refused', reason: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  if (values.only !== undefined && !onlySections.includes(values.only)) {
    return { kind: 'refused', reason: `--only takes one of ${onlySections.join(', ')}; got "${values.only}"` };
  }
  if (values.only !== undefined && values['cold-only']) return { kind: 'refused', reason: '--cold-only and --only exclude each other' };
  const functions = values.functions?.split(',').filter(Boolean);
  if (functions?.length === 0) return { kind: 'refused', reason: '--functions takes one or more function names, separated by commas' };
  return {
    kind: 'run',
    arguments: {
      quick: values.quick ?? false,
      cpuProfile: values['cpu-prof'] ?? false,
      coldOnly: values['cold-only'] ?? false,
      ...(values.only !== undefined ? { only: values.only } : {}),
      ...(functions ? { functions } : {}),
    },
  };
};
