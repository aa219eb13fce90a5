// Local stack entry point (`npm start`): the CDK app's cloud assembly, run locally. Synthesizes cdk.out/ unless it
// is up to date, starts DynamoDB Local, the SQS server, the gateway and the consumers, prints where they are, and stops them all on Ctrl-C, SIGTERM, or (with --exit-with-stdin) when stdin closes.
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './lambda-runtime';
import { watchLaunchers } from './launchers';
import { LocalSetupError } from './local-aws';
import { loadFaultRules, type FaultRules } from './faults';
import { defaultDataDir, startLocalStack, type LocalStack } from './stack';
import { endpointsOf, removeStackState, writeStackState } from './stack-state';

const usage = `Usage: npm start -- [options]

  --port <n>           Gateway port (default: $PORT or 3000); 0 picks free ports for everything
  --dynamodb-port <n>  DynamoDB Local port (default 8000, free with --port 0)
  --sqs-port <n>       SQS server port (default 9324, free with --port 0)
  --in-memory          Keep no data (default: DynamoDB data persists in .local/)
  --assembly <dir>     Run this cloud assembly (a cdk.out that \`cdk synth\` wrote) instead of synthesizing cdk.out/
  --ready-json         Print one JSON line with the endpoints when ready (always when stdout is not a TTY)
  --exit-with-stdin    Stop when stdin closes (for a parent process that spawns the stack)
  --faults <profile|file>  Inject faults by rule: a profile of infra/local/fault-profiles.json (flaky, ...) or a
                       rule file (JSON); each fired fault logs one [fault] line (infra/local/README.md)
  --faults-seed <n>    The fault PRNG's seed (default: the rules' own, else 1): one seed replays one run
  --faults-control     Start the fault mode's control endpoint without rules (rules are PUT at run time)
  --max-environments <n>  Execution environments (processes) per function at most (default 10)
  -h, --help           Show this help
`;

const portOption = (value: string | undefined, fallback: number | undefined, name: string): number | undefined => {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`${name} must be a port number\n\n${usage}`);
    process.exit(2);
  }
  return port;
};

