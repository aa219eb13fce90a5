// Validation: builds the plain-data plan (plan.ts) of a zod schema by reading its definition. Used by the generator
// (infra/build/validators.ts) to write the functions' validators, and at run time when a zod schema is handed to
// the HTTP stack directly (tests, tools). Reads `_zod.def` only: no import of zod, so it costs a bundle nothing.
// A construct it cannot carry faithfully throws, naming the schema path and what to do.
import type { z } from 'zod';
import { portablePattern } from './portable';
import type { CheckPlan, FieldPlan, NodePlan, SchemaPlan } from './plan';

interface Def {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
  readonly error?: (issue: unknown) => unknown;
  readonly coerce?: boolean;
  readonly format?: string;
  readonly pattern?: RegExp;
  readonly abort?: boolean;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly element?: z.ZodType;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly values?: readonly unknown[];
  readonly entries?: Readonly<Record<string, string | number>>;
  readonly transform?: unknown;
}

interface CheckDef extends Def {
  readonly check: string;
  readonly maximum?: number;
  readonly minimum?: number;
  readonly value?: unknown;
  readonly inclusive?: boolean;
  readonly when?: { readonly name?: string };
  readonly fn?: unknown;
  readonly path?: readonly unknown[];
  readonly params?: unknown;
}

interface Internals {
  readonly def: Def;
  readonly optin?: 'optional' | 'defaulted';
  readonly optout?: 'optional';
  readonly innerType?: z.ZodType;
}

const internals = (schema: z.ZodType): Internals => (schema as unknown as { _zod: Internals })._zod;

export class UnsupportedSchema extends Error {}

const transforms = new Map<unknown, 'Number' | 'String' | 'Boolean'>([
  [Number, 'Number'],
  [String, 'String'],
  [Boolean, 'Boolean'],
]);

/** A constant `error` param as its message; a message that depends on the issue cannot be carried. */
const messageOf = (error: Def['error'], where: string): string | undefined => {
  if (!error) return undefined;
  const unwrap = (value: unknown) => (typeof value === 'string' ? value : (value as { message?: unknown } | undefined)?.message);
  const first = unwrap(error({ code: 'custom', input: undefined, path: [] }));
  const second = unwrap(error({ code: 'invalid_type', input: 0, path: ['x'], expected: 'string' }));
  if (typeof first !== 'string' || first !== second) {
    throw new UnsupportedSchema(`${where}: an error message that depends on the issue cannot be compiled; give a constant message`);
  }
  return first;
};

const lengthWhen = new Set(['_whenHasLength']);

const checkPlanOf = (def: CheckDef, where: string): CheckPlan => {
  if (def.abort) throw new UnsupportedSchema(`${where}: checks with abort are not supported by shared/validation`);
  const message = messageOf(def.error, where);
  const withMessage = message === undefined ? {} : { message };
  if (def.when && !(def.check.endsWith('_length') && lengthWhen.has(def.when.name ?? ''))) {
    throw new UnsupportedSchema(`${where}: checks with a custom \`when\` are not supported by shared/validation`);
  }
  switch (def.check) {
    case 'max_length':
      return { check: 'max_length', maximum: def.maximum as number, ...withMessage };
    case 'min_length':
      return { check: 'min_length', minimum: def.minimum as number, ...withMessage };
    case 'string_format':
      if (!(def.pattern instanceof RegExp)) throw new UnsupportedSchema(`${where}: the string format ${def.format} has no pattern`);
      return { check: 'string_format', format: def.format ?? 'regex', pattern: def.pattern, ...withMessage };
    case 'less_than':
    case 'greater_than':
      if (typeof def.value !== 'number') throw new UnsupportedSchema(`${where}: only numeric bounds are supported`);
      return { check: def.check, value: def.value, inclusive: def.inclusive === true, ...withMessage };
    case 'number_format':
      return { check: 'number_format', format: (def.format ?? 'float64') as 'int32', ...withMessage };
    case 'custom': {
      const pattern = (def.fn as { [portablePattern]?: unknown } | undefined)?.[portablePattern];
      if (!(pattern instanceof RegExp) || def.path?.length || def.params !== undefined) {
        throw new UnsupportedSchema(
          `${where}: a .refine() closure cannot be compiled; build it with matches(pattern) from shared/validation/portable.ts ` +
            '(or add a portable form there)',
        );
      }
      return { check: 'custom_pattern', pattern, ...withMessage };
    }
    default:
      throw new UnsupportedSchema(`${where}: the check ${def.check} is not supported by shared/validation (add it to plan.ts and check.ts)`);
  }
};

