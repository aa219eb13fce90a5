// Validation: the run-time side of the schemas the service checks outside the HTTP stack (queue messages, the
// principal), generated into shared/compiled/schemas/ by `npm run openapi` (infra/build/schema-validators.ts): ajv's
// standalone validator of the schema's JSON Schema (the zod schema as the OpenAPI document converts it), so the
// functions that read them bundle no zod, and the same mechanism checks a request and a queue message. Their
// TypeScript types still come from the zod source, through type-only imports. A schema checked here has no
// transform: what it accepts is what the code reads (the generator refuses a schema whose input and output differ).
import type { z } from 'zod';
import { documentIssues, type DocumentIssue, type DocumentValidator } from './document';

/** The root element names of an XML response: the body type's name, or `ArrayOf<item>` with `<item>` members. */
export interface XmlRoot {
  readonly name: string;
  readonly itemName?: string;
}

/** Why a value was refused: the member's path and the rule's words (never the value). */
export type Issue = DocumentIssue;

export class CompiledValidationError extends Error {
  constructor(readonly issues: readonly Issue[]) {
    super(issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.detail}`).join('; '));
    this.name = 'CompiledValidationError';
  }
}

/** The part of zod's API the service uses on a schema outside the HTTP stack. */
export interface CompiledSchema<S extends z.ZodType> {
  safeParse(value: unknown): { success: true; data: z.output<S> } | { success: false; error: { issues: readonly Issue[] } };
  parse(value: unknown): z.output<S>;
}

/** A record's field names (an object schema's `shape` keys), for code that lists a record's fields. */
export interface CompiledFields<S extends z.ZodType> {
  readonly shape: Readonly<Record<keyof z.output<S> & string, true>>;
}

export const compiledSchema = <S extends z.ZodType>(validator: DocumentValidator): CompiledSchema<S> => {
  const safeParse = (value: unknown) =>
    validator(value)
      ? { success: true as const, data: value as z.output<S> }
      : { success: false as const, error: { issues: documentIssues(validator.errors ?? []) } };
  return {
    safeParse,
    parse: (value) => {
      const result = safeParse(value);
      if (!result.success) throw new CompiledValidationError(result.error.issues);
      return result.data;
    },
  };
};

export const compiledFields = <S extends z.ZodType>(fields: readonly string[]): CompiledFields<S> => ({
  shape: Object.fromEntries(fields.map((field) => [field, true])) as CompiledFields<S>['shape'],
});
