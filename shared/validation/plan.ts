// Validation: the plain-data form of a zod schema ("plan"). Built from the zod schemas by compile.ts, written into
// the generated modules (shared/compiled/, npm run openapi) and run by check.ts, so a function's
// bundle validates exactly as zod would without loading zod. Nodes refer to each other by index into one table, so
// shared and recursive schemas (Address, inventory class groups) are written once.

/** How an object field (or an object's catchall) may be absent: zod's `optin` / `optout`. */
export type Presence = 'optional' | 'defaulted' | undefined;

export interface FieldPlan {
  readonly node: number;
  readonly optin?: 'optional' | 'defaulted';
  readonly optout?: 'optional';
}

/** A check zod runs after the type is known. `message` is the check's own error, when the schema gives one. */
export type CheckPlan =
  | { readonly check: 'max_length'; readonly maximum: number; readonly message?: string }
  | { readonly check: 'min_length'; readonly minimum: number; readonly message?: string }
  | { readonly check: 'string_format'; readonly format: string; readonly pattern: RegExp; readonly message?: string }
  | { readonly check: 'less_than'; readonly value: number; readonly inclusive: boolean; readonly message?: string }
  | { readonly check: 'greater_than'; readonly value: number; readonly inclusive: boolean; readonly message?: string }
  | { readonly check: 'number_format'; readonly format: 'int32' | 'uint32' | 'safeint' | 'float32' | 'float64'; readonly message?: string }
  /** A refinement with a portable form (shared/validation/refinements.ts): passes when `pattern` matches. */
  | { readonly check: 'custom_pattern'; readonly pattern: RegExp; readonly message?: string };

interface Base {
  /** The schema's own error message (zod `error` param), used for its type issue and before the locale's. */
  readonly message?: string;
  readonly checks?: readonly CheckPlan[];
}

export type NodePlan = Base &
  (
    | { readonly type: 'string' }
    | { readonly type: 'number' }
    | { readonly type: 'boolean' }
    | { readonly type: 'unknown' }
    | { readonly type: 'literal'; readonly values: readonly (string | number | boolean | null)[] }
    | { readonly type: 'enum'; readonly values: readonly (string | number)[] }
    | {
        readonly type: 'object';
        readonly shape: Readonly<Record<string, FieldPlan>>;
        /** `never`: strict (unknown keys refused); a field plan: loose (unknown keys kept); absent: stripped. */
        readonly catchall?: 'never' | FieldPlan;
      }
    | { readonly type: 'array'; readonly element: number }
    | { readonly type: 'optional'; readonly inner: number }
    | { readonly type: 'nullable'; readonly inner: number }
    | { readonly type: 'pipe'; readonly in: number; readonly out: number }
    /** A transform with a portable form: only the global functions listed in check.ts (`Number`, `String`, ...). */
    | { readonly type: 'transform'; readonly fn: 'Number' | 'String' | 'Boolean' }
    | { readonly type: 'union'; readonly options: readonly number[] }
  );

/** One schema: its node table and the index of its root. */
export interface SchemaPlan {
  readonly nodes: readonly NodePlan[];
  readonly root: number;
}
