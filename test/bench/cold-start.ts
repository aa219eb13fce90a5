// Benchmark: cold starts. Each sample is a fresh `node` process that imports a bundle and serves one event
// (test/bench/cold-runner.ts), timed in this process from spawn() to the response line on the child's stdout. The
// process is the Node.js the template's Runtime names (functionRuntime: the pinned package's executable), not the
// bench's own.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { functionRuntime, repositoryRoot } from '#infra/constructs/operation-function';
import { nodeExecutableFor, type NodeExecutable } from '#infra/local/lambda-runtime';
import type { ColdRunnerReport } from './cold-runner';

let functionNodeExecutable: NodeExecutable | undefined;
/** The node that runs every cold start: the one the functions' Runtime (nodejs24.x) names. */
export const functionNode = (): NodeExecutable =>
  (functionNodeExecutable ??= nodeExecutableFor(functionRuntime.name, { subject: 'the cold-start bench' }));

/**
 * Bundles the runner (cold-runner.ts) into `outfile` for `target` (e.g. node24): one runner for every sample, which
 * imports a bundle, serves the event and prints one line. Returns the file, the `runner` of `coldStart`.
 */
export const buildColdRunner = async (outfile: string, target: string): Promise<string> => {
  await build({ entryPoints: [join(repositoryRoot, 'test/bench/cold-runner.ts')], outfile, bundle: true, platform: 'node', format: 'esm', target, logLevel: 'error' });
  return outfile;
};

/** The runner's report line starts with this (cold-runner.ts `reportPrefix`; not imported: that module runs on import). */
const reportPrefix = 'BENCH_COLD_START ';

export interface ColdSample extends ColdRunnerReport {
  /** spawn() to the response: what a caller waits for on a cold start, minus Lambda's own sandbox set-up. */
  readonly totalMs: number;
}

const running = new Set<ChildProcess>();

/** Kills every cold-start child still running (used on errors and signals). */
export const killColdStartChildren = () => {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  running.clear();
};

export interface ColdStartOptions {
  readonly runner: string;
  readonly bundle: string;
  readonly functionName: string;
  readonly event: unknown;
  readonly env: Readonly<Record<string, string>>;
  readonly functionTimeoutMs: number;
  /** The whole sample, process start-up included. */
  readonly limitMs?: number;
  /** Node options before the runner (e.g. `--cpu-prof`). */
  readonly nodeArguments?: readonly string[];
}

export const coldStart = (options: ColdStartOptions): Promise<ColdSample> =>
  new Promise<ColdSample>((resolve, reject) => {
    const env = { ...options.env, BENCH_EVENT: JSON.stringify(options.event) };
    const started = performance.now();
    const child = spawn(functionNode().path, [...(options.nodeArguments ?? []), options.runner, options.bundle, options.functionName, String(options.functionTimeoutMs)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new Error(`${options.functionName}: no response within ${options.limitMs ?? 30_000} ms\n${stderr}`)));
    }, options.limitMs ?? 30_000);
    child.stdout.setEncoding('utf8');
    let sample: ColdSample | undefined;
    child.stdout.on('data', (chunk: string) => {
      const arrived = performance.now();
      stdout += chunk;
      if (sample) return;
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(reportPrefix));
      if (line === undefined || !stdout.includes('\n', stdout.indexOf(reportPrefix))) return;
      try {
        const report = JSON.parse(line.slice(reportPrefix.length)) as ColdRunnerReport;
        if (!report.ok) {
          finish(() => reject(new Error(`${options.functionName}: cold start failed: ${report.error ?? report.summary}\n${stderr}`)));
        } else {
          // Timed now; settled once the process is gone, so samples never overlap.
          sample = { ...report, totalMs: arrived - started };
        }
      } catch (error) {
        finish(() => reject(new Error(`${options.functionName}: unreadable runner output ${JSON.stringify(line)}: ${String(error)}`)));
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 20_000) stderr += chunk;
    });
    child.once('error', (error) => finish(() => reject(error)));
    child.once('exit', (code, signal) => {
      running.delete(child);
      finish(() =>
        sample
          ? resolve(sample)
          : reject(new Error(`${options.functionName}: runner exited (${code ?? signal}) without a response\n${stderr}`)),
      );
    });
  });
