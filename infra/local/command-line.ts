// Local tooling: the command line of the local tools (npm run local, redrive, sign-event, sam:env). One way to parse
// options, refuse a bad one (its reason, then the usage, exit 2) and answer --help (the usage, exit 0). A tool that
// cannot reach the stack says so in one line, without the usage, and exits 1 (`fail(message, 1)`).

/** Prints `message` (and the usage, for a usage error: exit code 2) on stderr and exits with `code`. */
export const commandLineFailure =
  (usage: string) =>
  (message: string, code = 2): never => {
    process.stderr.write(`${message}\n${code === 2 ? `${usage}\n` : ''}`);
    process.exit(code);
  };

/**
 * A reader that stops early (`npm run --silent local -- items | head`) closes the pipe: the tool then ends quietly,
 * exit 0, instead of dying on an unhandled EPIPE with a stack trace.
 */
const endQuietlyWhenOutputCloses = () => {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
};

/**
 * Runs `parse` (the tool's `parseArgs` call, whose options declare `help`): a parse error fails with the usage,
 * `--help` prints the usage and exits 0. Returns the parsed values and positionals, and `fail` for the tool's checks.
 */
export const parseCommandLine = <R extends { readonly values: { readonly help?: boolean | undefined } }>(usage: string, parse: () => R) => {
  const fail = commandLineFailure(usage);
  endQuietlyWhenOutputCloses();
  let parsed: R;
  try {
    parsed = parse();
  } catch (error) {
    return fail((error as Error).message);
  }
  if (parsed.values.help) {
    process.stdout.write(`${usage}
`);
    process.exit(0);
  }
  return { ...parsed, fail };
};