const parsed = (() => {
  try {
    return parseArgs({
      options: {
        port: { type: 'string' },
        'dynamodb-port': { type: 'string' },
        'sqs-port': { type: 'string' },
        'in-memory': { type: 'boolean', default: false },
        assembly: { type: 'string' },
        'ready-json': { type: 'boolean', default: false },
        'exit-with-stdin': { type: 'boolean', default: false },
        faults: { type: 'string' },
        'faults-seed': { type: 'string' },
        'faults-control': { type: 'boolean', default: false },
        'max-environments': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
})();

if (parsed.help) {
  process.stdout.write(usage);
  process.exit(0);
}

const port = portOption(parsed.port ?? process.env.PORT, 3000, '--port') as number;

const faultRules = ((): FaultRules | undefined => {
  if (parsed.faults === undefined) return undefined;
  try {
    return loadFaultRules(parsed.faults);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
})();
const faultSeed = parsed['faults-seed'] === undefined ? undefined : Number(parsed['faults-seed']);
if (faultSeed !== undefined && !Number.isSafeInteger(faultSeed)) {
  process.stderr.write(`--faults-seed must be an integer\n\n${usage}`);
  process.exit(2);
}
const maxEnvironments = parsed['max-environments'] === undefined ? undefined : Number(parsed['max-environments']);
if (maxEnvironments !== undefined && !(Number.isSafeInteger(maxEnvironments) && maxEnvironments >= 1)) {
  process.stderr.write(`--max-environments must be a positive integer\n\n${usage}`);
  process.exit(2);
}
const faults =
  faultRules || parsed['faults-control'] || faultSeed !== undefined
    ? { ...(faultRules ? { rules: faultRules } : {}), ...(faultSeed !== undefined ? { seed: faultSeed } : {}) }
    : undefined;
const readyJson = parsed['ready-json'] || !process.stdout.isTTY;
// With a machine reading stdout, keep it for the ready line; people still see everything on stderr.
const say = (text: string) => (readyJson ? process.stderr : process.stdout).write(`${text}\n`);
const log = (line: string) => process.stderr.write(`${line}\n`);

let stack: LocalStack | undefined;
let stopping: Promise<void> | undefined;
const shutdown = (reason: string, exitCode = 0) => {
  if (stopping) {
    // A second Ctrl-C: leave now. DynamoDB Local's watchdog sees our pipe close and stops the JVM anyway.
    if (reason === 'SIGINT') process.exit(130);
    return stopping;
  }
  log(`[local-stack] stopping (${reason})`);
  removeStackState(); // the local tools' state file (stack-state.ts)
  stopping = (stack?.stop() ?? Promise.resolve()).finally(() => process.exit(exitCode));
  return stopping;
};

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal));
if (parsed['exit-with-stdin']) {
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdin.on('error', () => void shutdown('stdin closed'));
  process.stdin.resume();
}
// Whoever started us (the tsx CLI under `npm start`, npx and its `sh -c` above tsx, a test runner) can die without
// a word, even by SIGKILL, and a launcher higher up does not take its children along (npx leaves tsx running).
// Watch the whole chain of launchers: when any of them is gone, go too. The stack never outlives its launcher.
watchLaunchers((gone) => void shutdown(`launcher ${gone} exited`));

try {
  stack = await startLocalStack({
    port,
    dynamodbPort: portOption(parsed['dynamodb-port'], undefined, '--dynamodb-port'),
    sqsPort: portOption(parsed['sqs-port'], undefined, '--sqs-port'),
    inMemory: parsed['in-memory'],
    ...(parsed.assembly ? { assemblyDir: resolve(parsed.assembly) } : {}),
    ...(faults ? { faults } : {}),
    ...(maxEnvironments !== undefined ? { maxEnvironments } : {}),
    log,
  });
} catch (error) {
  // A busy port or a missing Java is the user's to fix, in one line; anything else is ours, with its stack.
  if (error instanceof LocalSetupError) log(`[local-stack] ${error.message}`);
  else log(`[local-stack] failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}

const queues = Object.entries(stack.queueUrls)
  .map(([name, url]) => `\n               ${name}: ${url}`)
  .join('');
say(`
Local stack ready (${parsed['in-memory'] ? 'in memory' : `data in ${relative(repoRoot, defaultDataDir)}/`})
  API          ${stack.baseUrl}
  OpenAPI      ${stack.baseUrl}/openapi.json
  Reference    ${stack.baseUrl}/docs  (interactive: Authorize with a token, then try any operation)
  DynamoDB     ${stack.dynamodbEndpoint}  table ${stack.tableName}
  SQS          ${stack.sqsEndpoint}${queues}
  Scheduler    ${stack.schedulerEndpoint}  (EventBridge Scheduler emulation: fires task schedules into the task-runs queue)
  KMS          ${stack.kmsEndpoint}  (KMS emulation: the templates' keys, their key policies enforced at the IAM edge)
  Secrets      ${stack.secretsManagerEndpoint}  (Secrets Manager emulation: the webhook's signing secret; PutSecretValue rotates it)
  IAM edge     ${stack.iamEdgeEndpoint}  (the functions' DynamoDB, SQS, Scheduler, KMS and Secrets Manager endpoint: enforces their role and key policies)${
  stack.faultsEndpoint
    ? `\n  Faults       ${stack.faultsEndpoint}  (${parsed.faults ? `${parsed.faults}: ` : ''}${faultRules?.rules.length ?? 0} rule(s); PUT/DELETE /rules, GET /log; each fired fault logs a [fault] line)`
    : ''
}

Get a token:   npm run --silent token -- --tenant 1 --organisation org_1   (document reads need the events' organisation)
Try it:        curl -H "Authorization: Bearer $(npm run --silent token -- --tenant 1)" ${stack.baseUrl}/TenantLocation/GetAll
Ctrl-C stops everything.
`);
// The local tools (npm run redrive, npm run local) find this stack through its state file (stack-state.ts).
writeStackState(stack, parsed['in-memory']);
process.on('exit', () => removeStackState());
if (readyJson) {
  process.stdout.write(
    `${JSON.stringify({ ready: true, ...endpointsOf(stack), pid: process.pid })}\n`,
  );
}
