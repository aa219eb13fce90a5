// Validation: the two helpers the generated validators keep their error list with (infra/build/ajv-code.ts
// `leanCode` writes ajv's repeated bookkeeping as calls to them), declared once here instead of in every validator.
// `errors` is ajv's `vErrors`: null until the first error.

/** The list with `error` appended (a new list when there was none). */
export const pushed = <E>(errors: E[] | null, error: E): E[] => {
  if (errors === null) return [error];
  errors.push(error);
  return errors;
};

/** The list with a called validator's errors appended (its own list when there was none). */
export const joined = <E>(errors: E[] | null, more: E[]): E[] => (errors === null ? more : errors.concat(more));
