// Validation: the helpers the generated validators keep their error list with (infra/build/ajv-code.ts
// `leanCode` writes ajv's repeated bookkeeping as calls to them), declared once here instead of in every validator.
// `errors` is ajv's `vErrors`: null until the first error.

/** The list with `error` appended (a new list when there was none). */
export const pushed = <E>(errors: E[] | null, error: E): E[] => {
  if (errors === null) return [error];
  errors.push(error);
  return errors;
};

/** The list with the error of these members appended: what each error ajv writes becomes (infra/build/ajv-code.ts `leanCode`). */
export const failed = <P>(
  errors: { instancePath: string; schemaPath: string; keyword: string; params: P }[] | null,
  instancePath: string,
  schemaPath: string,
  keyword: string,
  params: P,
) => pushed(errors, { instancePath, schemaPath, keyword, params });

/**
 * The list with a called validator's errors appended, in place: a copy per call (`concat`) made a body of 100,000
 * invalid list members quadratic (8.6 s for 60,000, past a function's timeout); appending is linear.
 */
export const joined = <E>(errors: E[] | null, more: E[]): E[] => {
  if (errors === null) return more.slice();
  for (const error of more) errors.push(error);
  return errors;
};
