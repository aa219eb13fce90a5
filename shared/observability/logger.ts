// Observability: one structured JSON logger for every function (Powertools). Bodies, headers and tokens are never
// logged; a log line carries ids, statuses and timings only, plus the request id appended per invocation.
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'business-platform-api',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
});

/** The fields of an error that are safe to log: its class and code, never its message (it may echo input). */
export const describeError = (error: unknown): Record<string, unknown> => {
  if (!(error instanceof Error)) return { errorType: typeof error };
  const code = (error as { code?: unknown }).code;
  const metadata = (error as { $metadata?: { httpStatusCode?: number } }).$metadata;
  return {
    errorName: error.name,
    ...(typeof code === 'string' ? { errorCode: code } : {}),
    ...(metadata?.httpStatusCode ? { dependencyStatus: metadata.httpStatusCode } : {}),
    stack: error.stack?.split('\n').slice(1, 6).join('\n'),
    // A wrapped dependency failure (a 503 around the SDK's error) keeps the dependency's class and code in the line.
    ...(error.cause instanceof Error ? { cause: describeError(error.cause) } : {}),
  };
};
