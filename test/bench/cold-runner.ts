// Benchmark child process: one cold start. Bundled by the bench into a standalone .mjs and run as
// `node cold-runner.mjs <bundle> <functionName> <timeoutMs>` with the event in BENCH_EVENT. It imports the function
// bundle (Lambda's init phase), serves the one event (the first invocation), prints one JSON line and exits.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createLambdaContext } from '#infra/local/lambda-runtime';

export interface ColdRunnerReport {
  readonly ok: boolean;
  /** From process start (performance.timeOrigin) to this module running: Node's own start-up. */
  readonly bootMs: number;
  /** Importing the bundle: module loading plus every module-scope initialisation (Lambda's init phase). */
  readonly importMs: number;
  /** The first invocation, from the call to the resolved response. */
  readonly invokeMs: number;
  /** A short description of the response (HTTP status, policy effect, failed records). */
  readonly summary: string;
  readonly error?: string;
  /**
   * Import start, import end and response, on the monotonic clock in microseconds (process.hrtime): the clock of
   * V8's CPU profiles, so a `--cpu-prof` profile of this process splits into init and first call (cpu-profile.ts).
   */
  readonly marksUs?: readonly [number, number, number];
}

/** A refusal's problem type (its last path segment), so a cold start measured on an error path says which. */
const problemOf = (body: unknown): string => {
  try {
    const type = (JSON.parse(String(body)) as { type?: unknown }).type;
    return typeof type === 'string' ? ` ${type.slice(type.lastIndexOf('/') + 1)}` : '';
  } catch {
    return '';
  }
};

const describe = (result: unknown): string => {
  if (result && typeof result === 'object') {
    const value = result as { statusCode?: unknown; body?: unknown; policyDocument?: { Statement?: { Effect?: string }[] }; batchItemFailures?: unknown[] };
    if (typeof value.statusCode === 'number') return `HTTP ${value.statusCode}${value.statusCode >= 400 ? problemOf(value.body) : ''}`;
    if (value.policyDocument) return `policy ${value.policyDocument.Statement?.[0]?.Effect ?? '?'}`;
    if (Array.isArray(value.batchItemFailures)) return `${value.batchItemFailures.length} failed record(s)`;
  }
  return typeof result;
};

const started = performance.now();
const microseconds = () => Number(process.hrtime.bigint() / 1000n);
const [bundle = '', functionName = 'bench', timeoutText = '10000'] = process.argv.slice(2);
const eventText = process.env.BENCH_EVENT ?? 'null';
delete process.env.BENCH_EVENT;
/** Marks the report line, so nothing else a function might print on stdout is taken for it. */
const reportPrefix = 'BENCH_COLD_START ';
const print = (report: ColdRunnerReport) =>
  process.stdout.write(`${reportPrefix}${JSON.stringify(report)}\n`, () => process.exit(report.ok ? 0 : 1));

try {
  const event: unknown = JSON.parse(eventText);
  const importStartUs = microseconds();
  const loaded = (await import(pathToFileURL(bundle).href)) as { handler?: (event: unknown, context: unknown) => Promise<unknown> };
  const imported = performance.now();
  const importEndUs = microseconds();
  if (typeof loaded.handler !== 'function') throw new Error(`${bundle} exports no handler`);
  const timeoutMs = Number(timeoutText);
  const result = await loaded.handler(event, createLambdaContext({ functionName, timeoutMs, memoryLimitInMB: 512 }, Date.now() + timeoutMs));
  const answered = performance.now();
  const marksUs = [importStartUs, importEndUs, microseconds()] as const;
  print({ ok: true, bootMs: started, importMs: imported - started, invokeMs: answered - imported, summary: describe(result), marksUs });
} catch (error) {
  print({ ok: false, bootMs: started, importMs: 0, invokeMs: 0, summary: 'error', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