/** Compiles several schemas into one node table, so the schemas they share are written once. */
export const createPlanBuilder = () => {
  const nodes: NodePlan[] = [];
  const indexes = new Map<z.ZodType, number>();

  const field = (schema: z.ZodType, where: string): FieldPlan => {
    const { optin, optout } = internals(schema);
    return { node: add(schema, where), ...(optin ? { optin } : {}), ...(optout ? { optout } : {}) };
  };

  const add = (schema: z.ZodType, where: string): number => {
    const known = indexes.get(schema);
    if (known !== undefined) return known;
    const zod = internals(schema);
    const { def } = zod;
    if (def.type === 'lazy') {
      const inner = zod.innerType as z.ZodType;
      const index = add(inner, where);
      indexes.set(schema, index);
      return index;
    }
    const index = nodes.length;
    indexes.set(schema, index);
    nodes.push({ type: 'unknown' }); // placeholder: children may refer back to it (recursive schemas)
    if (def.coerce) throw new UnsupportedSchema(`${where}: z.coerce is not supported (the HTTP codecs coerce)`);
    const message = messageOf(def.error, where);
    // A string or number format is a schema and a check at once: zod runs it first, before the other checks.
    const selfCheck = def.format && (def.type === 'string' || def.type === 'number') ? [checkPlanOf(def as CheckDef, where)] : [];
    const checks = [...selfCheck, ...(def.checks ?? []).map((check) => checkPlanOf(check._zod.def, where))];
    const base = { ...(message === undefined ? {} : { message }), ...(checks.length ? { checks } : {}) };
    const noChecks = () => {
      if (checks.length) throw new UnsupportedSchema(`${where}: checks on a ${def.type} schema are not supported by shared/validation`);
    };
    let node: NodePlan;
    switch (def.type) {
      case 'string':
      case 'number':
      case 'boolean':
        node = { type: def.type, ...base };
        break;
      case 'unknown':
      case 'any':
        noChecks();
        node = { type: 'unknown', ...base };
        break;
      case 'literal':
        noChecks();
        node = { type: 'literal', values: (def.values ?? []) as (string | number | boolean | null)[], ...base };
        break;
      case 'enum':
        noChecks();
        node = { type: 'enum', values: Object.values(def.entries ?? {}), ...base };
        break;
      case 'object': {
        noChecks();
        const shape: Record<string, FieldPlan> = {};
        for (const [key, value] of Object.entries(def.shape ?? {})) shape[key] = field(value, `${where}.${key}`);
        const catchall = def.catchall
          ? internals(def.catchall).def.type === 'never'
            ? ('never' as const)
            : field(def.catchall, `${where}.*`)
          : undefined;
        node = { type: 'object', shape, ...(catchall ? { catchall } : {}), ...base };
        break;
      }
      case 'array':
        node = { type: 'array', element: add(def.element as z.ZodType, `${where}[]`), ...base };
        break;
      case 'optional':
      case 'nullable': {
        noChecks();
        const inner = def.innerType as z.ZodType;
        if (def.type === 'optional' && internals(inner).optin === 'defaulted') {
          throw new UnsupportedSchema(`${where}: .default() is not supported by shared/validation`);
        }
        node = { type: def.type, inner: add(inner, where), ...base };
        break;
      }
      case 'pipe':
        noChecks();
        node = { type: 'pipe', in: add(def.in as z.ZodType, where), out: add(def.out as z.ZodType, where), ...base };
        break;
      case 'transform': {
        noChecks();
        const fn = transforms.get(def.transform);
        if (!fn) throw new UnsupportedSchema(`${where}: only .transform(Number | String | Boolean) can be compiled`);
        node = { type: 'transform', fn, ...base };
        break;
      }
      case 'union':
        noChecks();
        node = { type: 'union', options: (def.options ?? []).map((option, at) => add(option, `${where}|${at}`)), ...base };
        break;
      default:
        throw new UnsupportedSchema(`${where}: z.${def.type} is not supported by shared/validation (add it to plan.ts and check.ts)`);
    }
    nodes[index] = node;
    return index;
  };

  return { nodes: nodes as readonly NodePlan[], add };
};

const plans = new WeakMap<z.ZodType, SchemaPlan>();

/** The plan of one schema (cached per schema object). */
export const planOf = (schema: z.ZodType, where = 'schema'): SchemaPlan => {
  let plan = plans.get(schema);
  if (!plan) {
    const builder = createPlanBuilder();
    plan = { root: builder.add(schema, where), nodes: builder.nodes };
    plans.set(schema, plan);
  }
  return plan;
};
