// Entry of `npm run bench` (`tsx test/bench/run.ts [--quick]`). Sets what must be in place before any module of
// the service loads (log level, no SDK version warning, no profile), then runs the benchmark (bench.ts). Prints
// progress on stderr and the report on stdout; exits 0 unless the program itself fails.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'ERROR';
process.env.POWERTOOLS_LOG_LEVEL = process.env.LOG_LEVEL;
// The services the bench calls in process write business metrics (EMF) on stdout, where the report goes. Cold-start
// children get their own environment and still write theirs, as on Lambda.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
// Fake credentials come from the local stack; a profile or session token of the caller must not mix in.
delete process.env.AWS_PROFILE;
delete process.env.AWS_SESSION_TOKEN;

export {};

try {
  const { main } = await import('./bench');
  const code = await main(process.argv.slice(2));
  process.exit(code);
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
