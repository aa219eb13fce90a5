// Observability: X-Ray traces of every AWS SDK call (Powertools Tracer). Every client of the service is created
// through `traced(...)` (the DynamoDB, SQS, Scheduler, Secrets Manager clients and the Encryption SDK's KMS client),
// so each call is a subsegment of the function's trace on AWS, where the functions run with Tracing.ACTIVE.
//
// Tracing is on only where an X-Ray daemon is: Lambda sets AWS_XRAY_DAEMON_ADDRESS when active tracing is on, and
// the local stack, the tests and the bench's SDK-only baseline have none. POWERTOOLS_TRACE_ENABLED=false turns it off
// anyway (the stack setting `tracing`, shared/operations/settings.ts). The Tracer and the X-Ray SDK it wraps
// (aws-xray-sdk-core, semver, cls-hooked: about 124 KiB minified) are `#lazy/tracer` (package.json "imports"): a
// chunk beside the function's bundle (infra/build/lazy-chunks.mjs), loaded by a dynamic import only when tracing is
// on, so the bundle every cold start reads carries none of it and a function without tracing never loads it. The
// chunk gives the X-Ray SDK its context on AsyncLocalStorage instead of cls-hooked, whose async hook ran on every
// promise of the process (async-context.ts). HTTP requests are not patched globally
// (captureHTTPsRequests: false): the SDK's own subsegments already cover every request the service makes.
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { environmentVariables, processServiceName } from '#shared/environment';

/** Whether this process traces its SDK calls: an X-Ray daemon to send to, and tracing not turned off. */
export const tracingEnabled = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env[environmentVariables.tracing]?.toLowerCase() !== 'false' && Boolean(env.AWS_XRAY_DAEMON_ADDRESS);

const loadTracer = async (): Promise<Tracer> => {
  const { Tracer } = await import('#lazy/tracer');
  return new Tracer({ serviceName: processServiceName(), captureHTTPsRequests: false });
};

/** The tracer, loaded at module evaluation (before any client exists) only when tracing is on. */
const tracer: Tracer | undefined = tracingEnabled() ? await loadTracer() : undefined;

/** The client with every call traced as an X-Ray subsegment when tracing is on; the client itself otherwise. */
export const traced = <Client>(client: Client): Client => (tracer ? tracer.captureAWSv3Client(client) : client);
