// Observability: one structured JSON logger for every function (Powertools). Bodies, headers and tokens are never
// logged; a log line carries ids, statuses and timings only, plus the request id appended per invocation.
import { Logger } from '@aws-lambda-powertools/logger';
import { environmentVariables, optionalEnvironmentValue, processServiceName } from '#shared/environment';

/**
 * Powertools reports `cold_start: true` only where AWS_LAMBDA_INITIALIZATION_TYPE is "on-demand": under any other
 * value, or none (a local runtime, Lambda managed instances), every line said false, first invocations included.
 * Here the first invocation an execution environment serves is cold, unless provisioned concurrency initialised it
 * ahead of any request (AWS's meaning, and Powertools' for that case). addContext asks once per invocation.
 */
class ServiceLogger extends Logger {
  #cold = process.env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() !== 'provisioned-concurrency';

  override getColdStart(): boolean {
    const cold = this.#cold;
    this.#cold = false;
    return cold;
  }
}

export const logger = new ServiceLogger({
  serviceName: processServiceName(),
  logLevel: (optionalEnvironmentValue(environmentVariables.logLevel) as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
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
