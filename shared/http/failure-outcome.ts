// HTTP conventions: the platform's outcome members of a failure (IsSuccess false, Messages, ErrorCode), added to
// every problem response: by functions (problem.ts) and by the gateway itself (gateway-responses.ts).
import type { FieldError } from '#shared/errors';

/** A field error as one line of text: where (pointer or parameter), then what. */
export const fieldErrorMessage = (error: FieldError): string => {
  const where = 'pointer' in error ? error.pointer : error.parameter;
  return where === '' ? error.detail : `${where}: ${error.detail}`;
};

/** What a client of the platform that checks IsSuccess reads: the detail, then each field error, and the status. */
export const failureOutcome = (status: number, detail: string, errors: readonly FieldError[] = []) => ({
  IsSuccess: false as const,
  Messages: [detail, ...errors.map(fieldErrorMessage)],
  ErrorCode: status,
});
