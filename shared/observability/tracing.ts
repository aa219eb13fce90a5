// Observability: X-Ray traces of every AWS SDK call (Powertools Tracer). Every client of the service is created
// through `traced(...)` (the DynamoDB, SQS, Scheduler, Secrets Manager clients and the Encryption SDK's KMS client),
// so each call is a subsegment of the function's trace on AWS, where the functions run with Tracing.ACTIVE.
//
// Tracing is on only where an X-Ray daemon is: Lambda sets AWS_XRAY_DAEMON_ADDRESS when active tracing is on, and
// the local stack, the tests and the bench's SDK-only baseline have none. POWERTOOLS_TRACE_ENABLED=false turns it off
// anyway (the stack setting `tracing`, shared/operations/settings.ts). The Tracer and the X-Ray SDK it wraps
// (aws-xray-sdk-core and its dependencies) are a module of their own in the function's asset (tracer-entry.ts, built
// as tracer.mjs beside index.mjs), loaded by a dynamic import only when tracing is on: the bundle every cold start
// reads carries none of it, and a function without tracing never loads it. HTTP requests are not patched globally
// (captureHTTPsRequests: false): the SDK's own subsegments already cover every request the service makes.
import type { Tracer } from '@aws-lambda-powertools/tracer';

/** Whether this process traces its SDK calls: an X-Ray daemon to send to, and tracing not turned off. */
export const tracingEnabled = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false' && Boolean(env.AWS_XRAY_DAEMON_ADDRESS);

/**
 * The Tracer class. In a function's bundle, LAZY_TRACER_MODULE is replaced at build time by the file name of the
 * asset's tracer module (`define` in functionBundling), and esbuild drops the other branch, so the bundle carries no
 * tracing code; run from source (tests, the local stack, never traced), it is the package itself.
 */
const tracerClass = async (): Promise<typeof Tracer> => {
  const loaded = (
    process.env.LAZY_TRACER_MODULE
      ? await import(new URL(process.env.LAZY_TRACER_MODULE, import.meta.url).href)
      : await import('./tracer-entry')
  ) as typeof import('./tracer-entry');
  return loaded.Tracer;
};

const loadTracer = async (): Promise<Tracer> => {
  const Tracer = await tracerClass();
  return new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'business-platform-api', captureHTTPsRequests: false });
};

/** The tracer, loaded at module evaluation (before any client exists) only when tracing is on. */
const tracer: Tracer | undefined = tracingEnabled() ? await loadTracer() : undefined;

/** The client with every call traced as an X-Ray subsegment when tracing is on; the client itself otherwise. */
export const traced = <Client>(client: Client): Client => (tracer ? tracer.captureAWSv3Client(client) : client);
