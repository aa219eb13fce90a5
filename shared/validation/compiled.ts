// Validation: the run-time side of the generated modules in shared/compiled/ (written by `npm run openapi`).
// A compiled schema carries plans (plan.ts) instead of zod schemas, so the functions that import
// them bundle no zod; its TypeScript types still come from the zod source, through type-only imports. A compiled
// manifest entry (CompiledOperation) belongs to the manifest: shared/operations/compiled-operation.ts.
import type { z } from 'zod';
import { checkPlan, type Issue } from './check';
import type { NodePlan, SchemaPlan } from './plan';

/** The root element names of an XML response: the body type's name, or `ArrayOf<item>` with `<item>` members. */
export interface XmlRoot {
  readonly name: string;
  readonly itemName?: string;
}

export class CompiledValidationError extends Error {
  constructor(readonly issues: readonly Issue[]) {
    super(issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
    this.name = 'CompiledValidationError';
  }
}

/** The part of zod's API the service uses on a schema outside the HTTP stack. */
export interface CompiledSchema<S extends z.ZodType> {
  readonly plan: SchemaPlan;
  /** The object's field names (an object schema's `shape` keys), for code that lists a record's fields. */
  readonly shape: Readonly<Record<keyof z.output<S> & string, true>>;
  safeParse(value: unknown): { success: true; data: z.output<S> } | { success: false; error: { issues: readonly Issue[] } };
  parse(value: unknown): z.output<S>;
}

export const compiledSchema = <S extends z.ZodType>(nodes: readonly NodePlan[], root: number): CompiledSchema<S> => {
  const plan: SchemaPlan = { nodes, root };
  const node = nodes[root];
  const shape = Object.fromEntries(node?.type === 'object' ? Object.keys(node.shape).map((key) => [key, true]) : []);
  const safeParse = (value: unknown) => {
    const result = checkPlan<z.output<S>>(plan, value);
    return result.success ? { success: true as const, data: result.data } : { success: false as const, error: { issues: result.issues } };
  };
  return {
    plan,
    shape: shape as CompiledSchema<S>['shape'],
    safeParse,
    parse: (value) => {
      const result = safeParse(value);
      if (!result.success) throw new CompiledValidationError(result.error.issues);
      return result.data;
    },
  };
};
