// HTTP conventions: zod issues as RFC 9457 `errors[]` members: a JSON pointer (RFC 6901) for body fields, the
// parameter name for path and query parameters.
import type { z } from 'zod';
import { ValidationFailed, type FieldError } from '../errors';

const escapePointer = (segment: PropertyKey) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');

export type InputLocation = 'body' | 'path' | 'query';

export const toFieldErrors = (error: z.ZodError, location: InputLocation = 'body'): FieldError[] =>
  error.issues.flatMap((issue): FieldError[] => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
    const detail = issue.code === 'unrecognized_keys' ? 'is not a known field (names are case-sensitive)' : issue.message;
    return keys.map((path) =>
      location === 'body'
        ? { pointer: path.map((segment) => `/${escapePointer(segment)}`).join(''), detail }
        : { parameter: path.map(String).join('.'), detail },
    );
  });

/** Parses with `schema` or throws ValidationFailed listing every invalid input. */
export const validate = <S extends z.ZodType>(schema: S, value: unknown, location: InputLocation = 'body'): z.output<S> => {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationFailed(toFieldErrors(result.error, location));
  return result.data;
};
