// HTTP conventions: validation issues as RFC 9457 `errors[]` members: a JSON pointer (RFC 6901) for body fields,
// the parameter name for path and query parameters. Validation runs a compiled plan (shared/validation), the
// functions' zod-free form of the zod schema; a zod schema handed in directly is compiled first, so both give the
// same result.
import type { z } from 'zod';
import { pointerSegment, ValidationFailed, type FieldError } from '#shared/errors';
import { checkPlan } from '#shared/validation/check';
import { planOf } from '#shared/validation/compile';
import type { SchemaPlan } from '#shared/validation/plan';
import { documentFieldErrors, type DocumentValidator } from '#shared/validation/document';

export type InputLocation = 'body' | 'path' | 'query';

/** What toFieldErrors reads of an issue: zod's and shared/validation's issues both have it. */
interface IssueLike {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
}

export const toFieldErrors = (error: { readonly issues: readonly IssueLike[] }, location: InputLocation = 'body'): FieldError[] =>
  error.issues.flatMap((issue): FieldError[] => {
    const keys = issue.code === 'unrecognized_keys' ? (issue.keys ?? []).map((key) => [...issue.path, key]) : [issue.path];
    const detail = issue.code === 'unrecognized_keys' ? 'is not a known field (names are case-sensitive)' : issue.message;
    return keys.map((path) =>
      location === 'body'
        ? { pointer: path.map((segment) => `/${pointerSegment(String(segment))}`).join(''), detail }
        : { parameter: path.map(String).join('.'), detail },
    );
  });

const isPlan = (schema: z.ZodType | SchemaPlan): schema is SchemaPlan => Array.isArray((schema as Partial<SchemaPlan>).nodes);

/** Validates with `schema` (a compiled plan, or a zod schema) or throws ValidationFailed listing every invalid input. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, location?: InputLocation): z.output<S>;
export function validate<T = unknown>(schema: SchemaPlan, value: unknown, location?: InputLocation): T;
export function validate(schema: z.ZodType | SchemaPlan, value: unknown, location: InputLocation = 'body'): unknown {
  const result = checkPlan(isPlan(schema) ? schema : planOf(schema), value);
  if (!result.success) throw new ValidationFailed(toFieldErrors(result, location));
  return result.data;
}

/**
 * Checks `value` with a validator ajv generated from the OpenAPI document (shared/compiled/requests/), or throws
 * ValidationFailed with one pointer (or parameter name) per error. Runs after the plan, on the same request.
 */
export const validateWithDocument = (validator: DocumentValidator | undefined, value: unknown, location: InputLocation = 'body'): void => {
  if (validator === undefined || validator(value)) return;
  throw new ValidationFailed(documentFieldErrors(validator.errors ?? [], location));
};
